"""Hostile model files: refused with a reason and bounded memory; beliefs stay probabilities."""

from __future__ import annotations

import dataclasses
import json
import os
import tracemalloc
import zlib

import chess
import numpy as np
import pytest

from iam.chunks import fitted
from iam.chunks.model import OpponentModel
from iam.errors import ModelFileError
from iam.models import files as modelfile

BOARD_MOVES = ("d2d4", "g8f6", "c2c4", "e7e6")


@pytest.fixture()
def content(small_model, tmp_path):
    small_model.save(tmp_path / "good.json")
    return json.loads((tmp_path / "good.json").read_text())


def _refused(path, message: str) -> None:
    with pytest.raises(ModelFileError, match=message):
        OpponentModel.load(path)


def test_deep_nesting_and_huge_numbers_are_refused(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 1000 + "]" * 1000)
    _refused(tmp_path / "deep.json", "nested deeper than 16")
    (tmp_path / "digits.json").write_text('{"format": "iam-opponent-model", "n": ' + "9" * 5000 + "}")
    _refused(tmp_path / "digits.json", "number of 5000 characters")
    # Brackets and digits inside strings are text, not structure.
    (tmp_path / "text.json").write_text(json.dumps({"format": "x", "note": "[" * 100 + "9" * 100}))
    _refused(tmp_path / "text.json", "not an IAM model file")


def test_a_gzip_bomb_is_refused_with_bounded_memory(tmp_path):
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 22)
    with (tmp_path / "bomb.json.gz").open("wb") as stream:
        for _ in range(modelfile.MAX_MODEL_BYTES // len(zeros) + 8):  # 96 MiB of zeros, 100 KB on disk
            stream.write(packer.compress(zeros))
        stream.write(packer.flush())
    tracemalloc.start()
    try:
        _refused(tmp_path / "bomb.json.gz", "inflates to more than 64 MiB")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < modelfile.MAX_MODEL_BYTES + 8 * 2**20


def test_several_gzip_members_and_zero_padding_are_read(small_model, tmp_path):
    small_model.save(tmp_path / "m.json")
    text = (tmp_path / "m.json").read_bytes()
    half = len(text) // 2
    members = b"".join(_gzip(part) for part in (text[:half], text[half:]))
    (tmp_path / "m.json.gz").write_bytes(members + bytes(8))
    assert OpponentModel.load(tmp_path / "m.json.gz").n_games_ == small_model.n_games_
    (tmp_path / "junk.json.gz").write_bytes(members + b"junk")
    _refused(tmp_path / "junk.json.gz", "damaged gzip")


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


def test_devices_pipes_and_oversized_files_are_refused(tmp_path, monkeypatch):
    _refused("/dev/zero", "not a regular file")
    os.mkfifo(tmp_path / "pipe.json")
    _refused(tmp_path / "pipe.json", "not a regular file")
    monkeypatch.setattr(modelfile, "MAX_MODEL_BYTES", 100)
    (tmp_path / "big.json").write_text(" " * 200)
    _refused(tmp_path / "big.json", "larger than")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d["belief"]["coef"].__setitem__(0, 1e308), "belief coef is 1e\\+308, beyond"),
        (lambda d: d["belief"]["mean"].__setitem__(0, -1e300), "belief mean"),
        (lambda d: d["belief"]["scale"].__setitem__(0, 1e300), "belief scale"),
        (lambda d: d["belief"]["scale"].__setitem__(0, 1e-250), "belief scales must be at least"),
        (lambda d: d.update(version=True), "version True"),
        (lambda d: d["belief"].update(intercept=1e308), "intercept"),
        (lambda d: d["rule_weights"].update(large_patterns=1e308), "rule weight large_patterns"),
    ],
)
def test_finite_but_extreme_weights_are_refused(content, tmp_path, damage, message):
    damage(content)
    (tmp_path / "bad.json").write_text(json.dumps(content))
    _refused(tmp_path / "bad.json", message)


def _board() -> chess.Board:
    board = chess.Board()
    for move in BOARD_MOVES:
        board.push_uci(move)
    return board


@pytest.mark.parametrize("value", [1e308, -1e308, 1e300])
def test_beliefs_stay_probabilities_whatever_the_weights(small_model, value):
    """Weights set from Python (not a file) can be anything; beliefs are clipped and normalised."""
    import copy

    model = copy.copy(small_model)
    belief = small_model.belief_
    model.state_ = dataclasses.replace(
        small_model.state_,
        belief=dataclasses.replace(
            belief, coef=np.full_like(belief.coef, value), scale=np.full_like(belief.scale, 1e-300), intercept=value
        ),
        rule_weights=dataclasses.replace(small_model.rule_weights_, large_patterns=value, winning_patterns=-value),
    )
    for board in (_board(), chess.Board()):
        beliefs = np.array(list(model.predict_proba(board).values()))
        assert np.all((beliefs >= 0) & (beliefs <= 1)) and beliefs.sum() <= 1 + 1e-9
    training = dataclasses.replace(model.state_.training, belief_kind="rules")
    model.state_ = dataclasses.replace(model.state_, belief=None, training=training)
    beliefs = np.array(list(model.predict_proba(_board()).values()))
    assert np.all((beliefs >= 0) & (beliefs <= 1)) and beliefs.sum() <= 1 + 1e-9


def test_too_many_chunks_or_remembered_positions_are_refused(content, tmp_path, monkeypatch):
    monkeypatch.setattr(fitted, "MAX_CHUNKS", 3)
    (tmp_path / "chunks.json").write_text(json.dumps(content))
    _refused(tmp_path / "chunks.json", "more than the 3 accepted")
    monkeypatch.setattr(fitted, "MAX_CHUNKS", 10**6)
    monkeypatch.setattr(fitted, "MAX_ROTE_ENTRIES", 3)
    _refused(tmp_path / "chunks.json", "more than 3 sequences or positions")


@pytest.mark.parametrize("kind", ["pipe", "link", "folder"])
def test_a_document_is_never_renamed_over_a_pipe_a_link_or_a_folder(tmp_path, kind):
    """Writing renames a new file over the path: a pipe (like a device) or a link there is refused and kept."""
    path = tmp_path / "out.json"
    if kind == "pipe":
        os.mkfifo(path)
    elif kind == "link":
        (tmp_path / "target.json").write_text("{}")
        path.symlink_to(tmp_path / "target.json")
    else:
        path.mkdir()
    before = os.lstat(path).st_mode
    with pytest.raises(ModelFileError, match="it is a folder" if kind == "folder" else "not a regular file"):
        modelfile.write_document({"a": 1}, path)
    assert os.lstat(path).st_mode == before and not list(tmp_path.glob(".*tmp*"))
