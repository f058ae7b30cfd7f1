"""The registry of feature families: their names and order, their columns, what computes them, and their sets."""

from __future__ import annotations

import dataclasses

import pytest

from iam.evidence import compute
from iam.evidence.registry import (
    DEFAULT_FAMILIES,
    ENGINE_FAMILIES,
    FAMILIES,
    FAMILY_REGISTRY,
    QUICK_FAMILIES,
    family_columns,
    with_engine,
    without_engine,
)

SCORE_COLUMNS = (
    "best", "loss", "log_loss", "loss_under_30cp", "loss_under_100cp", "loss_over_300cp", "rank", "best_gap",
    "near_best_share",
)


def test_the_registry_lays_out_every_family_in_order():
    assert FAMILIES == ("move", "shape", "search", "value", "policy", "engine", "glance", "habits", "population")
    assert family_columns("search")[0] == "search_best" and family_columns("engine")[0] == "engine_best"
    assert family_columns("population")[-1] == "pattern_rate"
    with pytest.raises(ValueError, match="unknown feature family 'nope'"):
        family_columns("nope")


def test_the_score_families_share_one_layout_under_their_own_prefix():
    """search, value, engine and glance each lay out the nine score columns, prefixed by the family's name."""
    for family in ("search", "value", "engine", "glance"):
        assert family_columns(family) == tuple(f"{family}_{column}" for column in SCORE_COLUMNS)


def test_the_player_and_population_families_columns_are_known_by_name():
    assert family_columns("policy") == ("policy_log_belief", "policy_best", "policy_rank")
    assert family_columns("habits") == (
        "iam_belief", "iam_log_belief", "iam_top", "rote_share", "rote_top", "pattern_lift",
    )
    assert family_columns("population") == ("book_share", "book_log_games", "book_top", "pattern_rate")
    assert family_columns("move")[:2] == ("piece_pawn", "piece_knight") and "capture" in family_columns("move")
    assert family_columns("shape")[0] == "threat_gain"


def test_no_column_name_belongs_to_two_families():
    """A model's feature names are the concatenation of its families' columns, so they must never collide."""
    every = [column for family in FAMILIES for column in family_columns(family)]
    assert len(every) == len(set(every))


def test_each_family_is_computed_by_its_own_function():
    expected = {
        "move": compute.move_columns,
        "shape": compute.shape_columns,
        "search": compute.search_columns,
        "value": compute.value_columns,
        "policy": compute.policy_columns,
        "engine": compute.engine_columns,
        "glance": compute.glance_columns,
        "habits": compute.habit_columns,
        "population": compute.population_columns,
    }
    assert {name: family.compute for name, family in FAMILY_REGISTRY.items()} == expected
    assert all(family.name == name for name, family in FAMILY_REGISTRY.items())


def test_the_registry_and_its_families_cannot_be_changed_in_place():
    with pytest.raises(TypeError):
        FAMILY_REGISTRY["extra"] = FAMILY_REGISTRY["move"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        FAMILY_REGISTRY["move"].columns = ()  # type: ignore[misc]


def test_the_sets_of_families_are_in_canonical_order_and_nest():
    for subset in (DEFAULT_FAMILIES, QUICK_FAMILIES, ENGINE_FAMILIES):
        assert list(subset) == [family for family in FAMILIES if family in subset]
    assert set(QUICK_FAMILIES) < set(DEFAULT_FAMILIES)
    assert not set(ENGINE_FAMILIES) & set(DEFAULT_FAMILIES)
    assert set(DEFAULT_FAMILIES) | set(ENGINE_FAMILIES) == set(FAMILIES)
    assert "search" not in QUICK_FAMILIES and "value" not in QUICK_FAMILIES and "shape" not in QUICK_FAMILIES


def test_engine_families_are_added_and_removed_in_canonical_order():
    assert with_engine(("population", "move")) == ("move", "engine", "glance", "population")
    assert with_engine(DEFAULT_FAMILIES) == FAMILIES
    assert with_engine(()) == ENGINE_FAMILIES
    assert without_engine(("glance", "habits", "engine", "move")) == ("move", "habits")
    assert without_engine(FAMILIES) == DEFAULT_FAMILIES
    assert without_engine(("engine",)) == ()
    assert without_engine(("move", "psychic")) == ("move",)  # a name the registry does not know is dropped
