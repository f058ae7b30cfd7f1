"""The habit columns of a position from one IAM model: its beliefs, its first choice, the opening memory's shares."""

from __future__ import annotations

from collections import Counter

import chess
import numpy as np
import pytest

from iam.chunks.rote import RoteEntry, RoteMemory
from iam.evidence.habits import HABIT_FEATURES, habit_features
from iam.measure.evaluation import first_training_games
from iam.priors.positions import position_of

E4, D4, C4, NF3 = (chess.Move.from_uci(uci) for uci in ("e2e4", "d2d4", "c2c4", "g1f3"))


class _Model:
    """An IAM model's two faces the habits read: its beliefs and its opening memory (fixed by hand)."""

    def __init__(self, beliefs: dict, rote: RoteMemory):
        self.beliefs = beliefs
        self.rote_ = rote

    def predict_proba(self, board):
        return self.beliefs


def test_the_columns_are_the_documented_five():
    assert HABIT_FEATURES == ("iam_belief", "iam_log_belief", "iam_top", "rote_share", "rote_top")


def test_hand_made_beliefs_and_memory_give_known_columns():
    """Beliefs 0.6 on d4 and 0.3 on e4 (IAM's first choice is the first named); the memory: c4 thrice, d4 once."""
    position = position_of(chess.Board())
    memory = RoteMemory(positions={chess.Board().epd(): RoteEntry(chess.Board().epd(), {"c2c4": 3, "d2d4": 1})})
    found = habit_features(_Model({D4: 0.6, E4: 0.3}, memory), position)
    assert tuple(found) == HABIT_FEATURES
    at = {move: position.moves.index(move) for move in (E4, D4, C4, NF3)}
    assert found["iam_belief"][at[D4]] == 0.6 and found["iam_belief"][at[E4]] == 0.3
    assert found["iam_belief"].sum() == pytest.approx(0.9)
    assert found["iam_log_belief"][at[D4]] == pytest.approx(np.log(61))  # log((0.6 + 0.01) / 0.01)
    assert found["iam_log_belief"][at[NF3]] == 0.0  # a move IAM does not name gets zeros
    assert found["iam_top"][at[D4]] == 1 and found["iam_top"].sum() == 1
    assert found["rote_share"][at[C4]] == 0.75 and found["rote_share"][at[D4]] == 0.25
    assert found["rote_share"].sum() == 1.0
    assert found["rote_top"][at[C4]] == 1 and found["rote_top"].sum() == 1


def test_a_model_that_names_nothing_and_remembers_nothing_gives_zeros():
    position = position_of(chess.Board())
    found = habit_features(_Model({}, RoteMemory()), position)
    for name in HABIT_FEATURES:
        np.testing.assert_array_equal(found[name], np.zeros(len(position.moves)))


def test_a_position_without_legal_moves_has_empty_columns():
    mated = position_of(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
    found = habit_features(_Model({}, RoteMemory()), mated)
    assert all(column.shape == (0,) for column in found.values())


def test_a_fitted_model_shares_are_his_first_moves_counted_in_his_games(small_model, botvinnik_games):
    """At the start, the memory's shares are how often he opened with each move as White (python-chess counts)."""
    games = first_training_games(botvinnik_games, 60)
    first = Counter(game.moves[0].uci() for game in games if game.color == chess.WHITE and game.moves)
    position = position_of(chess.Board())
    found = habit_features(small_model, position)
    total = sum(first.values())
    for number, move in enumerate(position.moves):
        assert found["rote_share"][number] == pytest.approx(first.get(move.uci(), 0) / total)
    favourite = max(first, key=first.get)
    assert found["rote_top"][position.moves.index(chess.Move.from_uci(favourite))] == 1
    beliefs = small_model.predict_proba(position.board)
    assert found["iam_belief"] == pytest.approx([beliefs.get(move, 0.0) for move in position.moves])
    assert found["iam_top"][position.moves.index(next(iter(beliefs)))] == 1 and found["iam_top"].sum() == 1
