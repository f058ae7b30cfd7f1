"""His own choices weighed with the model's beliefs: the posterior mean and the floor of his lines."""

from __future__ import annotations

import math

import chess
import numpy as np
import pytest

from iam.ranker.own_lines import SIDELINE_FLOOR, own_counts, weigh_own_lines


def test_posterior_mean_counts_the_model_as_strength_games() -> None:
    probs = np.array([0.6, 0.3, 0.1])
    games = np.array([1.0, 3.0, 0.0])
    weighed = weigh_own_lines(probs, games, 4.0)
    # (games + 4 * probs) / (4 + 4): no floor binds (each line keeps over half its share)
    np.testing.assert_allclose(weighed, [(1 + 2.4) / 8, (3 + 1.2) / 8, 0.4 / 8])


def test_no_games_or_infinite_strength_leave_the_model_alone() -> None:
    probs = np.array([0.7, 0.2, 0.1])
    assert weigh_own_lines(probs, np.zeros(3), 4.0) is probs
    assert weigh_own_lines(probs, np.array([0.0, 5.0, 5.0]), math.inf) is probs


def test_strength_zero_is_his_frequencies() -> None:
    weighed = weigh_own_lines(np.array([0.9, 0.05, 0.05]), np.array([2.0, 6.0, 0.0]), 0.0)
    np.testing.assert_allclose(weighed, [0.25, 0.75, 0.0])


def test_a_sideline_keeps_half_its_share_and_the_rest_pays_for_it() -> None:
    # He played the third move in 5 of 32 games; the model gives it 0.5%; a strong model prior
    # would leave it at (5 + 100 * 0.005) / 132 = 4.2%, below half its share (7.8%).
    probs = np.array([0.78, 0.14, 0.005, 0.075])
    games = np.array([20.0, 7.0, 5.0, 0.0])
    weighed = weigh_own_lines(probs, games, 100.0)
    assert weighed[2] == pytest.approx(SIDELINE_FLOOR * 5 / 32)
    assert weighed.sum() == pytest.approx(1.0)
    blended = (games + 100.0 * probs) / 132.0
    # the others scaled down in proportion to pay for the lift
    ratio = weighed[[0, 1, 3]] / blended[[0, 1, 3]]
    np.testing.assert_allclose(ratio, ratio[0])
    assert ratio[0] < 1.0


def test_a_move_below_the_sideline_share_gets_no_floor() -> None:
    probs = np.array([0.98, 0.01, 0.01])
    games = np.array([30.0, 2.0, 0.0])  # 2 of 32 games: 6%, under the 10% of a line
    weighed = weigh_own_lines(probs, games, 1000.0)
    np.testing.assert_allclose(weighed, (games + 1000.0 * probs) / 1032.0)


def test_floors_that_cascade_are_all_held() -> None:
    # Two lines far below their floors; lifting one pushes the other further down.
    probs = np.array([0.998, 0.001, 0.001])
    games = np.array([4.0, 3.0, 3.0])
    weighed = weigh_own_lines(probs, games, 1e6)
    assert weighed[1] == pytest.approx(0.15) and weighed[2] == pytest.approx(0.15)
    assert weighed.sum() == pytest.approx(1.0)


def test_negative_strength_is_refused() -> None:
    with pytest.raises(ValueError, match="strength"):
        weigh_own_lines(np.array([1.0]), np.array([1.0]), -1.0)


def test_own_counts_reads_games_per_move_in_order() -> None:
    moves = [chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4"), chess.Move.from_uci("g1f3")]
    np.testing.assert_array_equal(own_counts(moves, {"d2d4": 3, "e2e4": 5, "c2c4": 9}), [5.0, 3.0, 0.0])


def test_the_ranker_weighs_his_choices_where_his_games_have_been(ranker) -> None:
    board = chess.Board()
    for uci in ("d2d4", "g8f6"):  # Botvinnik as White: 1.d4 Nf6, then 2.Nf3 in 4 games, 2.c4 in 4
        board.push_uci(uci)
    entry = ranker.opening_memory().lookup_position(board)
    assert entry is not None and entry.games >= 2
    moves, alone, _ = ranker.beliefs(board, own_lines=math.inf)
    _, weighed, _ = ranker.beliefs(board)
    expected = weigh_own_lines(alone, own_counts(moves, entry.counts))
    np.testing.assert_allclose(weighed, expected)
    assert not np.allclose(weighed, alone)
    beliefs = ranker.predict_proba(board)
    assert beliefs[moves[int(np.argmax(expected))]] == pytest.approx(float(expected.max()))


def test_the_ranker_leaves_positions_his_games_never_reached_to_the_model(ranker) -> None:
    board = chess.Board("4k3/8/8/3q4/8/8/3Q4/4K3 w - - 0 1")
    _, alone, _ = ranker.beliefs(board, own_lines=math.inf)
    _, weighed, _ = ranker.beliefs(board)
    np.testing.assert_array_equal(weighed, alone)
