"""The noise filter and chunk statistics on hand-made occurrences with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from iam.chunks.chunk import from_pattern
from iam.chunks.collector import ChunkOccurrences
from iam.chunks.noise_filter import RESULT_CODES, PositionInfo, chunk_statistics, move_bin, noise_filter

A, B = from_pattern("PP"), from_pattern("P/K")


@pytest.fixture()
def statistics():
    # boards: 0,1 in game 0 (White, won, moves 5 and 12); 2 in game 1 (Black, lost, move 45)
    positions = PositionInfo(
        game=np.array([0, 0, 1]),
        white=np.array([True, True, False]),
        move_number=np.array([5, 12, 45]),
        result=np.array([RESULT_CODES["win"], RESULT_CODES["win"], RESULT_CODES["loss"]], dtype=np.int8),
    )
    occurrences = ChunkOccurrences(
        position=np.array([0, 1, 2, 0, 1]),
        code=np.array([A, A, A, B, B]),
        squares=np.zeros(5, dtype=np.uint64),
        formed=np.array([True, False, True, False, False]),
    )
    return chunk_statistics(occurrences, positions)


def test_counts_per_chunk(statistics):
    a = statistics.loc[A]
    assert (a["size"], a["occurrences"], a["games"], a["formed"], a["formed_games"]) == (2, 3, 2, 2, 2)
    assert (a["white_games"], a["black_games"], a["won_games"], a["lost_games"], a["drawn_games"]) == (1, 1, 1, 1, 0)
    assert (a["moves_1_10"], a["moves_11_20"], a["moves_41_60"]) == (1, 1, 1)
    b = statistics.loc[B]
    assert (b["occurrences"], b["games"], b["formed"], b["formed_games"]) == (2, 1, 0, 0)


def test_filter_keeps_chunks_of_several_games(statistics):
    assert list(noise_filter(statistics, min_games=2).index) == [A]
    assert set(noise_filter(statistics, min_games=1).index) == {A, B}
    with pytest.raises(ValueError):
        noise_filter(statistics, min_games=0)


def test_move_bins():
    assert move_bin(np.array([1, 10, 11, 40, 41, 60, 61, 200])).tolist() == [0, 0, 1, 3, 4, 4, 5, 5]
