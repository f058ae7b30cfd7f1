"""search.result: Limits validation at the boundaries, SearchResult's defaults and frozen values."""

import dataclasses

import pytest

from search.result import MAX_PLY, Limits, SearchResult


def test_limits_accept_their_smallest_values_and_none():
    assert Limits() == Limits(depth=None, nodes=None, time=None)
    limits = Limits(depth=1, nodes=1, time=0.0)
    assert (limits.depth, limits.nodes, limits.time) == (1, 1, 0.0)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [("depth", 0, "depth limit"), ("nodes", -5, "node limit"), ("time", -0.001, "time limit")],
)
def test_limits_refuse_values_below_their_minimum(field, value, words):
    with pytest.raises(ValueError, match=words):
        Limits(**{field: value})


def test_limits_and_results_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits(depth=2).depth = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        SearchResult(value=0.0, move=None).value = 1.0


def test_total_nodes_adds_main_search_and_quiescence():
    result = SearchResult(value=1.5, move="a", pv=("a", "b"), nodes=120, qnodes=35)
    assert result.total_nodes == 155
    bare = SearchResult(value=(1, 2), move=None)
    assert (bare.pv, bare.nodes, bare.qnodes, bare.cutoffs, bare.tt_hits, bare.depth, bare.seconds) == (
        (), 0, 0, 0, 0, 0, 0.0
    )
    assert bare.total_nodes == 0


def test_max_ply_is_a_positive_bound():
    assert isinstance(MAX_PLY, int) and MAX_PLY >= 64
