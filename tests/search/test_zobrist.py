"""search.zobrist.ZobristKeys: XOR keys, seeded, odd (never zero) per feature, order-free."""

import itertools

import pytest

from search.zobrist import ZobristKeys


def test_key_of_nothing_is_zero_and_of_one_feature_is_odd():
    keys = ZobristKeys(16, seed=7)
    assert len(keys) == 16
    assert keys.key([]) == 0
    singles = [keys.key([i]) for i in range(16)]
    assert all(k % 2 == 1 and 0 < k < 2**64 for k in singles)
    assert len(set(singles)) == 16


def test_key_is_the_xor_of_its_features_and_ignores_order():
    keys = ZobristKeys(8, seed=3)
    a, b, c = keys.key([1]), keys.key([4]), keys.key([6])
    assert keys.key([1, 4, 6]) == a ^ b ^ c == keys.key([6, 1, 4])
    assert keys.key([4, 4]) == 0  # a feature twice cancels: XOR is its own inverse
    assert keys.key(iter([1, 6])) == a ^ c  # any iterable


def test_seed_determines_the_table():
    assert [ZobristKeys(5, seed=11).key([i]) for i in range(5)] == [ZobristKeys(5, seed=11).key([i]) for i in range(5)]
    assert ZobristKeys(5, seed=11).key([0]) != ZobristKeys(5, seed=12).key([0])


def test_subsets_of_a_small_table_get_distinct_keys():
    """All 2^10 subsets of ten features have different keys (a collision would be a bug here)."""
    keys = ZobristKeys(10, seed=0)
    subsets = [s for n in range(11) for s in itertools.combinations(range(10), n)]
    assert len({keys.key(s) for s in subsets}) == 1024


def test_refuses_an_empty_table_and_unknown_features():
    with pytest.raises(ValueError):
        ZobristKeys(0)
    with pytest.raises(IndexError):
        ZobristKeys(3).key([3])
