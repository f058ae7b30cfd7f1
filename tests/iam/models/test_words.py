"""Families and feature columns in a chess player's words: every one of the registry and the IAM model, each its own."""

from __future__ import annotations

import pytest

from iam.chunks.features import FEATURES
from iam.evidence.registry import FAMILIES, FAMILY_REGISTRY
from iam.models.words import FAMILY_WORDS, feature_words

COLUMNS = [column for family in FAMILIES for column in FAMILY_REGISTRY[family].columns]


def test_every_family_and_only_the_registrys_families_have_words():
    assert set(FAMILY_WORDS) == set(FAMILIES)
    assert all(words and words == words.strip() for words in FAMILY_WORDS.values())
    assert len(set(FAMILY_WORDS.values())) == len(FAMILY_WORDS)


def test_every_column_of_every_family_has_words_of_its_own():
    """No column falls back to its name, and no two columns read alike (a reader could not tell them apart)."""
    words = [feature_words(column) for column in COLUMNS]
    assert [column for column, said in zip(COLUMNS, words) if said == column] == []
    assert len(set(words)) == len(COLUMNS)


@pytest.mark.parametrize(
    "name, words",
    [
        ("piece_knight", "a knight move"),
        ("capture", "a capture"),
        ("search_best", "the search's choice"),
        ("value_loss", "what it loses by the value network's score"),
        ("engine_loss_under_100cp", "within a pawn of the engine's choice"),
        ("glance_rank", "its rank by the engine's first glance's score"),
        ("search_near_best_share", "how many moves are about as good, by the search"),
        ("residual_trees", "the population's correction trees"),
    ],
)
def test_known_columns_read_as_written(name, words):
    assert feature_words(name) == words


@pytest.mark.parametrize(
    "name",
    ["", "made_up", "search", "search_", "search_unknown", "policy_loss", "habits_best", "best", "engine_best_x",
     "Search_best"],
)
def test_a_name_without_words_is_shown_as_itself(name):
    """Only a known source with a known score is composed; anything else is the name, unchanged."""
    assert feature_words(name) == name


def test_each_score_source_composes_with_each_score():
    """The four sources of scores read differently for one score, and the score's words hold the source's."""
    for score in ("best", "loss", "rank", "best_gap"):
        said = {source: feature_words(f"{source}_{score}") for source in ("search", "value", "engine", "glance")}
        assert len(set(said.values())) == 4
        assert "the search" in said["search"] and "the value network" in said["value"]


def test_every_column_of_the_iam_models_belief_has_words_of_its_own():
    """The IAM model's learned belief reads in words too, and none of its columns reads like another of any model."""
    words = [feature_words(column) for column in FEATURES]
    assert [column for column, said in zip(FEATURES, words) if said == column] == []
    assert len(set(words) | {feature_words(column) for column in COLUMNS}) == len(set(FEATURES) | set(COLUMNS))
