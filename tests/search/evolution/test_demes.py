"""search.evolution.demes: demes as contiguous blocks, pairs within them, across them when migrating."""

import numpy as np
import pytest

from search.evolution.demes import deme_pairs, deme_slices, is_migration


def test_demes_are_contiguous_blocks_as_equal_as_they_can_be():
    assert deme_slices(10, 3) == [range(0, 3), range(3, 6), range(6, 10)]
    with pytest.raises(ValueError, match="demes of at least two"):
        deme_slices(5, 3)


def test_an_ordinary_generation_pairs_within_each_deme():
    groups = deme_pairs(12, 3, 0, np.random.default_rng(0), every=4)
    for members, pairs in zip(deme_slices(12, 3), groups):
        assert len(pairs) == 2 and all(a in members and b in members for a, b in pairs)


def test_a_migration_generation_pairs_each_deme_with_the_next_and_everyone_plays_once():
    assert [g for g in range(8) if is_migration(g, 3, 4)] == [3, 7]
    assert not is_migration(3, 1, 4) and not is_migration(3, 3, 0)
    groups = deme_pairs(12, 3, 3, np.random.default_rng(0), every=4)
    slices = deme_slices(12, 3)
    for d, pairs in enumerate(groups):
        assert len(pairs) == 2
        assert all(a in slices[d] and b in slices[(d + 1) % 3] for a, b in pairs)
    members = [i for pairs in groups for pair in pairs for i in pair]
    assert sorted(members) == list(range(12))
