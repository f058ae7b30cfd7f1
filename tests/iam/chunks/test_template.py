"""Board matrices and the convolution templates (source note 001's code matrix Y)."""

from __future__ import annotations

import chess
import numpy as np

from iam.chunks.board import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    board_matrix,
    planes_from_bitboards,
    relative_bitboards,
)
from iam.chunks.template import DIRECTION_BITS, GENERAL, PAWN_TEMPLATE, ROOK_KNIGHT, code_matrix, decode


def matrix(pieces: dict[str, int]) -> np.ndarray:
    """A board matrix with the given pieces (positive: the player's) on named squares."""
    grid = np.zeros((8, 8), dtype=np.int8)
    for name, piece in pieces.items():
        square = chess.parse_square(name)
        grid[chess.square_rank(square), chess.square_file(square)] = piece
    return grid


def at(grid: np.ndarray, name: str) -> int:
    square = chess.parse_square(name)
    return int(grid[chess.square_rank(square), chess.square_file(square)])


def test_templates_are_the_seeds():
    assert GENERAL.tolist() == [[4, 8, 16], [2, 0, 32], [1, 128, 64]]
    assert PAWN_TEMPLATE.tolist() == [[4, 8, 16], [2, 0, 32], [0, 128, 0]]
    assert ROOK_KNIGHT.tolist() == [[0, 8, 0], [2, 0, 32], [0, 128, 0]]
    # distinct powers of two, so a code says exactly which neighbours are occupied
    weights = sorted(DIRECTION_BITS.values())
    assert weights == [1, 2, 4, 8, 16, 32, 64, 128]


def test_general_template_sees_all_eight_neighbours():
    grid = matrix({"d4": QUEEN, **{sq: PAWN for sq in ["c5", "d5", "e5", "c4", "e4", "c3", "d3", "e3"]}})
    assert at(code_matrix(grid), "d4") == 255


def test_orientation_forward_is_up():
    # A king with one neighbour: ahead-left (4), ahead (8), right (32), behind (128).
    for neighbour, code in [("c5", 4), ("d5", 8), ("e4", 32), ("d3", 128), ("c3", 1), ("e3", 64)]:
        assert at(code_matrix(matrix({"d4": KING, neighbour: BISHOP})), "d4") == code


def test_pawn_template_ignores_the_squares_diagonally_behind():
    grid = matrix({"d4": PAWN, "c3": KNIGHT, "e3": KNIGHT, "c5": PAWN, "d3": ROOK})
    assert at(code_matrix(grid), "d4") == 4 + 128


def test_rook_and_knight_templates_are_orthogonal_only():
    grid = matrix({"d4": ROOK, "c5": PAWN, "e5": PAWN, "d5": PAWN, "e4": KNIGHT})
    codes = code_matrix(grid)
    assert at(codes, "d4") == 8 + 32
    assert at(codes, "e4") == 2 + 8  # the rook to its left and the pawn ahead; not d5 (diagonal)


def test_only_the_players_pieces_count_and_get_codes():
    grid = matrix({"d4": KING, "d5": -QUEEN, "e4": -PAWN})
    codes = code_matrix(grid)
    assert at(codes, "d4") == 0
    assert at(codes, "d5") == 0 and at(codes, "e4") == 0


def test_decode_names_the_neighbours_of_a_code():
    # 140 = 128 + 8 + 4: behind, ahead, ahead-left (offsets are (rows forward, files right)).
    assert sorted(decode(140)) == [(-1, 0), (1, -1), (1, 0)]
    assert decode(0) == [] and len(decode(255)) == 8


def test_rook_knight_template_example_from_the_seed():
    # Seed: a rook/knight whose only template neighbour is the square behind it has code 128.
    assert at(code_matrix(matrix({"b2": KNIGHT, "b1": ROOK})), "b2") == 128


def test_batch_equals_one_by_one():
    rng = np.random.default_rng(1)
    stack = rng.integers(-6, 7, size=(20, 8, 8)).astype(np.int8)
    batch = code_matrix(stack)
    assert all(np.array_equal(batch[i], code_matrix(stack[i])) for i in range(len(stack)))


def test_black_sees_its_own_side_from_below():
    board = chess.Board()
    white, black = board_matrix(board, chess.WHITE), board_matrix(board, chess.BLACK)
    assert np.array_equal(white, black)  # the start position is the same from both sides
    board.push_san("e4")
    assert board_matrix(board, chess.BLACK)[4, 4] == -PAWN  # White's e4 pawn, four rows ahead of Black
    assert board_matrix(board, chess.WHITE)[3, 4] == PAWN


def test_bitboard_unpacking_matches_python_chess():
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 1 8")
    for color in (chess.WHITE, chess.BLACK):
        grid = planes_from_bitboards(np.array([relative_bitboards(board, color)], dtype=np.uint64))[0]
        for square in chess.SQUARES:
            piece = board.piece_at(square)
            row = chess.square_rank(square) if color == chess.WHITE else 7 - chess.square_rank(square)
            expected = 0 if piece is None else piece.piece_type * (1 if piece.color == color else -1)
            assert grid[row, chess.square_file(square)] == expected
