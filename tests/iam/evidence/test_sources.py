"""The sources the evidence's families read: one frozen value, every source absent unless given."""

from __future__ import annotations

import dataclasses

import pytest

import iam.evidence.evidence as evidence_module
from iam.evidence.sources import EvidenceSources
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.population import PopulationBook


def test_the_sources_are_the_players_the_populations_and_the_networks_none_by_default():
    names = [field.name for field in dataclasses.fields(EvidenceSources)]
    assert names == ["iam", "book", "patterns", "own_patterns", "value_net", "policy_net"]
    assert all(getattr(EvidenceSources(), name) is None for name in names)


def test_the_sources_are_one_value_changed_only_by_replacing_it():
    """Fitting gives each fold its own sources by ``replace``: the original is left as it was."""
    book = PopulationBook({"A": {}})
    sources = EvidenceSources(book=book)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sources.book = PopulationBook()  # type: ignore[misc]
    own = PatternCounts()
    fold = dataclasses.replace(sources, own_patterns=own)
    assert fold.book is book and fold.own_patterns is own and sources.own_patterns is None
    patterns = MovePatterns()
    assert EvidenceSources(book=book, patterns=patterns) == EvidenceSources(book=book, patterns=patterns)
    assert EvidenceSources(book=book) != EvidenceSources(book=PopulationBook({"B": {}}))


def test_the_evidence_and_its_families_name_the_same_class():
    assert evidence_module.EvidenceSources is EvidenceSources
    assert evidence_module.Evidence(families=()).sources == EvidenceSources()
