"""The ranker's fitted state: one frozen record in four parts, which the ranker's fitted attributes read."""

from __future__ import annotations

import dataclasses
import math

import chess
import numpy as np
import pytest

from iam.evidence.registry import family_columns
from iam.models.base import Fitted
from iam.priors.patterns import MovePatterns
from iam.priors.population import PopulationBook
from iam.ranker import MoveRanker
from iam.ranker.calibration import TopLabelCalibration
from iam.ranker.fitted import RankerMemories, RankerScoring, RankerState, RankerTraining
from iam.ranker.persistence import saved_params

PARTS = {"training": RankerTraining, "scoring": RankerScoring, "memories": RankerMemories}


def _fields(record: type) -> list[str]:
    return [field.name for field in dataclasses.fields(record)]


def _capture_state() -> RankerState:
    """A state made by hand: the move family, every weight zero but one on captures, no calibration."""
    names = family_columns("move")
    coef = np.array([1.0 if name == "capture" else 0.0 for name in names])
    scoring = RankerScoring(
        families=("move",),
        feature_names=names,
        coef=coef,
        prior_weights=np.zeros(len(names)),
        scale=np.ones(len(names)),
        temperature=1.0,
        top_calibration=TopLabelCalibration(),
    )
    memories = RankerMemories(
        book=PopulationBook(),
        population_patterns=MovePatterns(),
        own_patterns=None,
        iam=None,
        value_net=None,
        policy_net=None,
        reply_policy=None,
    )
    params = saved_params(MoveRanker(families=("move",), prior="none"), "Somebody")
    training = RankerTraining(n_games=3, n_positions=40, training_log_loss=2.5)
    return RankerState(params=params, player="Somebody", training=training, scoring=scoring, memories=memories)


def test_the_fitted_state_is_one_record_read_through_the_fitted_attributes(ranker):
    from sklearn.base import clone

    state = ranker.state_
    assert isinstance(state, RankerState)
    assert ranker.coef_ is state.scoring.coef and ranker.book_ is state.memories.book
    assert (ranker.player_, ranker.n_games_) == (state.player, state.training.n_games) == ("Botvinnik, Mikhail", 30)
    with pytest.raises(AttributeError, match="replace state_"):
        ranker.coef_ = np.zeros(3)
    assert not hasattr(clone(ranker), "coef_")


def test_the_record_has_four_parts_and_each_part_its_fields():
    assert _fields(RankerState) == ["params", "player", "training", "scoring", "memories"]
    assert _fields(RankerTraining) == [
        "n_games", "n_positions", "training_log_loss", "training_games", "blunder_rate",
        "blunder_check_depth",
    ]
    assert _fields(RankerScoring) == [
        "families", "feature_names", "coef", "prior_weights", "scale", "temperature", "top_calibration", "trees",
    ]
    assert _fields(RankerMemories) == [
        "book", "population_patterns", "own_patterns", "iam", "value_net", "policy_net", "reply_policy",
    ]
    assert _capture_state().scoring.trees is None  # a linear score unless trees are given


def test_every_fitted_attribute_reads_a_field_of_its_part_and_every_field_has_one():
    """``n_games_`` reads ``state_.training.n_games``: the ranker's attributes and the record's fields match."""
    attributes = {name: value for name, value in vars(MoveRanker).items() if isinstance(value, Fitted)}
    read = {}
    for name, attribute in attributes.items():
        record = RankerState if attribute.part is None else PARTS[attribute.part]
        assert attribute.field in _fields(record), name
        read.setdefault(attribute.part, set()).add(attribute.field)
    for part, record in PARTS.items():
        assert read[part] == set(_fields(record)), part
    assert read[None] == {"player"}


def test_the_records_are_frozen():
    state = _capture_state()
    for record, field in ((state, "player"), (state.training, "n_games"), (state.scoring, "temperature"),
                          (state.memories, "book")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, field, None)


def test_a_ranker_given_a_record_made_by_hand_predicts_from_it():
    """One weight of 1 on captures: the only capture gets e / (e + n - 1), every other move 1 / (e + n - 1)."""
    ranker = MoveRanker(families=("move",), prior="none")
    with pytest.raises(AttributeError):
        ranker.coef_  # noqa: B018 - not fitted yet
    ranker.state_ = _capture_state()
    assert (ranker.player_, ranker.n_games_, ranker.n_positions_) == ("Somebody", 3, 40)
    assert ranker.training_log_loss_ == 2.5 and ranker.families_ == ("move",) and ranker.trees_ is None
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    beliefs = ranker.predict_proba(board)
    moves = board.legal_moves.count()
    assert next(iter(beliefs)) == chess.Move.from_uci("d1d5")
    assert beliefs[chess.Move.from_uci("d1d5")] == pytest.approx(math.e / (math.e + moves - 1))
    assert beliefs[chess.Move.from_uci("e1e2")] == pytest.approx(1 / (math.e + moves - 1))
    again = MoveRanker.from_dict(ranker.to_dict())
    assert again.predict_proba(board) == pytest.approx(beliefs)
    assert again.state_.training == ranker.state_.training and again.state_.params == ranker.state_.params


def test_the_blunder_rate_is_the_share_of_played_moves_losing_two_pawns_by_the_search():
    from iam.priors.logit import MoveTable
    from iam.ranker.fitted import blunder_rate

    # three positions of two moves each; the played moves lose 0, 2.5 and 1.99 pawns
    loss = np.array([[0.0], [1.0], [0.5], [2.5], [1.99], [0.0]])
    table = MoveTable(features=np.hstack([np.ones((6, 1)), loss]), starts=np.array([0, 2, 4, 6]),
                      played=np.array([0, 3, 4]))
    assert blunder_rate(table, ("move_x", "search_loss")) == pytest.approx(1 / 3)
    assert blunder_rate(table, ("move_x", "engine_loss")) is None
    empty = MoveTable(features=np.zeros((0, 2)), starts=np.array([0]), played=np.array([], dtype=np.int64))
    assert blunder_rate(empty, ("move_x", "search_loss")) is None
