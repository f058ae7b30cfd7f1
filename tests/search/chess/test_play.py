"""The selective search the engine plays with: its rules act where they should, and the exact search is untouched."""

from __future__ import annotations

import chess
import pytest

from search import Limits
from search.chess.board import HEADER, Position
from search.chess.engine import MATE, ChessSearch
from search.chess.play import PlaySearch, _after_pass, _has_pieces, _make_pass
from search.chess.scoring import score_root_moves

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
SMOTHERED = "r2q1r1k/2p1b1pp/p1n5/1p1Q1bN1/4n3/1BP1B3/PP3PPP/R4RK1 w - - 0 1"  # 1. Qg8+ Rxg8 2. Nf7#
QUEEN_SACRIFICE = "4k1r1/2p3r1/1pR1p3/3pP2p/3P2qP/P4N2/1PQ4P/5R1K b - - 0 1"  # 1... Qxf3+ 2. Rxf3 Rg1#
LOCKED_PAWNS = "8/8/8/1k1p4/1p1P4/1P1K4/8/8 w - - 0 1"  # whoever must move his king gives way
OPPOSITION = "8/8/8/4k3/8/4K3/4P3/8 w - - 0 1"


@pytest.mark.parametrize(("fen", "move", "depth"), [(SMOTHERED, "d5g8", 2), (QUEEN_SACRIFICE, "g4f3", 2)])
def test_the_check_extension_finds_a_mate_the_plain_depth_misses(fen, move, depth):
    """Two plies see only the sacrifice; the checks searched a ply deeper see the mate behind it, at its distance."""
    board = chess.Board(fen)
    plain = ChessSearch().search(board, Limits(depth=depth))
    selective = PlaySearch()
    found = selective.search(board, Limits(depth=depth))
    assert plain.value < MATE // 2 and plain.move != chess.Move.from_uci(move)
    assert found.move == chess.Move.from_uci(move) and found.value == MATE - 3
    assert selective.check_extensions > 0


def test_the_shortest_mate_is_the_one_reported():
    """A back-rank mate in one: the value of a mate at the first ply, however deep the search."""
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    found = PlaySearch().search(board, Limits(depth=6))
    assert found.move == chess.Move.from_uci("a1a8") and found.value == MATE - 1


@pytest.mark.parametrize("fen", [LOCKED_PAWNS, OPPOSITION])
def test_no_pass_is_tried_in_a_king_and_pawn_ending(fen):
    """Having to move can lose a pawn ending (zugzwang): the side to move never passes there (the depth is too
    shallow for a pawn to queen)."""
    search = PlaySearch()
    search.search(chess.Board(fen), Limits(depth=7))
    assert search.passes == 0
    assert not _has_pieces(Position.from_board(chess.Board(fen)).state)


def test_passes_and_late_reductions_are_tried_in_a_middlegame():
    search = PlaySearch()
    search.search(chess.Board(MIDDLEGAME), Limits(depth=6))
    assert search.passes > 0 and search.late_reductions > 0
    assert _has_pieces(Position.from_board(chess.Board(MIDDLEGAME)).state)


def test_a_pass_is_undone_exactly_and_marks_the_node():
    """The side to move changes, the en-passant right goes, the key is the position's with the other side to move;
    the board's undo puts every field back."""
    board = chess.Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    position = Position.from_board(board)
    position.reserve(4)
    before = position.state.copy()
    _make_pass(position.state)
    assert _after_pass(position.state)
    passed = board.copy()
    passed.push(chess.Move.null())
    assert position.key == Position.from_board(chess.Board(passed.fen())).key
    position.unmake()
    assert (position.state[:HEADER] == before[:HEADER]).all()  # the stacks above their tops are scratch
    assert not _after_pass(position.state)


def test_the_exact_kernels_are_untouched():
    """Unselective, the play search is the plain search to the node; its move scores stay exact."""
    board = chess.Board(MIDDLEGAME)
    plain = ChessSearch().search(board, Limits(depth=4))
    unselective = PlaySearch(selective=False).search(board, Limits(depth=4))
    assert (unselective.value, unselective.move, unselective.pv) == (plain.value, plain.move, plain.pv)
    assert (unselective.nodes, unselective.qnodes) == (plain.nodes, plain.qnodes)
    selective = PlaySearch()
    selective.search(board, Limits(depth=4))
    assert selective.score_moves(board, 3) == score_root_moves(board, 3)
    assert selective.selective


def test_the_table_is_emptied_when_the_kind_of_values_changes():
    """After a selective search, an exact one finds the exact value (no selective bound read from the table)."""
    board = chess.Board(SMOTHERED)
    search = PlaySearch()
    search.search(board, Limits(depth=4))
    assert len(search.table) > 0
    search.selective = False
    assert search.search(board, Limits(depth=2)).value == ChessSearch().search(board, Limits(depth=2)).value


def test_a_guided_search_runs_the_exact_kernels():
    from search.chess.guided import ModelGuide

    class Uniform:
        def predict_proba(self, board):
            moves = list(board.legal_moves)
            return {move: 1 / len(moves) for move in moves}

    board = chess.Board(MIDDLEGAME)
    guided = PlaySearch()
    guided.guide = ModelGuide(Uniform())
    reference = ChessSearch(guide=ModelGuide(Uniform()))
    assert guided.search(board, Limits(depth=3)).value == reference.search(board, Limits(depth=3)).value
    assert guided.passes == 0
