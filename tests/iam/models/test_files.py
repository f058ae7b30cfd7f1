"""Model files: round trips, atomic writes, and clear refusals of damaged files."""

from __future__ import annotations

import gzip
import json

import chess
import numpy as np
import pytest

from iam.chunks.fitted import VERSION
from iam.chunks.model import OpponentModel
from iam.errors import ModelFileError

POSITIONS = [
    chess.STARTING_FEN,
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    "r2q1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2NBPN2/PP3PPP/R2Q1RK1 b - - 3 10",
]


@pytest.mark.parametrize("name", ["model.json", "model.json.gz"])
def test_round_trip_gives_identical_predictions(small_model, tmp_path, name):
    path = tmp_path / name
    small_model.save(path)
    loaded = OpponentModel.load(path)
    for fen in POSITIONS:
        board = chess.Board(fen)
        assert loaded.predict_proba(board) == small_model.predict_proba(board)
    assert loaded.library_.table.equals(small_model.library_.table)
    assert loaded.rote_.entries == small_model.rote_.entries
    assert loaded.rote_.positions == small_model.rote_.positions and len(loaded.rote_.positions) > 50
    assert np.array_equal(loaded.belief_.coef, small_model.belief_.coef)
    assert loaded.get_params() == small_model.get_params()
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left behind
    if name.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"
    else:
        content = json.loads(path.read_text())
        assert content["format"] == "iam-opponent-model" and content["version"] == VERSION
        # patterns are readable text that parses back to the stored chunk codes
        from iam.chunks.chunk import from_pattern

        patterns = [row[0] for row in content["chunks"]["rows"]]
        assert all(set(pattern) <= set(".PNBRQKp/") for pattern in patterns)
        assert [from_pattern(p) for p in patterns] == small_model.library_.table.index.tolist()


def first_rote(data) -> dict:
    return next(iter(data["rote"]["sequences"].values()))


def write(path, data) -> None:
    path.write_text(json.dumps(data))


@pytest.fixture()
def content(small_model, tmp_path):
    small_model.save(tmp_path / "good.json")
    return json.loads((tmp_path / "good.json").read_text())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.update(format="something-else"), "not an IAM model"),
        (lambda d: d.pop("rote"), "missing field 'rote'"),
        (lambda d: d["chunks"]["rows"][0].pop(), "chunk row 0"),
        (lambda d: d["chunks"]["rows"][0].__setitem__(0, "XX"), "unknown piece letter"),
        (lambda d: d["chunks"]["rows"][0].__setitem__(2, -5), "non-negative"),
        (lambda d: d["belief"].update(coef=[1.0]), "one value per feature"),
        (lambda d: d["params"].update(min_games=0), "min_games"),
        (lambda d: d["rote"]["sequences"].update({"bad": {}}), "rote entry"),
        (lambda d: d["chunks"]["rows"][0].__setitem__(2, 10**30), "too large"),
        (lambda d: d["training"].update(games=10**30), "too large"),
        (lambda d: d["rule_weights"].update(large_patterns="0.15"), "rule weight large_patterns must be a number"),
        (lambda d: d["rule_weights"].update(major_pieces=float("nan")), "rule weight major_pieces must be finite"),
        (lambda d: d["rule_weights"].update(eliminate_dissolved=1), "eliminate_dissolved must be true or false"),
        (lambda d: d["params"].update(rule_weights={"winning_patterns": float("inf")}), "must be finite"),
        (lambda d: first_rote(d).update(notamove=2), "'notamove', not a move in UCI"),
        (lambda d: d["rote"]["sequences"].update({"startpos|e2e4 zz": {"e7e5": 2}}), "'zz', not a move in UCI"),
        (lambda d: d["belief"]["coef"].__setitem__(3, float("nan")), "belief coef must be finite"),
        (lambda d: d["belief"]["mean"].__setitem__(0, "1"), "belief mean must be a number"),
        (lambda d: d["belief"].update(intercept=float("nan")), "belief intercept must be finite"),
        (lambda d: d["belief"].update(intercept="0.5"), "belief intercept must be a number"),
        (lambda d: d["belief"]["calibration"]["x"].__setitem__(1, float("nan")), "calibration x must be finite"),
        (lambda d: d["belief"]["calibration"]["y"].__setitem__(0, None), "calibration y must be a number"),
        (lambda d: d["params"].update(random_state="zero"), "random_state"),
        (lambda d: d["params"].update(random_state=1.5), "random_state"),
        (
            lambda d: d["params"].update(player=7),
            "'player' parameter of OpponentModel must be an instance of 'str' or None",
        ),
        (lambda d: d.update(player=["Botvinnik"]), "player must be a name"),
        (lambda d: d["params"].update(min_games=True), "min_games"),
        (lambda d: d["rote"]["positions"].update({"8/8/8 w": {"e2e4": 2}}), "not an EPD"),
        (lambda d: next(iter(d["rote"]["positions"].values())).update(zz=2), "'zz', not a move"),
        (lambda d: d["rote"].update(positions=[]), "must be objects"),
    ],
)
def test_malformed_content_is_refused_with_a_reason(content, tmp_path, damage, message):
    damage(content)
    path = tmp_path / "bad.json"
    write(path, content)
    with pytest.raises(ModelFileError, match=message):
        OpponentModel.load(path)


