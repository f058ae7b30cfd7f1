"""Costly habits: his usual move scored against the best, in his games and on prepared lines."""

from __future__ import annotations

import chess

from iam.games.pgn import PlayerGame
from iam.prepare.habits import Frequency, candidates, find_habits
from iam.prepare.lines import LineSettings, prepare_lines
from iam.prepare.tree import build_repertoire

from .stubs import BatchScorer, StubPredictor, StubScorer, after


def game(index: int, *ucis: str) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=index, color=chess.BLACK, start_fen=chess.STARTING_FEN, moves=moves, result="loss")


GAMES = [game(0, "e2e4", "f7f6"), game(1, "e2e4", "f7f6"), game(2, "e2e4", "e7e5"), game(3, "d2d4", "d7d5")]


def test_a_repeated_costly_move_is_a_habit():
    tree = build_repertoire(GAMES, chess.BLACK, plies=2)
    scorer = StubScorer({("e2e4",): {"e7e5": 20, "f7f6": -90, "c7c5": 15}})
    found = candidates(tree, None, StubPredictor({}), habit_games=2)
    assert [c.fen for c in found] == [after("e2e4").fen()]  # after 1. d4 he was there once only
    habits = find_habits(found, scorer, min_loss=50)
    assert [(h.usual_san, h.best_san, h.cost, h.frequency) for h in habits] == [
        ("f6", "e5", 110, Frequency("games", reached=3, played=2, belief=None))
    ]
    assert find_habits(found, scorer, min_loss=111) == []


def test_a_predicted_position_counts_when_likely_enough():
    tree = build_repertoire(GAMES[:1], chess.BLACK, plies=2)
    predictor = StubPredictor({("e2e4",): {"f7f6": 0.9, "e7e5": 0.1}})
    scorer = StubScorer({(): {"e2e4": 10}, ("e2e4",): {"e7e5": 20, "f7f6": -90}})
    plan = prepare_lines(chess.Board(), chess.BLACK, predictor, scorer, LineSettings(plies=2, our_width=1))
    found = candidates(tree, plan, predictor, habit_games=2, habit_belief=0.5)
    assert [(c.usual, c.frequency.source, c.frequency.belief) for c in found] == [("f7f6", "predicted", 1.0)]
    assert find_habits(found, scorer)[0].cost == 110


def test_a_usual_move_outside_the_scorer_lines_is_still_judged():
    # The scorer's lines hold e5 and c5 only; his f6 leads to a position worth 90 to White.
    tree = build_repertoire(GAMES, chess.BLACK, plies=2)
    scorer = StubScorer({("e2e4",): {"e7e5": 20, "c7c5": 15}, ("e2e4", "f7f6"): {"d2d4": 90}})
    found = candidates(tree, None, StubPredictor({}), habit_games=2)
    habits = find_habits(found, scorer, min_loss=50)
    assert [(h.usual_san, h.best_san, h.cost) for h in habits] == [("f6", "e5", 110)]
    assert after("e2e4", "f7f6").epd() in scorer.asked


def test_his_positions_and_where_his_usual_moves_lead_are_scored_in_two_batches():
    tree = build_repertoire(GAMES, chess.BLACK, plies=2)
    scorer = BatchScorer({("e2e4",): {"e7e5": 20, "c7c5": 15}, ("e2e4", "f7f6"): {"d2d4": 90}})
    habits = find_habits(candidates(tree, None, StubPredictor({}), habit_games=2), scorer, min_loss=50)
    assert scorer.batches == [[after("e2e4").epd()], [after("e2e4", "f7f6").epd()]] and scorer.unbatched == []
    assert [(h.usual_san, h.cost) for h in habits] == [("f6", 110)]
