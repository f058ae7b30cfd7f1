"""The ranker's file format: the document a fitted ranker writes, its round trip, the parameters it records, and
its refusal of damaged, hostile or foreign documents with one-line typed errors."""

from __future__ import annotations

import json

import chess
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.evidence.registry import FAMILIES, family_columns
from iam.games.digest import TrainingGames, game_digest
from iam.priors.policynet import require_policy_net
from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights
from iam.priors.valuenet import bundled_value_net
from iam.ranker import MoveRanker
from iam.ranker.persistence import (
    RANKER_FORMAT,
    RANKER_VERSION,
    policy_record,
    ranker_document,
    ranker_from_document,
    saved_params,
)
from iam.runtime import Runtime


def _board(moves: str) -> chess.Board:
    board = chess.Board()
    for san in moves.split():
        board.push_san(san)
    return board


def _with_family(document: dict, family: str) -> dict:
    """``document`` with ``family`` added to its families (in their canonical order), its columns weighing nothing."""
    families = [name for name in FAMILIES if name in (*document["families"], family)]
    document["params"]["families"] = document["families"] = families
    for part in ("weights", "prior_weights", "scale"):
        document[part].update({name: 0.0 if part != "scale" else 1.0 for name in family_columns(family)})
    return document


def _refusal(document, match: str, **options) -> str:
    """The message of the ModelFileError ``document`` is refused with (one line, matching ``match``)."""
    with pytest.raises(ModelFileError, match=match) as refused:
        ranker_from_document(MoveRanker, document, **options)
    message = str(refused.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_a_damaged_ranker_file_is_refused(ranker, tmp_path):
    document = ranker.to_dict()
    document["weights"]["castle"] = float("inf")
    with pytest.raises(ModelFileError, match="finite"):
        MoveRanker.from_dict(document)
    document = ranker.to_dict()
    del document["weights"]["castle"]
    with pytest.raises(ModelFileError, match="exactly the features"):
        MoveRanker.from_dict(document)
    with pytest.raises(ModelFileError, match="version"):
        MoveRanker.from_dict({**ranker.to_dict(), "version": 99})


def test_a_file_never_names_the_engine_to_run(ranker):
    document = ranker.to_dict()
    assert "engine" not in document["params"]
    document["params"]["families"] = ["move", "engine", "habits"]
    document["families"] = ["move", "engine", "habits"]
    with pytest.raises(ModelFileError, match="name the engine program"):
        MoveRanker.from_dict(document)
    document["params"]["families"] = document["families"] = ["move", "glance", "habits"]
    with pytest.raises(ModelFileError, match="name the engine program"):
        MoveRanker.from_dict(document)


def test_hostile_numbers_in_a_ranker_file_are_refused(ranker):
    deep = ranker.to_dict()
    deep["params"]["search_depth"] = 10**6
    with pytest.raises(ModelFileError, match="search_depth"):
        MoveRanker.from_dict(deep)
    negative = ranker.to_dict()
    negative["book"] = {"Someone": {chess.Board().epd(): {"e2e4": -3}}}
    with pytest.raises(ModelFileError, match="book counts"):
        MoveRanker.from_dict(negative)


def _with_trees(document: dict, leaf: float) -> dict:
    """``document`` with two one-split residual trees on its first column, one leaf worth ``leaf``."""
    column = next(iter(document["weights"]))
    document["trees"] = {
        "columns": [column],
        "depth": 1,
        "roots": [0, 3],
        "nodes": {
            "feature": [0, -1, -1, 0, -1, -1],
            "threshold": [0.5, 0.0, 0.0, 0.5, 0.0, 0.0],
            "left": [1, 0, 0, 4, 0, 0],
            "right": [2, 0, 0, 5, 0, 0],
            "value": [0.0, leaf, leaf, 0.0, leaf, leaf],
        },
    }
    return document


def test_numbers_that_would_overflow_the_scores_are_refused(ranker):
    board = _board("e4 e5 Nf3")
    sound = MoveRanker.from_dict(_with_trees(ranker.to_dict(), 0.5))
    beliefs = np.array(list(sound.predict_proba(board).values()))
    assert np.all(np.isfinite(beliefs)) and beliefs.sum() == pytest.approx(1.0)
    with pytest.raises(ModelFileError, match="leaf values sum to more than"):
        MoveRanker.from_dict(_with_trees(ranker.to_dict(), 1e308))
    for damage, message in (
        (lambda d: d["training"].update(temperature=1e-300), "temperature"),
        (lambda d: d["training"].update(temperature=1e300), "temperature"),
        (lambda d: d["training"].update(top_calibration=[1e308, 0.0]), "top-label"),
        (lambda d: d["training"].update(top_calibration=[1.0, -1e308]), "top-label"),
        (lambda d: d.update(version=True), "version True"),
    ):
        document = ranker.to_dict()
        damage(document)
        with pytest.raises(ModelFileError, match=message):
            MoveRanker.from_dict(document)


def test_a_file_records_the_prior_and_its_trees_apart_and_reads_them_back_as_one_choice(training):
    linear = MoveRanker(families=("move",), max_positions=30, prior="population-linear").fit(training)
    document = linear.to_dict()
    assert (document["params"]["prior"], document["params"]["trees"]) == ("population", False)
    assert MoveRanker.from_dict(document).get_params()["prior"] == "population-linear"
    assert MoveRanker.from_dict(document).to_dict() == document
    for prior, trees in (("population", True), ("none", True), ("none", False)):
        params = {**document["params"], "prior": prior, "trees": trees}
        assert MoveRanker.from_dict({**document, "params": params}).get_params()["prior"] == prior
    with pytest.raises(ModelFileError, match="trees must be true or false"):
        MoveRanker.from_dict({**document, "params": {**document["params"], "trees": "no"}})
    with pytest.raises(ModelFileError, match="player must be a name"):
        MoveRanker.from_dict({**document, "params": {**document["params"], "player": 5}})


def test_a_given_prior_is_recorded_as_the_population_with_the_trees_it_holds(training):
    prior = PopulationPrior(
        book=PopulationBook(),
        rankers=(PriorWeights(families=("move",), without=None, weights={"castle": 3.0}, positions=1),),
    )
    ranker = MoveRanker(families=("move",), max_positions=30, prior=prior).fit(training)
    assert ranker.get_params()["prior"] is prior
    assert (ranker.to_dict()["params"]["prior"], ranker.to_dict()["params"]["trees"]) == ("population", False)


def test_the_document_is_json_and_reads_back_as_the_same_ranker(ranker):
    document = ranker_document(ranker)
    text = json.dumps(document, allow_nan=False)
    again = ranker_from_document(MoveRanker, json.loads(text))
    assert ranker_document(again) == document
    board = _board("e4 e5 Nf3 Nc6 Bb5 a6")
    assert again.predict_proba(board) == pytest.approx(ranker.predict_proba(board))
    assert np.array_equal(again.coef_, ranker.coef_) and again.temperature_ == ranker.temperature_


def test_the_document_records_what_the_ranker_learned_under_its_feature_names(ranker):
    document = ranker_document(ranker)
    assert (document["format"], document["version"]) == (RANKER_FORMAT, RANKER_VERSION) == ("iam-move-ranker", 4)
    assert document["families"] == ["move", "habits", "population"] and document["player"] == "Botvinnik, Mikhail"
    names = [name for family in document["families"] for name in family_columns(family)]
    for part in ("weights", "prior_weights", "scale"):
        assert list(document[part]) == names
    assert list(document["weights"].values()) == ranker.coef_.tolist()
    assert not any(document["prior_weights"].values())  # no prior: the pull is towards zero
    training = document["training"]
    assert (training["games"], training["positions"]) == (30, 250)
    assert training["temperature"] == ranker.temperature_
    assert training["top_calibration"] == [ranker.top_calibration_.slope, ranker.top_calibration_.offset]
    assert document["patterns"]["own"] is not None and document["iam"] is not None  # the habits family's
    assert document["value_net"] is None and document["policy_net"] is None  # neither network was read
    assert document["trees"] is None and document["reply_policy"] is None


def test_the_document_records_the_training_games_and_a_document_without_them_still_reads(ranker, training):
    document = ranker_document(ranker)
    assert document["training"]["split"] == "train"
    assert sorted(document["training"]["game_digests"]) == sorted(map(game_digest, training))
    assert ranker_from_document(MoveRanker, document).training_games_ == TrainingGames.of(training)
    older = json.loads(json.dumps(document))
    del older["training"]["split"], older["training"]["game_digests"]
    assert ranker_from_document(MoveRanker, older).training_games_ is None


def test_the_recorded_parameters_are_the_estimators_with_the_prior_as_two_and_the_player():
    params = saved_params(MoveRanker(families=("move",), prior="population-linear"), "Somebody")
    assert list(params) == [
        "families", "search_depth", "engine_depth", "max_positions", "folds", "prior", "prior_strength", "trees",
        "min_games", "random_state", "player", "reply_positions",
    ]
    assert (params["prior"], params["trees"], params["player"]) == ("population", False, "Somebody")
    assert (saved_params(MoveRanker(prior="population"), None)["prior"], saved_params(MoveRanker(), None)["trees"]) == (
        "population", True,
    )
    assert saved_params(MoveRanker(prior="none"), None)["prior"] == "none"
    params = saved_params(MoveRanker(search_depth=2, max_positions=77, reply_positions=5), None)
    assert (params["search_depth"], params["max_positions"], params["reply_positions"]) == (2, 77, 5)


def test_a_given_prior_with_residual_trees_is_recorded_with_them(ranker):
    trees = MoveRanker.from_dict(_with_trees(ranker.to_dict(), 0.5)).trees_
    with_trees = PopulationPrior(
        book=PopulationBook(),
        rankers=(PriorWeights(families=("move",), without=None, weights={"castle": 3.0}, positions=1, trees=trees),),
    )
    assert saved_params(MoveRanker(prior=with_trees), None)["trees"] is True


def test_foreign_documents_are_refused_by_name(ranker):
    assert _refusal([1, 2], "is not a move ranker model", source="x.json").startswith("x.json ")
    _refusal({**ranker_document(ranker), "format": "iam-population-prior"}, "not a move ranker model")
    assert _refusal({**ranker_document(ranker), "version": 2}, "version").endswith(
        "has version 2; this program reads versions 3 and 4"
    )
    _refusal({**ranker_document(ranker), "version": "4"}, "has version '4'")


def test_a_document_missing_a_part_or_disagreeing_with_itself_is_malformed(ranker):
    document = ranker_document(ranker)
    del document["scale"]
    assert _refusal(document, "malformed", source="r.json") == "r.json is malformed: missing field 'scale'"
    _refusal({**ranker_document(ranker), "families": ["move"]}, "families do not match its parameters")
    document = ranker_document(ranker)
    document["patterns"]["own"] = None
    _refusal(document, "habits family needs the player's move patterns")
    _refusal({**ranker_document(ranker), "iam": None}, "habits family needs the IAM model")
    document = ranker_document(ranker)
    document["book"] = {"Someone": {chess.Board().epd(): {"e2e9": 1}}}
    _refusal(document, "malformed")
    document = ranker_document(ranker)
    document["patterns"]["population"] = {"cells": [3], "played": [True], "legal": [1]}
    _refusal(document, "move pattern counts must be whole numbers")
    trees = _with_trees(ranker_document(ranker), 0.5)
    trees["trees"]["columns"] = ["search_loss"]
    _refusal(trees, "residual trees split on columns its families do not have")


def test_a_version_3_document_has_no_trees_and_reads_back_as_a_linear_prior(ranker):
    document = ranker_document(ranker)
    document["version"] = 3
    document["params"] = {**document["params"], "prior": "population", "trees": True}
    assert ranker_from_document(MoveRanker, document).get_params()["prior"] == "population-linear"
    document["params"]["prior"] = "none"
    assert ranker_from_document(MoveRanker, document).get_params()["prior"] == "none"


def test_the_networks_read_must_be_the_ones_installed(ranker):
    """A file of the value or policy family names its networks; a file fitted with others is refused."""
    value = _with_family(ranker_document(ranker), "value")
    value["value_net"] = "0" * 16
    _refusal(value, "another value network than the one installed")
    value["value_net"] = bundled_value_net().fingerprint
    assert "value_loss" in ranker_from_document(MoveRanker, value).feature_names_
    policy = _with_family(ranker_document(ranker), "policy")
    _refusal(policy, "other policy networks than the ones installed")
    policy["policy_net"] = policy_record(policy["families"], policy["player"])
    assert ranker_from_document(MoveRanker, policy).policy_net_ == policy["policy_net"]


def test_the_policy_record_names_whom_the_network_left_out_and_its_fingerprint():
    assert policy_record(("move", "habits"), "Lasker") is None
    without, net = require_policy_net("Lasker")
    assert policy_record(("move", "policy"), "Lasker") == {"without": "Lasker", "fingerprint": net.fingerprint}
    assert without == "Lasker"


def test_an_engine_file_is_read_with_the_engine_the_caller_names(ranker):
    document = _with_family(ranker_document(ranker), "engine")
    _refusal(document, "uses engine evidence: name the engine program")
    loaded = ranker_from_document(MoveRanker, document, runtime=Runtime(engine="/nonexistent/engine"))
    assert "engine_loss" in loaded.feature_names_ and loaded.runtime.engine == "/nonexistent/engine"


def test_the_blunder_rate_is_recorded_and_a_file_without_it_reads_as_unmeasured(ranker):
    document = json.loads(json.dumps(ranker_document(ranker)))
    assert document["training"]["blunder_rate"] is None  # no search family: nothing measured it
    document["training"]["blunder_rate"] = 0.03
    assert ranker_from_document(MoveRanker, document).blunder_rate_ == 0.03
    del document["training"]["blunder_rate"]
    assert ranker_from_document(MoveRanker, document).blunder_rate_ is None
    for wrong in (1.5, -0.1, "0.1", True):
        document["training"]["blunder_rate"] = wrong
        with pytest.raises(ModelFileError, match="blunder rate"):
            ranker_from_document(MoveRanker, document)


def test_the_depth_of_the_check_that_measured_the_rate_is_recorded_and_optional(ranker):
    document = json.loads(json.dumps(ranker_document(ranker)))
    assert "blunder_check_depth" not in document["training"]  # nothing measured: nothing recorded
    assert ranker_from_document(MoveRanker, document).blunder_check_depth_ is None  # an older file reads as before
    document["training"].update(blunder_rate=0.02, blunder_check_depth=6)
    loaded = ranker_from_document(MoveRanker, document)
    assert (loaded.blunder_rate_, loaded.blunder_check_depth_) == (0.02, 6)
    assert ranker_document(loaded)["training"]["blunder_check_depth"] == 6
    for wrong in (0, 2.5, "6", True):
        document["training"]["blunder_check_depth"] = wrong
        with pytest.raises(ModelFileError, match="blunder check depth"):
            ranker_from_document(MoveRanker, document)
