"""Evidence: the registry of families, and the evidence of a player from sources that never saw him."""

from __future__ import annotations

import chess
import numpy as np
import pytest

import iam.evidence.evidence as evidence_module
from iam.evidence.compute import population_columns
from iam.evidence.evidence import Evidence, EvidenceSources, player_evidence
from iam.evidence.movefeatures import move_features
from iam.evidence.registry import DEFAULT_FAMILIES, FAMILIES, FAMILY_REGISTRY, QUICK_FAMILIES, Family, family_columns
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.policynet import require_policy_net
from iam.priors.population import bundled_prior
from iam.priors.positions import position_of

MASTERS = {"Botvinnik", "Capablanca", "Alekhine", "Lasker", "Smyslov", "Spassky"}


def _position():
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"):
        board.push_san(san)
    return position_of(board)


def test_the_registry_lays_out_every_family_in_order():
    assert FAMILIES == ("move", "shape", "search", "value", "policy", "engine", "glance", "habits", "population")
    assert family_columns("search")[0] == "search_best" and family_columns("engine")[0] == "engine_best"
    assert family_columns("population")[-1] == "pattern_rate"
    with pytest.raises(ValueError, match="unknown feature family 'nope'"):
        family_columns("nope")


def test_a_new_family_is_one_registry_entry():
    """A family added to the registry gets its columns laid out and computed, beside the others."""
    doubled = Family(
        "doubled", ("double_capture",), lambda evidence, position, found: {"double_capture": 2 * found["capture"]}
    )
    registry = {**FAMILY_REGISTRY, "doubled": doubled}
    evidence = Evidence(families=("move", "doubled"), registry=registry)
    position = _position()
    matrix = evidence.matrix(position)
    assert evidence.columns == (*family_columns("move"), "double_capture")
    capture = move_features(position)["capture"]
    assert capture.sum() == 3  # Bxa6, Bxc6 and Nxe5
    np.testing.assert_array_equal(matrix[:, -1], 2 * capture)


def test_a_family_computes_its_columns_from_any_context():
    """A family's computation reads its context's public sources only: a stand-in context will do."""

    class Context:
        sources = EvidenceSources()

        def population_patterns(self) -> MovePatterns:
            return MovePatterns()

    position = _position()
    found = population_columns(Context(), position, {})
    assert tuple(found) == family_columns("population")
    expected = Evidence(families=("population",)).features(position)
    for name in found:
        np.testing.assert_array_equal(found[name], expected[name])


def test_player_evidence_never_saw_the_player():
    prior = bundled_prior()
    evidence = player_evidence("Lasker, Emanuel", ("move", "policy", "population"), prior, search_depth=1)
    assert set(prior.book.masters) == MASTERS
    assert set(evidence.sources.book.masters) == MASTERS - {"Lasker"}
    without, net = require_policy_net("Lasker")
    assert without == "Lasker" and evidence.sources.policy_net is net
    expected = sum((prior.patterns.masters[name] for name in MASTERS - {"Lasker"}), PatternCounts())
    np.testing.assert_array_equal(evidence.sources.patterns.pooled.played, expected.played)


def test_player_evidence_without_a_population_is_empty_not_missing():
    evidence = player_evidence("Nobody", ("move", "population"), None, search_depth=1)
    sources = evidence.sources
    assert sources.book.masters == {} and sources.policy_net is None and sources.value_net is None
    assert evidence.matrix(_position()).shape == (len(_position().moves), len(evidence.columns))


def test_the_quick_families_search_nothing(monkeypatch):
    """The quick ranker's evidence scores a position without the search; the default's searches it once."""
    calls = []
    real = evidence_module.score_root_moves
    monkeypatch.setattr(
        evidence_module, "score_root_moves", lambda board, depth: calls.append(depth) or real(board, depth)
    )
    prior = bundled_prior()
    quick = player_evidence("Lasker, Emanuel", QUICK_FAMILIES, prior, search_depth=1)
    matrix = quick.matrix(_position())
    assert calls == [] and matrix.shape == (len(list(_position().board.legal_moves)), len(quick.columns))
    assert set(QUICK_FAMILIES) < set(DEFAULT_FAMILIES)
    player_evidence("Lasker, Emanuel", DEFAULT_FAMILIES, prior, search_depth=1).matrix(_position())
    assert calls == [1]
