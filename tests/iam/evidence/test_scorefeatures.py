"""Features from move scores: losses, bands, rank, the only-move gap and the quiet share."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.evidence.scorefeatures import score_features


def test_losses_ranks_and_position_facts():
    moves = tuple(chess.Move.from_uci(uci) for uci in ("a2a3", "b2b3", "c2c3", "d2d4"))
    scores = {moves[0]: 50, moves[1]: 30, moves[2]: -250, moves[3]: 50}
    f = score_features(scores, moves, "search")
    np.testing.assert_allclose(f["search_loss"], [0.0, 0.2, 3.0, 0.0])
    np.testing.assert_array_equal(f["search_best"], [1, 0, 0, 1])
    np.testing.assert_array_equal(f["search_loss_under_30cp"], [1, 1, 0, 1])
    np.testing.assert_array_equal(f["search_loss_over_300cp"], [0, 0, 0, 0])
    np.testing.assert_allclose(f["search_rank"], np.log1p([0, 2, 3, 0]))
    np.testing.assert_allclose(f["search_best_gap"], [0.0, 0.0, 0.0, 0.0])  # two moves share the best score
    np.testing.assert_allclose(f["search_near_best_share"], [1 / 3, 1 / 3, 0, 1 / 3])


def test_an_only_move_and_clipped_mates():
    moves = tuple(chess.Move.from_uci(uci) for uci in ("a2a3", "b2b3"))
    f = score_features({moves[0]: 99_998, moves[1]: -40}, moves, "engine")
    assert f["engine_best_gap"][0] == pytest.approx(3.0)  # the gap is capped at three pawns
    assert f["engine_loss"][1] == pytest.approx(10.4)  # mate clipped at 10 pawns, minus -0.4
    assert f["engine_loss_over_300cp"].tolist() == [0.0, 1.0]


def test_a_search_that_declares_the_game_over_makes_every_move_equal():
    moves = tuple(chess.Move.from_uci(uci) for uci in ("a2a3", "b2b3"))
    f = score_features({}, moves, "search")
    assert f["search_best"].tolist() == [1.0, 1.0] and f["search_loss"].tolist() == [0.0, 0.0]
