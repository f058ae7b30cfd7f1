"""The visual chunk collector: every valid chunk on a board, for many boards at once.

Source note 001's rules for a valid chunk, as implemented here:

* **proximity**: two of the player's pieces are linked when one lies in the other's
  template neighbourhood (the bits of the code matrix Y, :mod:`iam.chunks.template`);
* **continuation**: a piece and the piece it defends are linked (knight jumps and
  unblocked rook/bishop/queen lines; adjacent defence is already proximity);
* **similarity**: only the player's own pieces, except that an own pawn is linked
  to an opposing pawn in its pawn-template neighbourhood (pawn structure);
* the whole chunk fits in a 4x4 grid and holds at least two pieces.

A chunk is a group of pieces that is connected through these links inside some
4x4 window of the board and is not part of a larger such group. All 25 windows of
all boards are processed together: links become boolean arrays, and connected
groups are found by propagating the smallest cell label along links until
nothing changes, so the work is a fixed number of whole-array numpy operations.
Symmetry is applied by storing canonical codes (:mod:`iam.chunks.chunk`).

A chunk was *formed* by the move that led to the position when the move put a
piece on one of the chunk's squares.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import cast

import numpy as np

from iam.chunks.board import BISHOP, KNIGHT, PAWN, QUEEN, ROOK
from iam.chunks.chunk import BOX, OPPONENT_PAWN, canonical, encode
from iam.chunks.template import DIRECTION_BITS, code_matrix

__all__ = ["ChunkOccurrences", "collect", "chunks_on"]

_LINES = ((0, 1), (1, 0), (1, 1), (1, -1))
_KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2))
_PAD = BOX - 1
_WINDOWS = tuple((row, col) for row in range(8 - BOX + 1) for col in range(8 - BOX + 1))
_NO_LABEL = 127


@dataclass(frozen=True)
class ChunkOccurrences:
    """Every chunk found, one entry per chunk per board (parallel arrays)."""

    position: np.ndarray
    """Index of the board the chunk is on (int64)."""
    code: np.ndarray
    """Canonical chunk code (int64)."""
    squares: np.ndarray
    """The chunk's squares on its board, as a bitboard in board-matrix order (uint64)."""
    formed: np.ndarray
    """Whether the move into the position put a piece on the chunk (bool)."""

    def __len__(self) -> int:
        return len(self.code)

    def take(self, selection: np.ndarray) -> ChunkOccurrences:
        """The entries picked by a boolean mask or index array."""
        return ChunkOccurrences(
            self.position[selection], self.code[selection], self.squares[selection], self.formed[selection]
        )


def collect(planes: np.ndarray, *, moved_to: np.ndarray | None = None, batch_size: int = 2048) -> ChunkOccurrences:
    """All valid chunks of the boards ``planes`` (``(N, 8, 8)`` board matrices).

    ``moved_to`` optionally gives, per board, a bitboard (uint64, board-matrix
    order) of the squares the last move put a piece on; chunks touching them are
    marked as formed by that move.
    """
    planes = np.asarray(planes, dtype=np.int8).reshape(-1, 8, 8)
    moved_to = np.zeros(len(planes), dtype=np.uint64) if moved_to is None else np.asarray(moved_to, dtype=np.uint64)
    parts = []
    for start in range(0, len(planes), batch_size):
        position, squares = _components(planes[start : start + batch_size])
        parts.append((position + start, squares))
    position = np.concatenate([p for p, _ in parts] or [np.zeros(0, np.int64)])
    squares = np.concatenate([s for _, s in parts] or [np.zeros(0, np.uint64)])
    if len(position) == 0:
        return ChunkOccurrences(position, np.zeros(0, np.int64), squares, np.zeros(0, bool))
    cells = _box_cells(planes, position, squares)
    code, _ = canonical(encode(cells))
    formed = (squares & moved_to[position]) != 0
    return ChunkOccurrences(position, code, squares, formed)


def chunks_on(matrix: np.ndarray) -> list[tuple[int, int]]:
    """``(canonical code, squares bitboard)`` of every chunk on one board matrix."""
    found = collect(np.asarray(matrix)[None])
    return sorted(zip(found.code.tolist(), found.squares.tolist()))


# -- links ------------------------------------------------------------------------


def _shift(padded: np.ndarray, dr: int, dc: int) -> np.ndarray:
    """View of a padded (N, 8+2p, 8+2p) array where [r, c] holds the value at (r+dr, c+dc)."""
    return padded[:, _PAD + dr : _PAD + dr + 8, _PAD + dc : _PAD + dc + 8]


def _pad(array: np.ndarray) -> np.ndarray:
    return np.pad(array, ((0, 0), (_PAD, _PAD), (_PAD, _PAD)))


