"""Convolution templates and the code matrix Y (source note 001, "Visual Chunk Collector").

A template is a 3x3 grid centred on a piece. Its neighbour weights are distinct
powers of two, so convolving the occupancy of the player's pieces with a template
gives, at each piece, a number that says exactly which template neighbours are
occupied. The source notes draw three templates, with the piece's forward direction at
the top (the same orientation as :data:`GENERAL` below)::

    General          Pawn             Rook, Knight
     4   8  16        4   8  16        0   8   0
     2   X  32        2   X  32        2   X  32
     1 128  64        0 128   0        0 128   0

Kings, queens and bishops use General, pawns use Pawn, rooks and knights use
Rook-Knight. :func:`code_matrix` computes Y for every piece of a side, for any
number of boards at once, with one ``scipy.ndimage.correlate`` per template.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from iam.chunks.board import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK

__all__ = ["GENERAL", "PAWN_TEMPLATE", "ROOK_KNIGHT", "TEMPLATE_OF", "DIRECTION_BITS", "code_matrix", "decode"]

GENERAL = np.array([[4, 8, 16], [2, 0, 32], [1, 128, 64]], dtype=np.int32)
PAWN_TEMPLATE = np.array([[4, 8, 16], [2, 0, 32], [0, 128, 0]], dtype=np.int32)
ROOK_KNIGHT = np.array([[0, 8, 0], [2, 0, 32], [0, 128, 0]], dtype=np.int32)

TEMPLATE_OF = {
    PAWN: PAWN_TEMPLATE,
    KNIGHT: ROOK_KNIGHT,
    BISHOP: GENERAL,
    ROOK: ROOK_KNIGHT,
    QUEEN: GENERAL,
    KING: GENERAL,
}
"""Which template each piece type (board-matrix code) is convolved with."""

DIRECTION_BITS: dict[tuple[int, int], int] = {
    (+1, -1): 4, (+1, 0): 8, (+1, +1): 16,
    (0, -1): 2, (0, +1): 32,
    (-1, -1): 1, (-1, 0): 128, (-1, +1): 64,
}
"""Template weight of each neighbour offset ``(rows forward, files right)``."""

_TEMPLATES = (GENERAL, PAWN_TEMPLATE, ROOK_KNIGHT)


def _kernel(template: np.ndarray) -> np.ndarray:
    # Matrix row r+1 is "forward", which the drawing puts on top: flip it so that
    # weight[i, j] applies to the neighbour at offset (i - 1, j - 1).
    return np.flipud(template)


def code_matrix(planes: np.ndarray, *, neighbours: np.ndarray | None = None) -> np.ndarray:
    """The code matrix Y of the player's pieces.

    ``planes`` is one board matrix ``(8, 8)`` or a stack ``(N, 8, 8)`` from
    :mod:`iam.chunks.board`. Y holds, at each square with one of the player's pieces, the
    sum of the template weights of the occupied neighbours (occupied by the
    player's own pieces, or by ``neighbours`` if a boolean occupancy is given);
    every other square is 0.
    """
    planes = np.asarray(planes)
    occupied = (planes > 0) if neighbours is None else np.asarray(neighbours, dtype=bool)
    occupancy = occupied.astype(np.int32)
    shape = (1,) * (planes.ndim - 2) + (3, 3)
    convolved = {
        id(template): ndimage.correlate(occupancy, _kernel(template).reshape(shape), mode="constant", cval=0)
        for template in _TEMPLATES
    }
    codes = np.zeros(planes.shape, dtype=np.int32)
    for piece, template in TEMPLATE_OF.items():
        here = planes == piece
        codes[here] = convolved[id(template)][here]
    return codes


def decode(code: int) -> list[tuple[int, int]]:
    """The neighbour offsets a template code says are occupied (inverse of the weights)."""
    return [offset for offset, bit in DIRECTION_BITS.items() if code & bit]
