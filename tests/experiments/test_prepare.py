"""The dossier experiment's checks on test games, with a stub model and scorer on a tiny prepared tree."""

from __future__ import annotations

import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from experiments.prepare import ece, game_rows, opening_rows, step_rows
from iam.pgn import PlayerGame
from iam.prepare.dossier import PrepareConfig, prepare
from iam.prepare.lines import LineSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "iam" / "prepare"))
from stubs import StubPredictor, StubScorer  # noqa: E402


def game(index: int, *ucis: str) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=index, color=chess.BLACK, start_fen=chess.STARTING_FEN, moves=moves, result="draw")


TRAINING = [game(0, "e2e4", "e7e5", "g1f3", "b8c6"), game(1, "e2e4", "e7e5", "g1f3", "b8c6")]
BELIEFS = {("e2e4",): {"e7e5": 0.8, "c7c5": 0.2}, ("e2e4", "e7e5", "g1f3"): {"b8c6": 0.6, "d7d6": 0.4}, ("d2d4",): {"d7d5": 1.0}}
SCORES = {
    (): {"e2e4": 40, "d2d4": 0},
    ("e2e4",): {"e7e5": -30, "c7c5": -40},
    ("e2e4", "e7e5"): {"g1f3": 35, "f1c4": 0},
    ("e2e4", "e7e5", "g1f3"): {"b8c6": -35, "d7d6": -50},
}


@pytest.fixture(scope="module")
def setup():
    # The model's beliefs alone (no update by his games), so the steps' beliefs are the stub's.
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=4, our_width=1, reply_min=0.1), prior_strength=None, quiet=True)
    scorer = StubScorer(SCORES)
    side = prepare(TRAINING, StubPredictor(BELIEFS), config, scorer=scorer).sides[0]
    return side, scorer


def test_entered_and_exit(setup):
    side, scorer = setup
    tests = [
        game(4, "e2e4", "e7e5", "g1f3", "d7d6", "d2d4"),  # enters at ply 3, stays to the end of the tree
        game(9, "e2e4", "e7e5", "f1c4", "g8f6"),  # we leave at ply 2: never reaches his node at ply 3
        game(14, "e2e4", "c7c5", "g1f3"),  # enters at ply 1 only: before the entry ply
    ]
    rows = game_rows(side, tests, scorer, entry_ply=2).set_index("game")
    assert rows["entered"].tolist() == [True, False, False] and rows["entered_main"].tolist() == [True, False, False]
    first = rows.loc[4]
    assert (first.entry_ply, first.exit_ply, first.left) == (3, 4, "end")
    # After 1. e4 e5 2. Nf3 d6, White to move: the stub scores every move 0 there.
    assert first.exit_value == 0
    # The reference (the scorer's main line, e4 e5 Nf3 Nc6) at ply 4: White to move, unscored: 0.
    assert first.reference_value == 0 and first.gain == 0


def test_he_leaves_the_line(setup):
    side, scorer = setup
    rows = game_rows(side, [game(4, "e2e4", "e7e5", "g1f3", "g8f6")], scorer, entry_ply=2)
    assert rows.loc[0, "left"] == "him" and rows.loc[0, "exit_ply"] == 3
    assert rows.loc[0, "exit_value"] == 35  # our value with him to move after 2. Nf3: his best -35


def test_opening_moves_named(setup):
    side, _ = setup
    rows = opening_rows(side, [game(4, "e2e4", "e7e5", "g1f3", "d7d6"), game(9, "e2e4", "c7c5")], moves=10)
    assert rows["known"].tolist() == [True, True, True]
    assert rows["dossier"].tolist() == [True, False, False] and rows["counting"].tolist() == [True, False, False]
    beyond = opening_rows(side, [game(4, "d2d4", "d7d5")], moves=10)
    assert beyond[["known", "dossier", "counting"]].values.tolist() == [[False, True, False]]


def test_steps_and_ece(setup):
    side, _ = setup
    steps = step_rows(side, [game(4, "e2e4", "e7e5", "g1f3", "d7d6")])
    assert sorted(zip(steps["belief"], steps["hit"])) == [(0.2, False), (0.4, True), (0.6, False), (0.8, True)]
    assert ece(np.array([0.8, 0.8]), np.array([1.0, 1.0])) == pytest.approx(0.2)
    assert ece(np.array([0.5, 0.5]), np.array([1.0, 0.0]), np.array([3.0, 3.0])) == pytest.approx(0.0)
