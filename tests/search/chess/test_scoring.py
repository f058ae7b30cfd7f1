"""score_root_moves: every legal move's exact value, equal to one separate search per move.

Two references: the generic search on the python-chess adapter with the same tapered
evaluation (an independent implementation of board, rules and search), and the fast
chess search itself run once per root move with a fresh table.
"""

import chess
import pytest

from search import HeuristicOrderer, Limits, search
from search.chess.engine import ChessSearch
from search.chess.evaluation import tapered_evaluator
from search.chess.game import MATE, ChessGame
from search.chess.scoring import RootScoreCache, score_root_moves

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
TACTICAL = "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"
BLACK_TO_MOVE = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR b KQkq - 3 3"
ENDGAME = "8/5pk1/6p1/3R4/4r3/6P1/5PK1/8 w - - 0 40"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
# three of the benchmark middlegames (benchmarks/positions.py), full of captures
CAPTURES = "r2qr1k1/4bppp/p1n1bn2/1p1pp3/P2pP3/2P2N2/1PB1QPPP/R1B1RNK1 w - - 0 16"
QUEENS_OFF_SOON = "r1b1r1k1/p2nBppp/1p2p3/3p4/q2P4/1NnBP3/P1Q2PPP/R3K2R w KQ - 2 16"
QUIET = "r1b2rk1/1nq1bppp/p2p1n2/1p1Pp3/2p1P3/2P4P/PPB2PPN/R1BQRNK1 w - - 2 16"


class _OnlyMove:
    """A policy that searches nothing but ``move`` at the root (the reference's tool)."""

    def __init__(self, move: chess.Move) -> None:
        self.move = move

    def plan(self, cursor, actions, *, ply, depth):
        return [(self.move, 0)] if ply == 0 else None


def _reference(board: chess.Board, depth: int, quiescence: bool) -> dict[chess.Move, int]:
    """One independent full search per root move, with the generic iterative search."""
    values = {}
    for move in board.legal_moves:
        result = search(
            ChessGame(), board, evaluator=tapered_evaluator(), limits=Limits(depth=depth),
            ordering=HeuristicOrderer(), quiescence=quiescence, policy=_OnlyMove(move),
        )
        assert result.move == move and result.depth == depth
        values[move] = int(round(result.value))
    return values


def _fast_reference(board: chess.Board, depth: int) -> dict[chess.Move, int]:
    """The fast search once per root move (restricted to it), each with a fresh table."""
    values = {}
    for move in board.legal_moves:
        result = ChessSearch().search(board, Limits(depth=depth), only=move)
        assert result.move == move and result.depth == depth
        values[move] = result.value
    return values


@pytest.mark.parametrize(
    ("fen", "depth"),
    [
        (chess.STARTING_FEN, 1),
        (chess.STARTING_FEN, 2),
        (MIDDLEGAME, 1),
        (MIDDLEGAME, 2),
        (TACTICAL, 1),
        (TACTICAL, 2),
        (BLACK_TO_MOVE, 2),
        (ENDGAME, 3),
        (MATE_IN_ONE, 2),
    ],
)
def test_scores_equal_one_search_per_move(fen, depth):
    board = chess.Board(fen)
    scores = score_root_moves(board, depth)
    assert set(scores) == set(board.legal_moves)
    assert scores == _reference(board, depth, quiescence=True)


@pytest.mark.parametrize("fen", [MIDDLEGAME, TACTICAL, ENDGAME])
def test_scores_equal_the_fast_search_per_move_at_depth_3(fen):
    board = chess.Board(fen)
    assert score_root_moves(board, 3) == _fast_reference(board, 3)


@pytest.mark.parametrize("fen", [CAPTURES, QUEENS_OFF_SOON, QUIET])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_scores_equal_the_fast_search_per_move_on_benchmark_middlegames(fen, depth):
    board = chess.Board(fen)
    assert score_root_moves(board, depth) == _fast_reference(board, depth)


@pytest.mark.parametrize(("fen", "depth"), [(MIDDLEGAME, 2), (CAPTURES, 3), (TACTICAL, 3), (ENDGAME, 4)])
def test_the_best_score_is_the_value_of_one_search(fen, depth):
    board = chess.Board(fen)
    scores = score_root_moves(board, depth)
    result = ChessSearch().search(board, Limits(depth=depth))
    assert max(scores.values()) == result.value
    assert scores[result.move] == result.value


def test_without_quiescence_equals_the_reference_too():
    board = chess.Board(TACTICAL)
    assert score_root_moves(board, 2, quiescence=False) == _reference(board, 2, quiescence=False)


def test_scores_are_from_the_movers_point_of_view():
    board = chess.Board(BLACK_TO_MOVE)  # White threatens Qxf7 mate; Black to move
    scores = score_root_moves(board, 2)
    assert scores[chess.Move.from_uci("a7a6")] == -(MATE - 2)  # allows Qxf7#: mated 2 plies on
    assert scores[chess.Move.from_uci("g8f6")] > -300  # blocks the queen
    assert scores[chess.Move.from_uci("d8e7")] > -300  # defends f7


def test_a_mate_is_scored_by_its_distance():
    scores = score_root_moves(chess.Board(MATE_IN_ONE), 1)
    assert scores[chess.Move.from_uci("a1a8")] == MATE - 1
    assert all(v < 1000 for m, v in scores.items() if m.uci() != "a1a8")


def test_a_capture_is_worth_its_material():
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    scores = score_root_moves(board, 1)
    assert max(scores, key=scores.get) == chess.Move.from_uci("d1d5")
    assert scores[chess.Move.from_uci("d1d5")] - scores[chess.Move.from_uci("e1e2")] > 800


def test_repetition_in_the_move_stack_counts():
    board = chess.Board("6k1/8/8/8/8/8/r7/4K2Q w - - 0 1")  # White a queen up
    for uci in ("h1h2", "g8g7", "h2h1", "g7g8"):
        board.push_uci(uci)
    scores = score_root_moves(board, 1)
    assert scores[chess.Move.from_uci("h1h2")] == 0  # repeats the position after 1. Qh2
    assert scores[chess.Move.from_uci("h1h3")] > 300
    assert scores == _reference(board, 1, quiescence=True)


@pytest.mark.parametrize(
    "fen",
    [
        "7k/5KQ1/8/8/8/8/8/8 b - - 0 1",  # checkmated
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",  # insufficient material
        "8/8/4k3/8/8/3K4/8/R7 w - - 100 80",  # fifty-move rule
    ],
)
def test_a_finished_game_has_no_scores(fen):
    assert score_root_moves(chess.Board(fen), 2) == {}


def test_depth_must_be_positive():
    with pytest.raises(ValueError):
        score_root_moves(chess.Board(), 0)


def test_the_deepest_known_scores_are_read_and_unknown_ones_computed_at_the_given_depth():
    cache = RootScoreCache()
    board = chess.Board(MIDDLEGAME)
    assert cache.deepest(board) == score_root_moves(board, 1) and cache.misses == 1
    cache.scores(board, 2)
    assert cache.deepest(board) == score_root_moves(board, 2) and cache.misses == 2  # read, not searched
    assert cache.deepest(chess.Board(), otherwise=2) == score_root_moves(chess.Board(), 2)
