"""The internal board model: an 8x8 integer matrix seen from the modelled player's side.

Row ``r`` is the player's relative rank (row 0 is the player's own back rank, so
"forward" is always ``r + 1``) and column ``c`` is the file (a = 0). For Black the
ranks are flipped, so White and Black games pool into one model. Cells hold the
player's pieces as ``+1..+6`` (pawn, knight, bishop, rook, queen, king) and the
opponent's as ``-1..-6``; 0 is an empty square.

Many positions are handled at once: :func:`relative_bitboards` reads the twelve
piece bitboards of a position (the player's six, then the opponent's six), and
:func:`planes_from_bitboards` unpacks any number of them into an ``(N, 8, 8)``
array in one vectorised step.
"""

from __future__ import annotations

import chess
import numpy as np

__all__ = [
    "PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING",
    "relative_square",
    "relative_bitboards",
    "planes_from_bitboards",
    "board_matrix",
    "matrix_to_text",
]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
_PIECE_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
_PLANE_CODES = np.array([1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6], dtype=np.int8)
_SYMBOLS = {0: ".", **{i: "PNBRQK"[i - 1] for i in range(1, 7)}, **{-i: "pnbrqk"[i - 1] for i in range(1, 7)}}


def relative_square(square: chess.Square, color: chess.Color) -> int:
    """The square's index (``row * 8 + col``) in the matrix of the player of ``color``."""
    return square if color == chess.WHITE else square ^ 56


def relative_bitboards(board: chess.Board, color: chess.Color) -> tuple[int, ...]:
    """The twelve piece bitboards of ``board`` as seen by the player of ``color``.

    Own pawn..king first, then the opponent's; ranks flipped for Black.
    """
    masks = [board.pieces_mask(piece, color) for piece in _PIECE_TYPES]
    masks += [board.pieces_mask(piece, not color) for piece in _PIECE_TYPES]
    if color == chess.BLACK:
        masks = [chess.flip_vertical(mask) for mask in masks]
    return tuple(masks)


def planes_from_bitboards(bitboards: np.ndarray) -> np.ndarray:
    """Unpack ``(N, 12)`` relative bitboards into ``(N, 8, 8)`` int8 board matrices."""
    bitboards = np.ascontiguousarray(bitboards, dtype="<u8")
    bits = np.unpackbits(bitboards.view(np.uint8).reshape(len(bitboards), 12, 8), axis=-1, bitorder="little")
    planes = (bits.view(np.int8) * _PLANE_CODES[None, :, None]).sum(axis=1, dtype=np.int8)
    return planes.reshape(-1, 8, 8)


def board_matrix(board: chess.Board, color: chess.Color | None = None) -> np.ndarray:
    """The ``(8, 8)`` matrix of one position from the side of ``color`` (default: side to move)."""
    color = board.turn if color is None else color
    stacked = np.array([relative_bitboards(board, color)], dtype=np.uint64)
    return planes_from_bitboards(stacked)[0]


def matrix_to_text(matrix: np.ndarray) -> str:
    """Render a board matrix with the far rank on top (``P`` own pawn, ``p`` opponent's)."""
    return "\n".join(" ".join(_SYMBOLS[int(cell)] for cell in row) for row in matrix[::-1])
