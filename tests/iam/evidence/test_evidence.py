"""The evidence of one model: its columns laid out by the registry, the sources it reads and opens, and the
evidence of a player from sources that never saw him."""

from __future__ import annotations

import dataclasses

import chess
import numpy as np
import pytest

import iam.evidence.evidence as evidence_module
from iam.evidence.evidence import Evidence, EvidenceSources, OpenedSources, player_evidence
from iam.evidence.movefeatures import move_features
from iam.evidence.registry import DEFAULT_FAMILIES, FAMILY_REGISTRY, QUICK_FAMILIES, Family, family_columns
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


def test_the_columns_follow_the_evidences_families_in_its_order():
    evidence = Evidence(families=("population", "move"))
    assert evidence.columns == (*family_columns("population"), *family_columns("move"))
    position = _position()
    matrix = evidence.matrix(position)
    assert matrix.shape == (len(position.moves), len(evidence.columns))
    features = evidence.features(position)
    for number, name in enumerate(evidence.columns):
        np.testing.assert_array_equal(matrix[:, number], features[name])


def test_a_position_without_legal_moves_has_no_rows_but_every_column():
    mated = position_of(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
    assert mated.moves == ()
    evidence = Evidence(families=("move", "population"))
    assert evidence.matrix(mated).shape == (0, len(evidence.columns))


def test_features_of_some_families_and_the_columns_known_already():
    """``families`` picks the families computed; ``known`` columns are read by the others and not returned."""
    position = _position()
    evidence = Evidence(families=("move", "population"))
    assert tuple(evidence.features(position, ["population"])) == family_columns("population")
    seen = []
    reader = Family("reader", ("seen",), lambda context, pos, found: seen.append(found["capture"]) or {"seen": 0})
    evidence = Evidence(families=("reader",), registry={**FAMILY_REGISTRY, "reader": reader})
    capture = np.arange(len(position.moves), dtype=np.float64)
    assert evidence.features(position, known={"capture": capture}) == {"seen": 0}
    assert seen[0] is capture
    with pytest.raises(ValueError, match="unknown feature family 'psychic'"):
        evidence.features(position, ["psychic"])


def test_matrices_are_each_positions_matrix_through_the_progress_wrapper():
    positions = [_position(), position_of(chess.Board())]
    wrapped = []
    evidence = Evidence(families=("move",))
    matrices = evidence.matrices(positions, progress=lambda items: wrapped.append(len(items)) or iter(items))
    assert wrapped == [2] and [m.shape[0] for m in matrices] == [len(p.moves) for p in positions]
    np.testing.assert_array_equal(matrices[1], evidence.matrix(positions[1]))


def test_the_sources_a_family_needs_are_refused_by_name_when_missing():
    evidence = Evidence(families=("policy", "engine", "glance"))
    with pytest.raises(ValueError, match="policy family needs a policy network"):
        evidence.policy_network()
    with pytest.raises(ValueError, match="engine family needs an engine"):
        evidence.engine_scores(_position())
    with pytest.raises(ValueError, match="glance family needs an engine"):
        evidence.glance_scores(_position())


def test_the_networks_are_the_ones_given_or_the_shipped_value_network():
    _, policy = require_policy_net(None)
    evidence = Evidence(families=(), sources=EvidenceSources(policy_net=policy))
    assert evidence.policy_network() is policy
    assert evidence.value_network() is evidence_module.require_value_net()
    other = object()
    assert Evidence(families=(), sources=EvidenceSources(value_net=other)).value_network() is other


def test_population_patterns_are_the_ones_given_or_one_empty_set_kept():
    given = MovePatterns({"A": PatternCounts()})
    assert Evidence(families=(), sources=EvidenceSources(patterns=given)).population_patterns() is given
    evidence = Evidence(families=())
    empty = evidence.population_patterns()
    assert empty.masters == {} and evidence.population_patterns() is empty and evidence.opened.patterns is empty


def test_the_pattern_lift_is_zero_without_own_counts_and_his_rate_against_the_population_with_them():
    assert not Evidence(families=()).pattern_lift().any()
    own = PatternCounts()
    own.legal[12515] = 90  # never chose it in 90 chances; the empty population's rate of every pattern is 1
    evidence = Evidence(families=(), sources=EvidenceSources(own_patterns=own))
    lift = evidence.pattern_lift()
    assert lift[12515] == pytest.approx(np.log(10 / 100))
    assert np.count_nonzero(lift) == 1 and evidence.pattern_lift() is lift


def test_search_scores_come_from_the_shared_cache_then_the_stored_file_then_the_search(monkeypatch, tmp_path):
    calls = []
    real = evidence_module.score_root_moves
    monkeypatch.setattr(
        evidence_module, "score_root_moves", lambda board, depth: calls.append(depth) or real(board, depth)
    )
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    position = position_of(board)
    searched = Evidence(families=("search",), search_depth=1).search_scores(position)
    assert calls == [1] and max(searched, key=searched.get) == chess.Move.from_uci("d1d5")

    class Shared:
        def scores(self, board, depth):
            return {"shared": depth}

    shared = Evidence(families=("search",), search_depth=2, search_cache=str(tmp_path / "unused.sqlite"))
    shared.root_scores = Shared()
    assert shared.search_scores(position) == {"shared": 2} and shared.opened.stored_scores is None
    stored = Evidence(families=("search",), search_depth=1, search_cache=str(tmp_path / "scores.sqlite"))
    assert stored.search_scores(position) == searched
    assert stored.search_scores(position) == searched
    assert (stored.opened.stored_scores.misses, stored.opened.stored_scores.hits) == (1, 1)
    stored.close()


def test_closing_stops_what_was_opened_and_a_copy_opens_its_own():
    class Analyser:
        def __init__(self):
            self.closed = 0

        def close(self):
            self.closed += 1

    engine, glance = Analyser(), Analyser()
    evidence = Evidence(families=("engine", "glance"))
    evidence.opened = OpenedSources(engine_analyser=engine, glance_analyser=glance)
    copy = dataclasses.replace(evidence)
    assert copy.opened is not evidence.opened and copy.opened.engine_analyser is None
    evidence.close()
    evidence.close()  # closing twice stops each engine once
    assert (engine.closed, glance.closed) == (1, 1)
    assert evidence.opened.engine_analyser is None and evidence.opened.glance_analyser is None
