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


def _moves(same: dict[int, tuple[int, int]], seconds: dict[int, float]) -> pd.DataFrame:
    """Six masters per colour and depth; ``same[depth]`` masters the same with him White, with him Black."""
    return pd.DataFrame([
        {"player": p, "color": color, "own_depth": depth, "same": i < count, "own_seconds": seconds[depth]}
        for depth, counts in same.items() for color, count in zip(("white", "black"), counts)
        for i, p in enumerate("ABCDEF")
    ])


@pytest.mark.parametrize(
    ("same", "seconds", "chosen"),
    [
        ({4: (5, 3), 5: (5, 5), 6: (6, 6)}, {4: 1.0, 5: 5.0, 6: 30.0}, 5),  # the shallowest meeting the target
        ({4: (5, 3), 5: (5, 5), 6: (6, 6)}, {4: 1.0, 5: 90.0, 6: 30.0}, 6),  # depth 5 too slow
        ({4: (5, 3), 5: (6, 4), 6: (4, 4)}, {4: 1.0, 5: 5.0, 6: 30.0}, 5),  # none meets: the weaker colour's most
        ({4: (5, 3), 5: (4, 3), 6: (6, 3)}, {4: 1.0, 5: 5.0, 6: 30.0}, 6),  # a tie there: the most in both
        ({4: (5, 3), 5: (4, 4), 6: (5, 3)}, {4: 1.0, 5: 5.0, 6: 30.0}, 5),
        ({4: (5, 3), 5: (4, 4), 6: (4, 4)}, {4: 1.0, 5: 5.0, 6: 30.0}, 5),  # all tied: the shallower
        ({4: (5, 3)}, {4: 61.0}, None),
    ],
)
def test_the_judge_depth_is_chosen_by_the_rule(same, seconds, chosen):
    from experiments.development.habit_verdicts import choose_depth

    assert choose_depth(_moves(same, seconds)) == chosen


def test_the_summary_is_per_own_depth_when_the_tables_say_it():
    moves = _moves({4: (5, 3), 5: (6, 5)}, {4: 1.0, 5: 5.0})
    habits = masters_table([
        {"player": "A", "color": "white", "agrees": True, "own_depth": 5},
        {"player": "A", "color": "black", "agrees": False, "own_depth": 4},
    ])
    table = summary(habits, moves).set_index(["own_depth", "color"])
    assert table.loc[(4, "black"), "first_move_same"] == 3 and not bool(table.loc[(4, "black"), "first_move_met"])
    assert table.loc[(5, "black"), "first_move_same"] == 5 and bool(table.loc[(5, "black"), "first_move_met"])
    assert table.loc[(5, "white"), ["habits", "agreeing"]].tolist() == [1, 1]
    assert table.loc[(4, "all"), ["habits", "agreeing"]].tolist() == [1, 0]
