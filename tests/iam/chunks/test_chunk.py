"""Chunk codes: packing, mirror symmetry, canonical form and the text patterns."""

from __future__ import annotations

import numpy as np
import pytest

from iam.chunks.chunk import (
    OPPONENT_PAWN,
    Chunk,
    box_shape,
    canonical,
    decode,
    encode,
    from_pattern,
    mirror,
    to_pattern,
)


def cells(rows: list[list[int]]) -> np.ndarray:
    grid = np.zeros((4, 4), dtype=np.int8)
    for r, row in enumerate(rows):
        grid[r, : len(row)] = row
    return grid


def test_encode_decode_round_trip():
    rng = np.random.default_rng(0)
    grids = rng.integers(0, 8, size=(50, 4, 4)).astype(np.int8)
    assert np.array_equal(decode(encode(grids)), grids)


def test_mirror_reverses_files_within_the_box():
    # near row: pawn, knight; far row: nothing, king -> width 2
    original = encode(cells([[1, 2], [0, 6]]))
    assert np.array_equal(decode(mirror(original)), cells([[2, 1], [6, 0]]))
    assert int(mirror(mirror(original))) == int(original)


def test_a_chunk_and_its_mirror_share_one_canonical_code():
    left = encode(cells([[1, 0, 0], [0, 1, 0], [0, 0, 4]]))
    right = encode(cells([[0, 0, 1], [0, 1, 0], [4, 0, 0]]))
    assert int(canonical(left)[0]) == int(canonical(right)[0])
    assert bool(canonical(left)[1]) != bool(canonical(right)[1])
    symmetric = encode(cells([[1, 1]]))
    assert int(canonical(symmetric)[0]) == int(symmetric) and not bool(canonical(symmetric)[1])


def test_box_shape():
    height, width = box_shape(decode(encode(cells([[1, 0, 0], [0, 0, 0], [0, 0, 5]]))))
    assert (int(height), int(width)) == (3, 3)


def test_patterns_read_far_row_first():
    code = int(encode(cells([[1, 0], [0, OPPONENT_PAWN]])))  # own pawn near-left, opposing pawn far-right
    assert to_pattern(code) == ".p/P."
    assert from_pattern(".p/P.") == code
    chunk = Chunk(code)
    assert chunk.size == 2 and not chunk.has_major_piece
    assert chunk.pieces() == [(0, 0, "P"), (1, 1, "p")]
    assert Chunk(from_pattern("PP/RK")).has_major_piece


@pytest.mark.parametrize("bad", ["", "PPPPP", "P/P/P/P/P", "X.", ".P/.P", "a/b"])
def test_malformed_patterns_are_rejected(bad):
    with pytest.raises(ValueError):
        from_pattern(bad)
