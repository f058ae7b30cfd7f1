"""The transposition table keeps bounds that never cross and prefers deeper results."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from search import Bound, TranspositionTable, ZobristKeys
from search.games import TicTacToe

stores = st.lists(
    st.tuples(
        st.integers(0, 3),  # key
        st.integers(0, 4),  # depth
        st.integers(-50, 50),  # value
        st.sampled_from(list(Bound)),
        st.sampled_from([None, "a", "b"]),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(stores)
def test_bounds_never_cross(operations):
    table = TranspositionTable()
    for key, depth, value, bound, action in operations:
        table.store(key, depth=depth, value=value, bound=bound, action=action)
        entry = table.probe(key)
        assert entry.lower <= entry.upper
        assert entry.depth >= depth
        if entry.depth == depth and bound is not Bound.UPPER:
            assert entry.lower >= value
        if entry.depth == depth and bound is not Bound.LOWER:
            assert entry.upper <= value


def test_bounds_tighten_at_equal_depth_and_reset_on_contradiction():
    table = TranspositionTable()
    table.store("p", depth=3, value=10, bound=Bound.LOWER, action="a")
    table.store("p", depth=3, value=20, bound=Bound.UPPER, action=None)
    entry = table.probe("p")
    assert (entry.lower, entry.upper, entry.action) == (10, 20, "a")
    table.store("p", depth=3, value=5, bound=Bound.UPPER, action=None)  # contradicts lower 10
    entry = table.probe("p")
    assert (entry.lower, entry.upper) == (-math.inf, 5)


def test_deeper_results_win():
    table = TranspositionTable()
    table.store("p", depth=5, value=1, bound=Bound.EXACT, action="deep")
    table.store("p", depth=2, value=9, bound=Bound.EXACT, action="shallow")
    entry = table.probe("p")
    assert (entry.depth, entry.lower, entry.action) == (5, 1, "deep")
    table.store("p", depth=6, value=-3, bound=Bound.EXACT, action=None)
    entry = table.probe("p")
    assert (entry.depth, entry.lower, entry.upper, entry.action) == (6, -3, -3, "deep")


def test_capacity_evicts_the_oldest_entry():
    table = TranspositionTable(capacity=2)
    for key in "abc":
        table.store(key, depth=1, value=0, bound=Bound.EXACT, action=None)
    assert len(table) == 2
    assert table.probe("a") is None and table.probe("c") is not None
    # Long after filling up, it still holds exactly the newest entries; updating an
    # entry does not make it younger.
    table = TranspositionTable(capacity=10)
    for key in range(1000):
        table.store(key, depth=1, value=key, bound=Bound.EXACT, action=None)
    table.store(990, depth=2, value=-1, bound=Bound.EXACT, action=None)
    table.store(1000, depth=1, value=0, bound=Bound.EXACT, action=None)
    assert [key for key, _ in table] == list(range(991, 1001))
    with pytest.raises(ValueError):
        TranspositionTable(capacity=0)


def test_zobrist_keys_are_seeded_and_distinguish_tictactoe_states():
    assert ZobristKeys(18, seed=1).key([3, 5]) == ZobristKeys(18, seed=1).key([5, 3])
    assert ZobristKeys(18, seed=1).key([3]) != ZobristKeys(18, seed=2).key([3])
    game = TicTacToe()
    seen, frontier, keys = set(), [game.initial_state()], set()
    while frontier:
        state = frontier.pop()
        if state in seen:
            continue
        seen.add(state)
        keys.add(game.key(state))
        frontier.extend(game.result(state, a) for a in game.actions(state))
    assert len(keys) == len(seen) == 5478