def test_non_canonical_pattern_is_refused(content, tmp_path):
    row = next(r for r in content["chunks"]["rows"] if r[0] != r[0][::-1] and "/" not in r[0] and len(r[0]) == 2)
    row[0] = row[0][::-1]
    write(tmp_path / "bad.json", content)
    with pytest.raises(ModelFileError, match="canonical"):
        OpponentModel.load(tmp_path / "bad.json")


def test_truncated_corrupt_and_missing_files(small_model, tmp_path):
    small_model.save(tmp_path / "m.json.gz")
    whole = (tmp_path / "m.json.gz").read_bytes()
    (tmp_path / "cut.json.gz").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ModelFileError, match="damaged gzip"):
        OpponentModel.load(tmp_path / "cut.json.gz")
    text = gzip.decompress(whole)
    (tmp_path / "cut.json").write_bytes(text[: len(text) // 2])
    with pytest.raises(ModelFileError, match="not valid JSON"):
        OpponentModel.load(tmp_path / "cut.json")
    (tmp_path / "empty.json").write_bytes(b"")
    with pytest.raises(ModelFileError, match="empty"):
        OpponentModel.load(tmp_path / "empty.json")
    with pytest.raises(ModelFileError, match="not found"):
        OpponentModel.load(tmp_path / "absent.json")
    with pytest.raises(ModelFileError, match="does not exist"):
        small_model.save(tmp_path / "no-such-folder" / "m.json")


def test_a_model_with_an_empty_chunk_library_round_trips(botvinnik_games, tmp_path):
    model = OpponentModel(min_games=1).fit(botvinnik_games[:1])
    assert len(model.library_) == 0
    model.save(tmp_path / "empty.json")
    content = json.loads((tmp_path / "empty.json").read_text())
    assert content["chunks"]["rows"] == [] and content["rote"]["sequences"]
    loaded = OpponentModel.load(tmp_path / "empty.json")
    assert len(loaded.library_) == 0 and loaded.rote_.entries == model.rote_.entries
    board = chess.Board()
    board.push_uci("d2d4")
    assert loaded.predict_proba(board) == model.predict_proba(board) == {chess.Move.from_uci("g8f6"): 1.0}


def test_unwritable_places_are_refused_before_and_while_saving(small_model, tmp_path, monkeypatch):
    from iam.models.files import check_writable

    (tmp_path / "a-file").write_text("x")
    cases = [
        (tmp_path / "a-file" / "m.json", "folder .* is not a folder"),
        (tmp_path, "it is a folder"),
        (tmp_path / ("x" * 300 + ".json"), "too long"),
    ]
    for path, message in cases:
        with pytest.raises(ModelFileError, match=message):
            check_writable(path)
        with pytest.raises(ModelFileError, match=message):
            small_model.save(path)
    check_writable(tmp_path / ("y" * 250 + ".json"))  # a long name the file system can hold
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(ModelFileError, match="cannot write .*Permission denied"):
        small_model.save(tmp_path / "m.json")


def test_a_file_without_the_position_memory_still_loads(content, small_model, tmp_path):
    del content["rote"]["positions"]  # as written before positions were remembered
    write(tmp_path / "older.json", content)
    loaded = OpponentModel.load(tmp_path / "older.json")
    assert loaded.rote_.positions == {} and loaded.rote_.entries == small_model.rote_.entries


def test_a_remembered_move_that_is_illegal_is_never_predicted(content, tmp_path):
    # Valid UCI, so the loader cannot tell; the lookup drops it on the board.
    content["rote"]["sequences"]["startpos|"] = {"e2e5": 5, "d2d4": 1}
    write(tmp_path / "tampered.json", content)
    beliefs = OpponentModel.load(tmp_path / "tampered.json").predict_proba(chess.Board())
    assert chess.Move.from_uci("e2e5") not in beliefs and chess.Move.from_uci("d2d4") in beliefs
    assert all(move in chess.Board().legal_moves for move in beliefs)


def test_a_model_file_gets_the_usual_permissions(small_model, tmp_path):
    import os
    import stat

    mask = os.umask(0o022)
    try:
        small_model.save(tmp_path / "shared.json.gz")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "shared.json.gz").stat().st_mode) == 0o644


def test_the_header_names_the_format_and_the_player_from_the_first_bytes(small_model, tmp_path):
    from iam.chunks.fitted import FORMAT
    from iam.models.files import MODEL_FORMATS, ModelHeader, read_header
    from iam.ranker.persistence import RANKER_FORMAT

    assert MODEL_FORMATS == (FORMAT, RANKER_FORMAT)
    for name in ("model.json", "model.json.gz"):
        small_model.save(tmp_path / name)
        assert read_header(tmp_path / name) == ModelHeader(FORMAT, small_model.player_)
    ranker = tmp_path / "ranker.json.gz"
    ranker.write_bytes(gzip.compress(json.dumps(
        {"format": RANKER_FORMAT, "version": 9, "params": {"player": None}, "player": 'Tal, "M"',
         "weights": [0.5] * 5000}
    ).encode()))
    assert read_header(ranker) == ModelHeader(RANKER_FORMAT, 'Tal, "M"')
    unnamed = tmp_path / "unnamed.json"
    unnamed.write_text(json.dumps({"format": FORMAT, "player": None}))
    assert read_header(unnamed) == ModelHeader(FORMAT, None)
    for text in (b"{}", b'{"player": "X", "format": "x"}', b"\x1f\x8b broken", b"\xff\xfe", b""):
        (tmp_path / "other").write_bytes(text)
        assert read_header(tmp_path / "other") is None, text
    assert read_header(tmp_path / "missing.json") is None
