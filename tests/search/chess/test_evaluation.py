"""Chess evaluation: the six features worked out by hand on small positions, and the tapered value against the
fast board's own evaluation."""

from __future__ import annotations

import random

import chess
import pytest

from search.chess.board import Position
from search.chess.evaluation import (
    DEFAULT_WEIGHTS,
    FEATURE_NAMES,
    chess_features,
    material_pst_evaluator,
    tapered_evaluator,
    tapered_value,
)


@pytest.mark.parametrize(
    "fen, features",
    [
        (chess.STARTING_FEN, (0, 0, 0, 0, 0, 0)),
        # Pe4: advanced two ranks (6) and central (12); the kings on e1/e8 have no shelter bonus.
        ("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", (1, 0, 0, 0, 0, 18)),
        # Qd1 on the rim (4 - 3 * 3 = -5); Kg1 and Kg8 sheltered alike (22 each).
        ("6k1/8/8/8/8/8/8/3Q2K1 w - - 0 1", (0, 0, 0, 0, 1, -5)),
        # Ne4 central (+12); Black's Na1 on the rim (-24 for Black, so +24 for White).
        ("4k3/8/8/8/4N3/8/8/n3K3 w - - 0 1", (0, 0, 0, 0, 0, 36)),
        # Ra7 on the seventh (15); Black's Rd2 on his seventh and a central file (15 + 4).
        ("4k3/R7/8/8/8/8/3r4/4K3 w - - 0 1", (0, 0, 0, 0, 0, -4)),
        # Bc1 three from the centre (6 - 15 = -9); Black's Bb7 two from it (6 - 10 = -4).
        ("4k3/1b6/8/8/8/8/8/2B1K3 b - - 0 1", (0, 0, 0, 0, 0, -5)),
        # A king off its back rank: -12 a rank; Black's Kb8 sheltered (20).
        ("1k6/8/8/8/8/8/4K3/8 w - - 0 1", (0, 0, 0, 0, 0, -32)),
        # Ph7 five ranks up (45) against Black's a3 pawn four ranks up (26); two White bishops for a knight.
        ("4k3/7P/8/8/8/p7/8/1n2KBB1 w - - 0 1", (0, -1, 2, 0, 0, 45 - 26 + 0 + (6 - 15) + (6 - 15) - (12 - 36))),
    ],
)
def test_features_by_hand(fen, features):
    assert chess_features(chess.Board(fen)) == features


def test_the_features_do_not_depend_on_the_side_to_move():
    board = chess.Board("4k3/8/8/8/4N3/8/8/n3K3 w - - 0 1")
    assert chess_features(board) == chess_features(chess.Board(board.fen().replace(" w ", " b ")))


def test_the_default_evaluator_is_centipawns_for_white():
    assert FEATURE_NAMES == ("pawns", "knights", "bishops", "rooks", "queens", "piece_squares")
    assert DEFAULT_WEIGHTS == (100, 320, 330, 500, 900, 1)
    evaluator = material_pst_evaluator()
    assert evaluator(chess.Board("6k1/8/8/8/8/8/8/3Q2K1 w - - 0 1")) == 900 - 5
    assert evaluator(chess.Board("6k1/3q4/8/8/8/8/8/6K1 b - - 0 1")) == -(900 + 4 - 3 * 2)  # Qd7: two from the centre
    assert evaluator(chess.Board()) == 0


def test_other_weights_weigh_the_same_features():
    board = chess.Board("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1")
    assert material_pst_evaluator((1, 0, 0, 0, 0, 0))(board) == 1
    assert material_pst_evaluator((0, 0, 0, 0, 0, 2))(board) == 36


@pytest.mark.parametrize(
    "fen, value",
    [
        (chess.STARTING_FEN, 0),
        # Pawn endings are all endgame (phase 0): Pe4 is 120 + 12; the kings cancel.
        ("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", 132),
        # A queen is phase 4 of 24: (895 * 4 + 938 * 20) // 24 = 930.
        ("6k1/8/8/8/8/8/8/3Q2K1 w - - 0 1", 930),
        # The same for Black, rounded down: -931.
        ("3q2k1/8/8/8/8/8/8/6K1 w - - 0 1", -931),
        # And Pe4 with it: ((895 + 118) * 4 + (938 + 132) * 20) // 24 = 1060.
        ("6k1/8/8/8/4P3/8/8/3Q2K1 b - - 0 1", 1060),
    ],
)
def test_tapered_values_by_hand(fen, value):
    assert tapered_value(chess.Board(fen)) == value


def test_extra_queens_do_not_take_the_phase_past_the_middlegame():
    """Seven queens are phase 28, read as 24: the middlegame value alone, 7 * (900 - 5) on the back rank (an
    uncapped phase would blend in a negative share of the endgame value, 6214)."""
    assert tapered_value(chess.Board("4k3/8/8/8/8/8/8/QQQQKQQQ w - - 0 1")) == 7 * 895


def _positions(count: int, seed: int) -> list[chess.Board]:
    rng, boards, board = random.Random(seed), [], chess.Board()
    while len(boards) < count:
        moves = list(board.legal_moves)
        if not moves or board.ply() > 120:
            board = chess.Board()
            continue
        board.push(rng.choice(moves))
        boards.append(board.copy(stack=False))
    return boards


def test_the_tapered_value_is_the_fast_boards_evaluation_seen_from_white():
    for board in _positions(80, seed=21):
        expected = Position.from_board(board).evaluate()
        assert tapered_value(board) == (expected if board.turn == chess.WHITE else -expected), board.fen()


def test_the_tapered_evaluator_is_the_tapered_value():
    evaluator = tapered_evaluator()
    for board in _positions(10, seed=4):
        assert evaluator(board) == tapered_value(board)


def test_the_tapered_value_with_the_standard_piece_values_is_the_default():
    from search.chess.pst import PieceValues

    for fen in (chess.STARTING_FEN, "4k3/8/8/8/8/8/8/QQQQKQQQ w - - 0 1", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"):
        board = chess.Board(fen)
        assert tapered_value(board, PieceValues.standard()) == tapered_value(board)


def test_the_tapered_value_with_other_piece_values_counts_their_material():
    from search.chess.pst import PieceValues

    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1")  # a rook up: phase 2
    more = PieceValues((100, 320, 330, 600, 900), (120, 290, 320, 630, 950))  # the rook 100 more in both phases
    assert tapered_value(board, more) == tapered_value(board) + 100
