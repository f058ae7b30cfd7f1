"""Move scores when the scorer holds only its best lines: other moves valued by the position they lead to."""

from __future__ import annotations

import shutil

import chess
import pytest

from iam.engines.analysis import MATE_SCORE
from iam.prepare.scoring import EngineScorer, move_score, position_value

from .stubs import StubScorer, after

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def test_a_move_in_the_lines_keeps_its_score_and_another_is_minus_the_value_after_it():
    scorer = StubScorer({(): {"e2e4": 30}, ("a2a3",): {"e7e5": 40, "d7d5": 10}})
    board = chess.Board()
    assert move_score(scorer, board, chess.Move.from_uci("e2e4")) == 30
    assert move_score(scorer, board, chess.Move.from_uci("a2a3")) == -40
    assert board == chess.Board() and not board.move_stack


class ByPosition:
    """Scores given per position (by FEN); every legal move 0 elsewhere."""

    def __init__(self, table: dict[str, dict[str, int]]) -> None:
        self.table = {
            chess.Board(fen).epd(): {chess.Move.from_uci(m): v for m, v in scores.items()}
            for fen, scores in table.items()
        }

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        return dict(self.table.get(board.epd(), {move: 0 for move in board.legal_moves}))


def test_mates_after_a_move_count_one_move_further():
    start = "7k/8/6K1/8/8/8/8/Q7 w - - 0 1"
    board = chess.Board(start)
    lines = {start: {"g6h6": 0}}  # the scorer's only line at the start
    assert move_score(ByPosition(lines), board, chess.Move.from_uci("a1a8")) == MATE_SCORE - 1  # Qa8 mates at once
    # After Kf6 Black mates in 2, by the scorer: White is mated in 2.
    after_kf6 = "7k/8/5K2/8/8/8/8/Q7 b - - 1 1"
    scorer = ByPosition({**lines, after_kf6: {"h8g8": MATE_SCORE - 2}})
    assert move_score(scorer, board, chess.Move.from_uci("g6f6")) == -(MATE_SCORE - 2)
    # After Qa7 Black is mated in 1, by the scorer: White mates in 2.
    after_qa7 = "7k/Q7/6K1/8/8/8/8/8 b - - 1 1"
    scorer = ByPosition({**lines, after_qa7: {"h8g8": -(MATE_SCORE - 1)}})
    assert move_score(scorer, board, chess.Move.from_uci("a1a7")) == MATE_SCORE - 2


def test_an_illegal_move_is_refused():
    with pytest.raises(ValueError, match="illegal move"):
        move_score(StubScorer({(): {"e2e4": 30}}), chess.Board(), chess.Move.from_uci("e2e5"))


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_the_engine_scores_its_best_lines_and_values_other_moves_by_their_position(tmp_path):
    board = after("e2e4", "e7e5", "g1f3")
    scorer = EngineScorer(STOCKFISH, depth=4, cache=str(tmp_path / "cache.sqlite"), lines=2)
    try:
        scores = scorer.scores(board)
        assert len(scores) == 2 and set(scores) <= set(board.legal_moves)
        assert "best 2 moves" in scorer.description
        outside = next(move for move in board.legal_moves if move not in scores)
        child = board.copy()
        child.push(outside)
        assert move_score(scorer, board, outside) == -position_value(scorer, child)
    finally:
        scorer.close()


def test_the_judge_agreement_is_the_measured_table():
    from pathlib import Path

    import pandas as pd

    from iam.prepare.scoring import JUDGE_AGREEMENT

    table = pd.read_csv(Path(__file__).resolve().parents[3] / "docs/results/data/judge_agreement.csv")
    measured = table.set_index(["depth", "moves"])
    assert sorted(JUDGE_AGREEMENT) == sorted(set(table["depth"]))
    for depth, agreement in JUDGE_AGREEMENT.items():
        assert agreement.precision == round(measured.loc[(depth, "all"), "precision"], 3)
        assert agreement.recall == round(measured.loc[(depth, "all"), "recall"], 3)
        assert agreement.played_precision == round(measured.loc[(depth, "played"), "precision"], 3)


def test_the_own_search_says_how_far_its_verdicts_agree_with_the_reference():
    from iam.prepare.scoring import DEFAULT_JUDGE_DEPTH, JUDGE_AGREEMENT, SearchScorer

    assert SearchScorer().depth == DEFAULT_JUDGE_DEPTH == 4
    played = f"{JUDGE_AGREEMENT[4].played_precision:.0%}"
    text = SearchScorer(4).description
    assert text.startswith("the toolkit's own search (alpha-beta with quiescence, depth 4): ")
    assert f"{played} of their own moves it judged to lose 50 centipawns or more did by Stockfish 15.1 at depth 16" \
        in text
    assert played == "31%"
    assert SearchScorer(7).description == "the toolkit's own search (alpha-beta with quiescence, depth 7)"
