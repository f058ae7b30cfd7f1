"""The 8x8 board matrix from the player's side: signs and Black's flipped ranks, checked against python-chess."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from iam.chunks.board import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    board_matrix,
    matrix_to_text,
    planes_from_bitboards,
    relative_bitboards,
    relative_square,
)

BACK_RANK = [ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK]


def oracle(board: chess.Board, color: chess.Color) -> np.ndarray:
    """The matrix read square by square from python-chess: row ``r`` is the player's ``r``-th rank."""
    matrix = np.zeros((8, 8), dtype=np.int8)
    for row in range(8):
        for col in range(8):
            piece = board.piece_at(chess.square(col, row if color == chess.WHITE else 7 - row))
            if piece is not None:
                matrix[row, col] = piece.piece_type if piece.color == color else -piece.piece_type
    return matrix


def random_positions(count: int, seed: int = 7) -> list[chess.Board]:
    rng = random.Random(seed)
    boards, board = [], chess.Board()
    while len(boards) < count:
        moves = list(board.legal_moves)
        if not moves or board.ply() > 80:
            board = chess.Board()
            continue
        board.push(rng.choice(moves))
        boards.append(board.copy(stack=False))
    return boards


def test_the_piece_codes_are_python_chess_piece_types():
    assert (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING) == (
        chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def test_the_start_position_looks_the_same_from_both_sides():
    expected = np.zeros((8, 8), dtype=np.int8)
    expected[0], expected[1] = BACK_RANK, PAWN
    expected[6], expected[7] = -PAWN, [-piece for piece in BACK_RANK]
    for color in (chess.WHITE, chess.BLACK):
        matrix = board_matrix(chess.Board(), color)
        assert matrix.dtype == np.int8 and matrix.shape == (8, 8)
        np.testing.assert_array_equal(matrix, expected)


def test_black_sees_his_own_pieces_on_the_near_ranks():
    """After 1.e4 e5 2.Qh5, Black (to move) sees White's queen on his row 3 (rank 5), h file, and the pawns facing."""
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "d1h5"):
        board.push_uci(uci)
    matrix = board_matrix(board)  # the side to move: Black
    assert matrix[3, 7] == -QUEEN and matrix[7, 3] == 0  # White's queen left d1 (Black's row 7)
    assert matrix[3, 4] == PAWN and matrix[4, 4] == -PAWN and matrix[1, 4] == 0
    np.testing.assert_array_equal(board_matrix(board, chess.BLACK), matrix)
    white = board_matrix(board, chess.WHITE)
    assert white[4, 7] == QUEEN and white[3, 4] == PAWN and white[4, 4] == -PAWN


def test_every_position_matches_the_square_by_square_reading_from_either_side():
    for board in random_positions(60):
        for color in (chess.WHITE, chess.BLACK):
            np.testing.assert_array_equal(board_matrix(board, color), oracle(board, color))


def test_black_sees_what_white_sees_in_the_colour_swapped_mirror_image():
    """``chess.Board.mirror`` flips the ranks and swaps the colours: Black's view of a position is White's of that."""
    for board in random_positions(20, seed=3):
        np.testing.assert_array_equal(board_matrix(board, chess.BLACK), board_matrix(board.mirror(), chess.WHITE))


def test_many_positions_at_once_equal_one_at_a_time():
    boards = random_positions(25, seed=11)
    colors = [board.turn for board in boards]
    stacked = np.array([relative_bitboards(b, c) for b, c in zip(boards, colors)], dtype=np.uint64)
    planes = planes_from_bitboards(stacked)
    assert planes.shape == (25, 8, 8) and planes.dtype == np.int8
    for plane, board, color in zip(planes, boards, colors):
        np.testing.assert_array_equal(plane, board_matrix(board, color))
    assert planes_from_bitboards(np.zeros((0, 12), dtype=np.uint64)).shape == (0, 8, 8)


def test_relative_bitboards_order_own_pieces_first_and_flip_for_black():
    board = chess.Board("4k3/8/8/8/8/8/3P4/4K2R b - - 0 1")
    own, theirs = relative_bitboards(board, chess.BLACK)[:6], relative_bitboards(board, chess.BLACK)[6:]
    assert own == (0, 0, 0, 0, 0, chess.BB_E1)  # Black's king on e8 is on his own back rank
    assert theirs == (chess.BB_D7, 0, 0, chess.BB_H8, 0, chess.BB_E8)
    assert relative_bitboards(board, chess.WHITE) == (
        chess.BB_D2, 0, 0, chess.BB_H1, 0, chess.BB_E1, 0, 0, 0, 0, 0, chess.BB_E8)


@pytest.mark.parametrize(
    "square, color, index",
    [(chess.A1, chess.WHITE, 0), (chess.E4, chess.WHITE, 28), (chess.H8, chess.WHITE, 63), (chess.A1, chess.BLACK, 56),
     (chess.E4, chess.BLACK, 36), (chess.H8, chess.BLACK, 7), (chess.E8, chess.BLACK, 4)],
)
def test_relative_square_is_row_times_eight_plus_file(square, color, index):
    assert relative_square(square, color) == index


def test_relative_square_agrees_with_the_matrix():
    board = chess.Board("4k3/8/8/8/8/8/3P4/4K2R b - - 0 1")
    for color in (chess.WHITE, chess.BLACK):
        matrix = board_matrix(board, color)
        for square, piece in board.piece_map().items():
            row, col = divmod(relative_square(square, color), 8)
            assert matrix[row, col] == (piece.piece_type if piece.color == color else -piece.piece_type)


def test_the_text_shows_the_far_rank_on_top():
    board = chess.Board("4k3/8/8/8/8/8/3P4/4K2R w - - 0 1")
    assert matrix_to_text(board_matrix(board, chess.WHITE)) == "\n".join([
        ". . . . k . . .", *[". . . . . . . ."] * 5, ". . . P . . . .", ". . . . K . . R"])
    assert matrix_to_text(board_matrix(board, chess.BLACK)) == "\n".join([
        ". . . . k . . r", ". . . p . . . .", *[". . . . . . . ."] * 5, ". . . . K . . ."])
