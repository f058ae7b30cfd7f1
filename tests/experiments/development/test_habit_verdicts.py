"""Habit verdicts: a habit agrees when the reference's cost has its sign and lies within 30 centipawns; the
recommended first move read from the prepared tree; the summary against the targets."""

import chess
import pandas as pd
import pytest

from experiments.development.habit_verdicts import (
    first_move_row,
    habit_rows,
    masters_table,
    recommended_first_move,
    summary,
)
from iam.prepare.dossier import BeliefSettings, PrepareConfig, build_side
from iam.prepare.lines import LineSettings

from ...iam.prepare.stubs import StubPredictor, StubScorer
from ...iam.prepare.test_habits import GAMES

BELIEFS = {(): {"e2e4": 0.6, "d2d4": 0.4}, ("e2e4",): {"f7f6": 0.7, "e7e5": 0.3}, ("d2d4",): {"d7d5": 1.0}}
SCORES = {(): {"e2e4": 30, "d2d4": 10}, ("e2e4",): {"e7e5": 20, "f7f6": -90}}


def _side(color: chess.Color, scores: dict):
    config = PrepareConfig("X", lines=LineSettings(plies=2), beliefs=BeliefSettings(2.0, None), quiet=True)
    return build_side(GAMES, color, StubPredictor(BELIEFS), StubScorer(scores), config)


@pytest.mark.parametrize(
    ("reference", "cost", "agrees"), [(-60, 80, True), (-85, 105, True), (-35, 55, False), (-200, 220, False),
                                      (30, 0, False)],
)
def test_a_habit_agrees_when_the_reference_cost_is_near_and_of_its_sign(reference, cost, agrees):
    """His f6 after 1. e4 costs 110 by the side's judge (e5 20, f6 -90); the reference scores e5 20 and f6 at
    ``reference``: a cost of 20 - reference, or none when f6 is its best move."""
    side = _side(chess.BLACK, SCORES)
    (row,) = habit_rows("X", side, StubScorer({**SCORES, ("e2e4",): {"e7e5": 20, "f7f6": reference}}))
    assert (row["move"], row["cost"], row["reference_cost"]) == ("f6", 110, cost)
    assert row["agrees"] is agrees and row["color"] == "black" and row["source"] == "games"


def test_the_recommended_first_move_is_ours():
    """He has Black: our chosen first move; he has White: our answer to his most believed first move."""
    black = _side(chess.BLACK, SCORES)
    assert recommended_first_move(black) == chess.Board().san(chess.Move.from_uci(black.plan.root.choice))
    white = _side(chess.WHITE, SCORES)
    first = recommended_first_move(white)
    assert first is not None and first.startswith("e4 ")  # his 0.6 for 1. e4
    row = first_move_row("X", white, white)
    assert row["same"] and row["own_search"] == row["engine"] == first


def test_the_summary_counts_agreement_per_colour_against_the_targets():
    habits = masters_table([
        {"player": "A", "color": "white", "agrees": True}, {"player": "A", "color": "white", "agrees": True},
        {"player": "A", "color": "black", "agrees": False}, {"player": "B", "color": "black", "agrees": True},
    ])
    moves = pd.DataFrame(
        [{"player": p, "color": c, "same": same} for p in "ABCDEF" for c, same in (("white", True), ("black", p < "C"))]
    )
    table = summary(habits, moves).set_index("color")
    assert table.loc["white", ["habits", "agreeing", "share"]].tolist() == [2, 2, 1.0]
    assert bool(table.loc["white", "habits_kept"]) and not bool(table.loc["black", "habits_kept"])
    assert table.loc["black", "share"] == 0.5 and table.loc["all", "agreeing"] == 3
    assert table.loc["white", "first_move_same"] == 6 and bool(table.loc["white", "first_move_met"])
    assert table.loc["black", "first_move_same"] == 2 and not bool(table.loc["black", "first_move_met"])