@cache
def _link_offsets() -> tuple[tuple[int, int], ...]:
    """Offsets of the undirected link types, in the order :func:`_links` stacks them."""
    slides = tuple((dr * n, dc * n) for n in (2, 3) for dr, dc in _LINES)
    return _LINES + _KNIGHT_JUMPS + slides


def _links(planes: np.ndarray) -> np.ndarray:
    """``(N, T, 8, 8)`` bools: the piece on [r, c] is linked to the one at [r, c] + offset T."""
    own = planes > 0
    opponent_pawn = planes == -PAWN
    codes = _pad(code_matrix(planes))
    pawn_codes = _pad(np.where(planes == PAWN, code_matrix(planes, neighbours=opponent_pawn), 0))
    own_p, empty_p = _pad(own), _pad(planes == 0)
    knights = _pad(planes == KNIGHT)
    straight = _pad((planes == ROOK) | (planes == QUEEN))
    diagonal = _pad((planes == BISHOP) | (planes == QUEEN))
    links = []
    for dr, dc in _LINES:  # proximity, including the pawn-structure exception
        bit, back = DIRECTION_BITS[dr, dc], DIRECTION_BITS[-dr, -dc]
        linked = (_shift(codes, 0, 0) & bit) | (_shift(codes, dr, dc) & back)
        linked |= (_shift(pawn_codes, 0, 0) & bit) | (_shift(pawn_codes, dr, dc) & back)
        links.append(linked != 0)
    for dr, dc in _KNIGHT_JUMPS:  # continuation: knights defending
        both = own & _shift(own_p, dr, dc)
        links.append(both & (_shift(knights, 0, 0) | _shift(knights, dr, dc)))
    for n in (2, 3):  # continuation: sliders defending along an open line
        for dr, dc in _LINES:
            sliders = straight if dr == 0 or dc == 0 else diagonal
            open_line = np.logical_and.reduce([_shift(empty_p, dr * m, dc * m) for m in range(1, n)])
            both = own & _shift(own_p, dr * n, dc * n)
            links.append(both & open_line & (_shift(sliders, 0, 0) | _shift(sliders, dr * n, dc * n)))
    return np.stack(links, axis=1)


@cache
def _window_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cell pairs inside a window and where their link is found.

    Returns local cells ``a`` and ``b`` per pair, the flat index into the
    ``(T, 8, 8)`` link stack for each (window, pair), and each window's 16 global
    squares.
    """
    cell_a, cell_b, link_type, cell_row, cell_col = [], [], [], [], []
    for t, (dr, dc) in enumerate(_link_offsets()):
        for i in range(BOX):
            for j in range(BOX):
                if 0 <= i + dr < BOX and 0 <= j + dc < BOX:
                    cell_a.append(i * BOX + j)
                    cell_b.append((i + dr) * BOX + (j + dc))
                    link_type.append(t)
                    cell_row.append(i)
                    cell_col.append(j)
    rows = np.array([r for r, _ in _WINDOWS])[:, None] + np.array(cell_row)[None]
    cols = np.array([c for _, c in _WINDOWS])[:, None] + np.array(cell_col)[None]
    flat = np.array(link_type)[None] * 64 + rows * 8 + cols
    local = np.arange(BOX * BOX)
    squares = (np.array([r for r, _ in _WINDOWS])[:, None] + local // BOX) * 8 + (
        np.array([c for _, c in _WINDOWS])[:, None] + local % BOX
    )
    return np.array(cell_a), np.array(cell_b), flat, squares


# -- connected groups inside windows ----------------------------------------------------


def _components(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Board index and squares bitboard of every chunk (maximal linked group) in a batch."""
    n = len(planes)
    cell_a, cell_b, flat_index, window_squares = _window_pairs()
    # Boards on the last axis: each (pair, window) gathers one contiguous row.
    links = np.ascontiguousarray(_links(planes).reshape(n, -1).T)  # (T * 64, n)
    pair_links = links[flat_index.T].reshape(len(cell_a), -1)  # (pairs, windows * n)
    chunkable = ((planes > 0) | (planes == -PAWN)).reshape(n, 64).T
    present = chunkable[window_squares.T].reshape(BOX * BOX, -1)  # (16, windows * n)
    labels = np.where(present, np.arange(BOX * BOX, dtype=np.int8)[:, None], np.int8(_NO_LABEL))
    labels = _propagate(labels, pair_links, cell_a, cell_b)
    # Each linked cell ORs its square into the group of its root (the smallest
    # cell of its group); groups of two or more pieces are chunk candidates.
    live = np.flatnonzero(pair_links.any(axis=0))
    labels = labels[:, live]
    # Group of (column, root): the sum of its cells' local bits 1 << cell (a 16-bit
    # mask, exact in the float weights of bincount) and its number of cells.
    key = np.arange(len(live)) * (BOX * BOX + 1) + np.minimum(labels, BOX * BOX)  # no piece -> spare root 16
    local_bits = np.broadcast_to((1 << np.arange(BOX * BOX))[:, None], key.shape)
    slots = len(live) * (BOX * BOX + 1)
    sizes = np.bincount(key.ravel(), minlength=slots)
    masks = np.bincount(key.ravel(), weights=local_bits.ravel(), minlength=slots)
    slot = np.flatnonzero(sizes >= 2)
    column, root = np.divmod(slot, BOX * BOX + 1)
    slot, column = slot[root < BOX * BOX], column[root < BOX * BOX]
    window_of, board_of = np.divmod(live[column], n)
    return _maximal(board_of.astype(np.int64), _to_board(masks[slot].astype(np.uint64), window_of))


