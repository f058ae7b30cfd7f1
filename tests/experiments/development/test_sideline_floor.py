"""Sideline floor: his test games' choices at positions he reached in five of them, against the beliefs."""

import chess
import pytest

from experiments.development.sideline_floor import sideline_rows

from ...iam.prepare.stubs import StubPredictor
from ...iam.prepare.test_habits import game

# After 1. e4 he (Black) chose e5 in 6 games, c5 in 3 and f6 in 1 of 10: f6 is 10%, the edge of a sideline.
TEST = [game(i, "e2e4", "e7e5") for i in range(6)] + [game(6 + i, "e2e4", "c7c5") for i in range(3)] + [
    game(9, "e2e4", "f7f6")
] + [game(10 + i, "d2d4", "d7d5") for i in range(4)]  # 1. d4 reached in 4 games only: left out


@pytest.mark.parametrize(("c5", "violations"), [(0.15, 0), (0.149, 1)])
def test_a_move_believed_below_half_its_share_is_a_violation(c5, violations):
    beliefs = StubPredictor({("e2e4",): {"e7e5": 0.8 - c5, "c7c5": c5, "f7f6": 0.2}})
    rows = sideline_rows(TEST, chess.BLACK, beliefs, plies=4)
    assert rows[["move", "played", "games"]].values.tolist() == [["c5", 3, 10], ["e5", 6, 10], ["f6", 1, 10]]
    assert rows["share"].tolist() == [0.3, 0.6, 0.1] and int(rows["violation"].sum()) == violations
    assert rows.loc[rows["move"] == "e5", "belief"].item() == pytest.approx(0.8 - c5)


def test_games_of_the_other_colour_and_rare_positions_are_left_out():
    beliefs = StubPredictor({})
    assert sideline_rows(TEST, chess.WHITE, beliefs, plies=4).empty
    rows = sideline_rows(TEST, chess.BLACK, beliefs, plies=4, min_games=11)
    assert rows.empty and list(rows.columns)[-1] == "violation"
    # A move he never is believed in at all is a violation of any floor.
    assert sideline_rows(TEST, chess.BLACK, beliefs, plies=4)["violation"].all()
