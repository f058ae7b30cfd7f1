"""The evolution's diagnosis: matches of piece values with the mates' material, the rule on random results."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.evolution.diagnosis import first_difference, game_with_material, random_results_drift, value_match
from search.chess.pst import PieceValues

STANDARD = (100, 320, 330, 500, 900)
BACK_RANK = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")  # White mates at once: Ra8
LEVEL = {"level": 1.0}


def test_a_mate_at_once_with_the_material_at_the_end():
    score, ending, lead = game_with_material(PieceValues.standard(), PieceValues.standard(), BACK_RANK, nodes=300,
                                             max_plies=10)
    assert (score, ending, lead) == (1.0, "checkmate", 5)  # a rook and three pawns against three pawns


def test_a_match_counts_each_side_once_with_white_and_the_mates_lead():
    found = value_match(STANDARD, STANDARD, [BACK_RANK], nodes=300, max_plies=10)
    # with White the first values mate; with Black they are mated
    assert (found["wins"], found["draws"], found["losses"]) == (1, 0, 1)
    assert found["endings"] == {"checkmate": 2}
    assert found["mates"] == 2 and found["mate_lead_median"] == 5.0 and found["mates_behind"] == 0
    assert found["low"] < found["elo"] == 0.0 < found["high"]


def test_a_match_stops_at_the_move_limit():
    found = value_match(STANDARD, (100, 300, 300, 500, 900), [chess.Board()], nodes=200, max_plies=2)
    assert (found["wins"], found["draws"], found["losses"]) == (0, 2, 0)
    assert found["endings"] == {"move limit": 2} and found["mates"] == 0 and np.isnan(found["mate_lead_median"])


def test_the_values_are_the_ones_played():
    """A queen worth half a pawn takes a defended pawn (Qxe5+ dxe5) where the standard queen does not."""
    start = chess.Board("4k3/8/3p4/4p3/8/8/4Q3/4K3 w - - 0 1")
    cheap = PieceValues.uniform((100, 320, 330, 500, 50))
    assert game_with_material(cheap, PieceValues.standard(), start, nodes=500, max_plies=2) == (0.5, "move limit", -1)
    assert game_with_material(PieceValues.standard(), PieceValues.standard(), start, nodes=500,
                              max_plies=2) == (0.5, "move limit", 7)


def test_without_a_floor_or_a_spread_nothing_moves():
    table = random_results_drift(STANDARD, floor=0.0, generations=5, population=6, runs=3, shares=LEVEL, jitter=0.0)
    assert list(table.columns) == ["run", "ratio_1", "ratio_2", "ratio_3", "ratio_4"]
    assert np.allclose(table[["ratio_1", "ratio_2", "ratio_3", "ratio_4"]].to_numpy(), 1.0)


def test_the_floor_makes_the_means_wander_and_more_with_a_larger_floor():
    def spread(floor: float) -> float:
        table = random_results_drift(STANDARD, floor=floor, generations=30, population=8, runs=20,
                                     shares={"level": 0.5, "won and drew": 0.25, "won both": 0.25}, jitter=0.0)
        return float(np.log(table.drop(columns="run").to_numpy()).std())

    small, large = spread(0.02), spread(0.2)
    assert 0 < small < large


def test_the_runs_are_functions_of_their_seeds():
    shares = {"won both": 1.0}
    first = random_results_drift(STANDARD, floor=0.1, generations=4, population=4, runs=2, shares=shares, seed=3)
    again = random_results_drift(STANDARD, floor=0.1, generations=4, population=4, runs=2, shares=shares, seed=3)
    other = random_results_drift(STANDARD, floor=0.1, generations=4, population=4, runs=2, shares=shares, seed=4)
    assert first.equals(again) and not first.equals(other)


@pytest.mark.parametrize("shares", [{"draw": 1.0}, {"level": -1.0, "won both": 2.0}, {"level": 0.0}])
def test_shares_that_weigh_no_case_are_refused(shares):
    with pytest.raises(ValueError, match="shares"):
        random_results_drift(STANDARD, floor=0.1, generations=1, population=4, runs=1, shares=shares)


def test_the_first_move_the_values_change():
    """The cheap queen takes the defended pawn at once (ply 0); the same values leave the game as it is."""
    start = chess.Board("4k3/8/3p4/4p3/8/8/4Q3/4K3 w - - 0 1")
    assert first_difference((100, 320, 330, 500, 50), STANDARD, start, nodes=500, max_plies=4) == 0
    assert first_difference(STANDARD, STANDARD, start, nodes=500, max_plies=4) is None
    # a game from a position with history: the plies count from the start given
    board = chess.Board()
    board.push_san("e4")
    assert first_difference(STANDARD, STANDARD, board, nodes=200, max_plies=2) is None
