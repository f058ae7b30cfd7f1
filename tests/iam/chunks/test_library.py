"""The chunk library (iam.chunks.library): the placements of two small chunks counted by hand (mirror images, the
board's edges, pawns kept off the first and last ranks), the inverted index checked against a direct scan, and the
lookups of chunk codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from iam.chunks.board import KING, PAWN, ROOK
from iam.chunks.chunk import canonical, from_pattern
from iam.chunks.library import KEYS, ChunkLibrary
from iam.chunks.noise_filter import STAT_COLUMNS

ROOK_KING = int(canonical(from_pattern("RK"))[0])
"""A rook beside its king on one rank: two mirror images."""
PAWNS = from_pattern("P/P")
"""Two pawns on one file: its own mirror image."""


def _library(*codes: int) -> ChunkLibrary:
    table = pd.DataFrame(0, index=pd.Index(np.array(codes, dtype=np.int64), name="code"), columns=list(STAT_COLUMNS))
    table["size"] = 2
    return ChunkLibrary.from_table(table)


def test_every_placement_of_two_small_chunks():
    """A 1x2 chunk and its mirror fit at 7 columns of 8 ranks each (112 placements); two stacked pawns at 8 files of
    ranks 2-3 up to 6-7 (40 placements)."""
    library = _library(ROOK_KING, PAWNS)
    assert len(library) == 2
    assert library.variants.chunk.tolist() == [0, 1, 0]  # the rook-king chunk, the pawns, the rook-king mirrored
    assert len(library.placements) == 56 + 40 + 56
    pawns = np.flatnonzero(library.chunk_of(np.arange(len(library.placements))) == 1)
    squares, values = library.cells(pawns)
    bottom = sorted(int(row[row >= 0].min()) for row in squares)
    assert bottom == sorted(rank * 8 + file for rank in range(1, 6) for file in range(8))
    assert all((row[row >= 0] // 8).max() <= 6 for row in squares)  # never a pawn on the last rank
    assert (values[values != 0] == PAWN).all() and (library.placements.need[pawns] == 1).all()
    masks = library.placements.mask[pawns]
    assert all(int(mask) == sum(1 << int(s) for s in row if s >= 0) for mask, row in zip(masks, squares))
    rook_king = np.flatnonzero(library.chunk_of(np.arange(len(library.placements))) == 0)
    _, values = library.cells(rook_king)
    assert sorted({tuple(v[v != 0].tolist()) for v in values}) == sorted([(ROOK, KING), (KING, ROOK)])  # both ways


def test_the_inverted_index_lists_exactly_the_placements_holding_each_key():
    """For every (square, value) key, the placements under it are those with that value on that square."""
    library = _library(ROOK_KING, PAWNS)
    squares, values = library.cells(np.arange(len(library.placements)))
    for key in range(KEYS):
        square, value = divmod(key, 8)
        expected = np.flatnonzero(((squares == square) & (values == value)).any(axis=1))
        listed = library.by_key.rows[library.by_key.start[key] : library.by_key.start[key + 1]]
        assert sorted(listed.tolist()) == expected.tolist(), key
    e2, e3 = 12 * 8 + PAWN, 20 * 8 + PAWN
    assert library.by_key.start[e2 + 1] - library.by_key.start[e2] == 1  # e2 can only be the lower pawn
    assert library.by_key.start[e3 + 1] - library.by_key.start[e3] == 2


def test_codes_are_found_by_row_and_an_empty_or_bad_table_is_handled():
    """Each stored code maps to its row, other codes to -1; an empty library finds nothing; a table without the
    statistics columns is refused."""
    library = _library(PAWNS, ROOK_KING)
    assert library.rows_of(np.array([ROOK_KING, PAWNS, 12345, ROOK_KING])).tolist() == [1, 0, -1, 1]
    empty = _library()
    assert len(empty) == 0 and len(empty.placements) == 0
    assert empty.rows_of(np.array([PAWNS])).tolist() == [-1]
    with pytest.raises(ValueError, match="chunk table lacks columns"):
        ChunkLibrary.from_table(pd.DataFrame({"size": [2]}, index=[PAWNS]))
