"""Chunks: small piece patterns, their integer codes and their canonical (symmetric) form.

A chunk is a set of pieces that fits in a 4x4 box, stored relative to the box's
corner (translation-free). Each of the 16 cells holds

    0       unspecified (a wildcard: anything may stand there)
    1..6    one of the player's pieces (pawn, knight, bishop, rook, queen, king)
    7       an opponent's pawn (pawn structures may include the pawns they touch)

and the chunk's *code* packs the cells into one integer, three bits per cell,
cell ``4 * row + col`` (row 0 nearest the player, col 0 leftmost). A chunk and its
mirror image (files reversed within the box) are one chunk: the *canonical* code
is the smaller of the two. Patterns are also written as text, far row first,
e.g. ``".P/P."``: two pawns on a diagonal, the nearer one on the left.

Everything here works on arrays of codes at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iam.chunks.board import QUEEN, ROOK

__all__ = [
    "BOX",
    "OPPONENT_PAWN",
    "encode",
    "decode",
    "box_shape",
    "mirror",
    "canonical",
    "to_pattern",
    "from_pattern",
    "Chunk",
]

BOX = 4
"""Chunks fit in a BOX x BOX grid (source note 001: "Proximity - 4x4 grid")."""
OPPONENT_PAWN = 7
_CELLS = BOX * BOX
_SHIFTS = (3 * np.arange(_CELLS, dtype=np.int64)).reshape(BOX, BOX)
_LETTERS = ".PNBRQKp"


def encode(cells: np.ndarray) -> np.ndarray:
    """Pack ``(..., 4, 4)`` cell values into ``(...)`` int64 codes."""
    return (np.asarray(cells, dtype=np.int64) << _SHIFTS).sum(axis=(-2, -1))


def decode(codes: np.ndarray | int) -> np.ndarray:
    """Unpack codes into ``(..., 4, 4)`` int8 cell values."""
    codes = np.asarray(codes, dtype=np.int64)
    return ((codes[..., None, None] >> _SHIFTS) & 7).astype(np.int8)


def box_shape(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Height and width of the occupied box of normalised ``(..., 4, 4)`` cells."""
    occupied = np.asarray(cells) != 0
    height = BOX - np.argmax(occupied.any(axis=-1)[..., ::-1], axis=-1)
    width = BOX - np.argmax(occupied.any(axis=-2)[..., ::-1], axis=-1)
    return height, width


def mirror(codes: np.ndarray | int) -> np.ndarray:
    """The codes of the mirror images (files reversed within each chunk's box)."""
    cells = decode(codes)
    _, width = box_shape(cells)
    source = np.asarray(width)[..., None] - 1 - np.arange(BOX)
    inside = source >= 0
    mirrored = np.take_along_axis(
        cells, np.broadcast_to(np.clip(source, 0, BOX - 1)[..., None, :], cells.shape), axis=-1
    )
    return encode(np.where(inside[..., None, :], mirrored, 0))


def canonical(codes: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """Canonical codes (the smaller of a chunk and its mirror) and whether each input was mirrored."""
    codes = np.asarray(codes, dtype=np.int64)
    mirrored = mirror(codes)
    return np.minimum(codes, mirrored), mirrored < codes


def to_pattern(code: int) -> str:
    """Text form of a chunk: rows far-to-near separated by '/', '.' for wildcards."""
    cells = decode(code)
    height, width = box_shape(cells)
    rows = ("".join(_LETTERS[value] for value in cells[row, :width]) for row in range(height - 1, -1, -1))
    return "/".join(rows)


def from_pattern(text: str) -> int:
    """Parse :func:`to_pattern`'s text back into a code (ValueError if malformed)."""
    rows = text.split("/")
    if not 1 <= len(rows) <= BOX or any(not 1 <= len(row) <= BOX for row in rows):
        raise ValueError(f"chunk pattern {text!r} does not fit a {BOX}x{BOX} box")
    cells = np.zeros((BOX, BOX), dtype=np.int8)
    for row, letters in enumerate(reversed(rows)):
        for col, letter in enumerate(letters):
            if letter not in _LETTERS:
                raise ValueError(f"chunk pattern {text!r} has an unknown piece letter {letter!r}")
            cells[row, col] = _LETTERS.index(letter)
    if not cells[0].any() or not cells[:, 0].any():
        raise ValueError(f"chunk pattern {text!r} is not aligned to its box corner")
    return int(encode(cells))


@dataclass(frozen=True)
class Chunk:
    """A readable view of one chunk code."""

    code: int

    @property
    def cells(self) -> np.ndarray:
        return decode(self.code)

    @property
    def pattern(self) -> str:
        return to_pattern(self.code)

    @property
    def size(self) -> int:
        """Number of pieces in the chunk."""
        return int(np.count_nonzero(self.cells))

    @property
    def has_major_piece(self) -> bool:
        return bool(np.isin(self.cells, (ROOK, QUEEN)).any())

    def pieces(self) -> list[tuple[int, int, str]]:
        """``(row, col, letter)`` of each piece, rows from the player's side."""
        cells = self.cells
        return [(int(r), int(c), _LETTERS[cells[r, c]]) for r, c in zip(*np.nonzero(cells))]
