"""The fitted state of the IAM model (iam.chunks.fitted): its document round-trips, and each malformation of a model
file is a ModelFileError naming the problem, on a model fitted on a few games."""

from __future__ import annotations

import copy
import json

import pytest

from iam._install import __version__
from iam.chunks.fitted import FORMAT, VERSION, FittedState, check_params, from_document, to_document
from iam.errors import ModelFileError


@pytest.fixture(scope="module")
def document(small_model) -> dict:
    """The model file's content of the shared small model, through JSON as a file holds it."""
    return json.loads(json.dumps(to_document(small_model.state_)))


def test_the_document_round_trips_to_the_same_state(small_model, document):
    """The envelope names the format, version and toolkit; reading the document back gives a state whose document
    is the same, with the same chunks, rote memory and training summary."""
    assert (document["format"], document["version"], document["toolkit"]) == (FORMAT, VERSION, __version__)
    state = from_document(document)
    assert isinstance(state, FittedState) and to_document(state) == document
    original = small_model.state_
    assert state.player == original.player and state.training == original.training
    assert state.library.table.equals(original.library.table) and len(state.library) > 0
    assert state.rote.entries.keys() == original.rote.entries.keys()
    assert state.params == original.params
    rows = document["chunks"]["rows"]
    assert all(isinstance(row[0], str) and len(row) == len(document["chunks"]["columns"]) for row in rows)


def _broken(document: dict, change) -> dict:
    broken = copy.deepcopy(document)
    change(broken)
    return broken


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other"), "is not an IAM model file"),
        (lambda d: d.update(version=True), "has model file version True"),
        (lambda d: d.update(version=2), "has model file version 2; this toolkit reads version 1"),
        (lambda d: d.pop("training"), "is malformed: missing field 'training'"),
        (lambda d: d.update(player=7), "player must be a name, not 7"),
        (lambda d: d["training"].update(games=-1), "training games must be a non-negative integer, not -1"),
        (lambda d: d["training"].update(belief={"learned": "rules", "rules": "learned"}[d["training"]["belief"]]),
         "training says belief"),
        (lambda d: d["chunks"]["columns"].reverse(), "chunk columns must be"),
        (lambda d: d["chunks"]["rows"].append(d["chunks"]["rows"][0]), "lists a pattern twice"),
        (lambda d: d["chunks"]["rows"][0].__setitem__(1, 9), "a chunk's size differs from the number of pieces"),
        (lambda d: d["chunks"]["rows"][0].pop(), "chunk row 0 must have"),
        (lambda d: d["params"].update(min_games=0), "min_games"),
        (lambda d: d["rote"]["sequences"].update({"no bar": {"e2e4": 1}}), "rote entry 'no bar' is malformed"),
        (lambda d: d["rote"]["sequences"].update({"x|e2e4": {"zz": 1}}), "holds 'zz', not a move in UCI notation"),
        (lambda d: d["rote"].update(positions={"8/8 w": {"e2e4": 1}}), "is not an EPD"),
        (lambda d: d["training"].update(split="test"), "its training split must be 'train' or 'all', not 'test'"),
        (lambda d: d["training"]["game_digests"].__setitem__(0, "not hex"), "digest must be 16 hexadecimal"),
    ],
)
def test_each_malformation_is_a_model_file_error_naming_it(document, change, message):
    """Format, version, missing parts, bad counts, the chunk table's shape and consistency, the parameters and the
    rote memory are each checked, and the first problem is the error's one line."""
    with pytest.raises(ModelFileError) as raised:
        from_document(_broken(document, change), source="m.json")
    text = str(raised.value)
    assert text.startswith("m.json ") and message in text and "\n" not in text


def test_the_file_records_the_training_games_and_reads_without_them(small_model, document):
    """The small model learnt from Botvinnik's first 60 training games: their digests, and no test game among them."""
    training = document["training"]
    assert training["split"] == "train" and len(training["game_digests"]) == 60 == small_model.n_games_
    assert from_document(document).training.training_games == small_model.training_games_
    older = _broken(document, lambda d: [d["training"].pop(key) for key in ("split", "game_digests")])
    assert from_document(older).training.training_games is None


def test_too_many_chunks_are_refused_before_the_library_is_built(document):
    """A file holding more chunks, or more remembered sequences, than the limits is refused."""
    rows = document["chunks"]["rows"]
    with pytest.raises(ValueError, match=f"holds {len(rows):,} chunks, more than the 1 accepted"):
        FittedState.from_dict(document, max_chunks=1, max_rote_entries=10)
    assert document["rote"]["sequences"]
    with pytest.raises(ValueError, match="more than 0 sequences or positions"):
        FittedState.from_dict(document, max_chunks=len(rows), max_rote_entries=0)


def test_the_parameters_are_checked_by_type_and_range():
    """Whole numbers at least their bound, a known belief, a 32-bit seed."""
    good = {"min_games": 2, "min_formed_games": 0, "rote_max_ply": 8, "belief": "rules", "rule_weights": None,
            "belief_positions": 10, "random_state": None, "player": None}
    check_params(good)
    for name, value in (("belief", "guess"), ("min_games", 0), ("random_state", 2**32), ("rote_max_ply", 1.5)):
        with pytest.raises(ValueError, match=name):
            check_params({**good, name: value})
