"""The chunk library: the chunks that passed the noise filter, and an index of their placements.

The partial chunk finder asks, for a live board, which stored chunks are one
piece short of being on it. To answer that in about a millisecond the library
lays out every *placement* of every chunk (both mirror images, every translation
that fits on the board and keeps pawns off the first and last ranks) and keeps an
inverted index from each (square, piece) key to the placements that contain it.
Counting how many of a placement's cells a board already shows is then one
``bincount`` over the placements listed under the board's pieces.

A placement is stored as (variant, offset): the variant is a chunk in one mirror
orientation, the offset (``row * 8 + col`` of the box corner) says where it sits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iam.chunks.board import PAWN
from iam.chunks.chunk import BOX, OPPONENT_PAWN, decode, mirror
from iam.chunks.noise_filter import STAT_COLUMNS

__all__ = ["ChunkLibrary", "Variants", "Placements", "KeyIndex", "KEYS"]

KEYS = 64 * 8
"""Number of (square, cell value) keys: ``square * 8 + value``."""
_CELLS = BOX * BOX
_CELL_ROW, _CELL_COL = np.divmod(np.arange(_CELLS), BOX)


@dataclass(frozen=True)
class Variants:
    """The stored chunks in each mirror orientation (a variant), as cells of the box."""

    chunk: np.ndarray
    """Row in the library's table of each variant's chunk."""
    values: np.ndarray
    """The 16 cell values of each variant."""
    offsets: np.ndarray
    """Each cell's square offset from the box corner (-1 for wildcards)."""


@dataclass(frozen=True)
class Placements:
    """Every variant at every square where it fits: per placement ``p``, ``variant[p]``, ``offset[p]`` (square
    of the box corner), ``squares[p]`` (each cell's square, -1 for wildcards), ``need[p]`` (pieces it has, minus
    one) and ``mask[p]`` (its squares as a bitboard)."""

    variant: np.ndarray
    offset: np.ndarray
    squares: np.ndarray
    need: np.ndarray
    mask: np.ndarray

    def __len__(self) -> int:
        return len(self.variant)


@dataclass(frozen=True)
class KeyIndex:
    """The inverted index: the placements that hold each (square, cell value) key.

    Key ``k``'s placements are ``rows[start[k] : start[k + 1]]``.
    """

    start: np.ndarray
    rows: np.ndarray


@dataclass(frozen=True)
class ChunkLibrary:
    """Stored chunks (a statistics table indexed by canonical code) and their placement index.

    ``variants`` are the chunks in each mirror orientation, ``placements`` every variant
    where it fits on the board, and ``by_key`` the inverted index from (square, cell value)
    keys to the placements.
    """

    table: pd.DataFrame
    variants: Variants
    placements: Placements
    by_key: KeyIndex

    @classmethod
    def from_table(cls, table: pd.DataFrame) -> ChunkLibrary:
        """Build the placement index of the chunks in ``table`` (index: canonical codes)."""
        missing = set(STAT_COLUMNS) - set(table.columns)
        if missing:
            raise ValueError(f"chunk table lacks columns {sorted(missing)}")
        codes = table.index.to_numpy(dtype=np.int64)
        mirrored = mirror(codes)
        distinct = mirrored != codes
        variant_chunk = np.concatenate([np.arange(len(codes)), np.flatnonzero(distinct)]).astype(np.int32)
        values = decode(np.concatenate([codes, mirrored[distinct]])).reshape(-1, _CELLS)
        specified = values != 0
        offsets = np.where(specified, _CELL_ROW * 8 + _CELL_COL, -1).astype(np.int16)

        # Anchor ranges: the box stays on the board, pawns stay on ranks 2-7.
        height = np.where(specified, _CELL_ROW + 1, 0).max(axis=1)
        width = np.where(specified, _CELL_COL + 1, 0).max(axis=1)
        pawn_rows = np.where((values == PAWN) | (values == OPPONENT_PAWN), _CELL_ROW, -1)
        has_pawn = pawn_rows.max(axis=1) >= 0
        lowest_pawn = np.where(pawn_rows >= 0, pawn_rows, BOX).min(axis=1)
        first_row = np.where(has_pawn, np.maximum(0, 1 - lowest_pawn), 0)
        last_row = np.where(has_pawn, np.minimum(8 - height, 6 - pawn_rows.max(axis=1)), 8 - height)
        rows = np.maximum(last_row - first_row + 1, 0)
        across = 9 - width
        anchors = rows * across

        variant = np.repeat(np.arange(len(values), dtype=np.int32), anchors)
        local = np.arange(len(variant)) - np.repeat(np.cumsum(anchors) - anchors, anchors)
        row0, col0 = np.divmod(local, across[variant])
        offset = ((row0 + first_row[variant]) * 8 + col0).astype(np.int16)
        variant_mask = np.bitwise_or.reduce(
            np.where(specified, np.uint64(1) << np.maximum(offsets, 0).astype(np.uint64), np.uint64(0)), axis=1
        )

        # Inverted index: each specified cell of each placement under its key.
        cell_variant, cell = np.nonzero(specified)
        per_cell = anchors[cell_variant]
        entry_cell = np.repeat(np.arange(len(cell)), per_cell)
        placement_start = np.cumsum(anchors) - anchors
        entry_local = np.arange(len(entry_cell)) - np.repeat(np.cumsum(per_cell) - per_cell, per_cell)
        entry_placement = placement_start[cell_variant[entry_cell]] + entry_local
        keys = (offset[entry_placement] + offsets[cell_variant[entry_cell], cell[entry_cell]]) * 8 + values[
            cell_variant[entry_cell], cell[entry_cell]
        ]
        order = np.argsort(keys.astype(np.int16), kind="stable")  # a radix sort for 16-bit keys
        return cls(
            table=table,
            variants=Variants(chunk=variant_chunk, values=values.astype(np.int8), offsets=offsets),
            placements=Placements(
                variant=variant,
                offset=offset,
                squares=np.where(offsets[variant] >= 0, offsets[variant] + offset[:, None], -1).astype(np.int8),
                need=specified.sum(axis=1)[variant].astype(np.int64) - 1,
                mask=variant_mask[variant] << offset.astype(np.uint64),
            ),
            by_key=KeyIndex(
                start=np.searchsorted(keys[order], np.arange(KEYS + 1)).astype(np.int64),
                rows=entry_placement[order].astype(np.intp),
            ),
        )

    def __len__(self) -> int:
        """Number of stored chunks."""
        return len(self.table)

    def cells(self, placement: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Squares (-1 for wildcards) and values ``(len, 16)`` of the given placements."""
        return self.placements.squares[placement], self.variants.values[self.placements.variant[placement]]

    def rows_of(self, codes: np.ndarray) -> np.ndarray:
        """Row in ``table`` of each chunk code, -1 for codes not stored."""
        codes = np.asarray(codes, dtype=np.int64)
        stored = self.table.index.to_numpy(dtype=np.int64)
        if len(stored) == 0:
            return np.full(len(codes), -1, dtype=np.int64)
        order = np.argsort(stored)
        spot = np.minimum(np.searchsorted(stored[order], codes), len(stored) - 1)
        return np.where(stored[order][spot] == codes, order[spot], -1)

    def chunk_of(self, placement: np.ndarray) -> np.ndarray:
        """Row in ``table`` of the chunk of each placement."""
        return self.variants.chunk[self.placements.variant[placement]]