def _to_board(local: np.ndarray, window: np.ndarray) -> np.ndarray:
    """Board bitboards of 16-bit window masks (bit ``4 * row + col`` of the window)."""
    corner = np.array([row * 8 + col for row, col in _WINDOWS], dtype=np.uint64)[window]
    squares = np.zeros(len(local), dtype=np.uint64)
    for row in range(BOX):
        squares |= ((local >> np.uint64(BOX * row)) & np.uint64(2**BOX - 1)) << (corner + np.uint64(8 * row))
    return squares


def _propagate(labels: np.ndarray, pair_links: np.ndarray, cell_a: np.ndarray, cell_b: np.ndarray) -> np.ndarray:
    """Give every linked cell the smallest label of its connected group.

    ``labels`` is ``(16, m)``, one column per window instance. Sweeps go
    alternately forwards and backwards through the pairs; a column that no sweep
    changed has converged and is dropped from the next sweep.
    """
    result = labels
    active = np.arange(labels.shape[1])
    labels, links = labels.copy(), pair_links
    order = np.argsort(cell_a, kind="stable")
    forward = True
    while len(active):
        before = labels.copy()
        smaller = np.empty(labels.shape[1], dtype=np.int8)
        used = cast(np.ndarray, links.any(axis=1))  # numpy's stubs allow a scalar even with an axis
        for p in order[used[order]] if forward else order[used[order]][::-1]:
            a, b = cell_a[p], cell_b[p]
            np.minimum(labels[a], labels[b], out=smaller)
            np.copyto(labels[a], smaller, where=links[p])
            np.copyto(labels[b], smaller, where=links[p])
        changed = (before != labels).any(axis=0)
        result[:, active] = labels
        active, labels, links = active[changed], labels[:, changed], links[:, changed]
        forward = not forward
    return result


def _maximal(board: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop duplicate groups and groups strictly inside another group of the same board."""
    order = np.lexsort((squares, board))
    board, squares = board[order], squares[order]
    keep = np.ones(len(board), dtype=bool)
    keep[1:] = (board[1:] != board[:-1]) | (squares[1:] != squares[:-1])
    board, squares = board[keep], squares[keep]

    starts = np.flatnonzero(np.r_[True, board[1:] != board[:-1]])
    counts = np.diff(np.r_[starts, len(board)])
    slot = np.arange(len(board)) - np.repeat(starts, counts)
    table = np.zeros((len(starts), counts.max(initial=1)), dtype=np.uint64)
    group_of = np.repeat(np.arange(len(starts)), counts)
    table[group_of, slot] = squares
    inside = ((squares[:, None] & table[group_of]) == squares[:, None]) & (table[group_of] != squares[:, None])
    maximal = ~inside.any(axis=1)
    return board[maximal], squares[maximal]


def _box_cells(planes: np.ndarray, board: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """``(K, 4, 4)`` chunk cells of each group, anchored at its bounding box corner."""
    k = len(board)
    bits = np.unpackbits(squares.astype("<u8").view(np.uint8).reshape(k, 8), axis=1, bitorder="little").astype(bool)
    grid = bits.reshape(k, 8, 8)
    first_row = np.argmax(grid.any(axis=2), axis=1)
    first_col = np.argmax(grid.any(axis=1), axis=1)
    rows = first_row[:, None] + np.arange(BOX)
    cols = first_col[:, None] + np.arange(BOX)
    valid = (rows < 8)[:, :, None] & (cols < 8)[:, None, :]
    square = np.minimum(rows, 7)[:, :, None] * 8 + np.minimum(cols, 7)[:, None, :]
    in_group = np.take_along_axis(bits, square.reshape(k, -1), axis=1).reshape(k, BOX, BOX) & valid
    pieces = planes.reshape(len(planes), 64)[board[:, None], square.reshape(k, -1)].reshape(k, BOX, BOX)
    values = np.where(pieces == -PAWN, OPPONENT_PAWN, pieces)
    return np.where(in_group, values, 0).astype(np.int8)
