"""Candidate rows from chunk proposals and the rote memory: every column hand-computed on a tiny library.

The library holds three chunks; the position has four proposals of two moves, one by a
chunk too rare to pass the filters, and the rote memory remembers one of those moves and
a third. The rule belief is a stand-in equal to each chunk's frequency, so that every
combined figure can be worked out on paper.
"""

from __future__ import annotations

import math

import chess
import numpy as np
import pandas as pd
import pytest

from iam.chunks.chunk import from_pattern
from iam.chunks.features import (
    COMPLETION_SMOOTHING,
    COUNT_COLUMNS,
    FEATURES,
    RULE_FEATURES,
    ChunkFacts,
    candidate_rows,
    eligible,
)
from iam.chunks.partial import Completions
from iam.chunks.rote import RoteEntry

E4, D4, NF3 = (chess.Move.from_uci(uci) for uci in ("e2e4", "d2d4", "g1f3"))


class FrequencyBelief:
    """A rule belief that is each chunk's frequency, the first rule quantity."""

    def chunk_belief(self, quantities: np.ndarray) -> np.ndarray:
        return quantities[:, RULE_FEATURES.index("frequency")].copy()


def _counts(**values) -> list[int]:
    return [values.get(name, 0) for name in COUNT_COLUMNS]


def _table(with_record: bool = True) -> pd.DataFrame:
    """A: three pawns, common and winning; B: rook and pawn, losing, met in the middlegame; C: a knight, rare."""
    rows = {
        from_pattern(".P/PP"): [3, *_counts(occurrences=10, games=5, formed=4, formed_games=3, won_games=3,
                                            lost_games=1, moves_1_10=6, moves_11_20=4)],
        from_pattern("R/P"): [2, *_counts(occurrences=4, games=4, formed=2, formed_games=2, lost_games=2,
                                          moves_11_20=4)],
        from_pattern("N"): [1, *_counts(occurrences=1, games=1, formed=1, formed_games=1, moves_1_10=1)],
    }
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["size", *COUNT_COLUMNS])
    if with_record:
        table["completed"] = [2, 0, 0]
        table["opportunities"] = [4, 4, 2]
    return table


def _facts(**changes) -> ChunkFacts:
    return ChunkFacts.from_table(_table(), **{"training_games": 10, "min_games": 2, "min_formed_games": 1, **changes})


def _completions() -> Completions:
    """p0: e4 by A; p1: d4 by B; p2: e4 by B, whose placement the last move broke; p3: d4 by C."""
    return Completions(
        moves=[E4, D4],
        move=np.array([0, 1, 0, 1]),
        placement=np.arange(4),
        chunk=np.array([0, 1, 1, 2]),
        dissolved=np.array([False, False, True, False]),
        legal_moves=20,
    )


def _column(rows, name: str) -> list[float]:
    return rows.features[:, FEATURES.index(name)].tolist()


def test_chunk_facts_read_the_table():
    """Sizes as given, major pieces from the decoded cells, counts in COUNT_COLUMNS order, the overall rate."""
    facts = _facts()
    assert facts.size.tolist() == [3.0, 2.0, 1.0] and facts.major.tolist() == [0.0, 1.0, 0.0]
    assert facts.counts.shape == (3, len(COUNT_COLUMNS)) and facts.counts.dtype == np.int64
    assert facts.counts[0, COUNT_COLUMNS.index("won_games")] == 3
    assert facts.completion_prior == pytest.approx(2 / 10)


def test_chunk_facts_without_a_completion_record_or_games():
    """Missing completion columns are zeros (overall rate 0); zero training games count as one."""
    facts = ChunkFacts.from_table(_table(with_record=False), training_games=0, min_games=2, min_formed_games=1)
    assert facts.completed.tolist() == [0, 0, 0] and facts.opportunities.tolist() == [0, 0, 0]
    assert facts.completion_prior == 0.0 and facts.training_games == 1


def test_eligible_applies_both_filters_with_or_without_a_games_own_counts():
    facts = _facts()
    counts, kept = eligible(_completions(), facts)
    assert kept.tolist() == [True, True, True, False]  # C is in one game only
    assert counts[:, COUNT_COLUMNS.index("games")].tolist() == [5, 4, 4, 1]
    own = np.zeros((4, len(COUNT_COLUMNS)), np.int64)
    own[[1, 2], COUNT_COLUMNS.index("formed_games")] = 2  # B was formed only in the left-out game
    own[0, COUNT_COLUMNS.index("games")] = 4  # A would be seen in one game only
    counts, kept = eligible(_completions(), facts, own)
    assert kept.tolist() == [False, False, False, False]
    assert counts[0, COUNT_COLUMNS.index("games")] == 1


def test_chunk_proposals_give_hand_computed_rows():
    """Two candidates; each figure by the strongest proposing chunk, dissolution by the weakest, beliefs combined."""
    rows = candidate_rows(_completions(), _facts(), None, move_number=15, rule_weights=FrequencyBelief())
    assert rows.moves == [E4, D4] and rows.features.shape == (2, len(FEATURES))
    assert rows.proposals.tolist() == [0, 2, 1] and rows.starts.tolist() == [0, 2]
    assert rows.sources(0).tolist() == [0, 2] and rows.sources(1).tolist() == [1] and rows.sources(5).tolist() == []
    rate_a = (2 + COMPLETION_SMOOTHING * 0.2) / (4 + COMPLETION_SMOOTHING)  # 1/3
    rate_b = (0 + COMPLETION_SMOOTHING * 0.2) / (4 + COMPLETION_SMOOTHING)  # 1/9
    expected = {
        "frequency": [0.5, 0.4],  # games / training games
        "size": [3, 2],
        "major": [1, 1],
        "temporal": [1.0, 1.0],  # move 15: the 11-20 bin; A 4/10, B 4/4
        "winning": [0.4, -0.5],  # (won - lost) / games
        "dissolved": [0, 0],  # e4 is also proposed by A, whose placement stands
        "formed_rate": [0.6, 0.5],
        "formed_log": [math.log1p(4), math.log1p(2)],
        "completion": [rate_a, rate_b],
        "chunks": [math.log1p(2), math.log1p(1)],
        "iam_score": [1 - 0.5 * 0.6, 0.4],
        "completion_any": [1 - (1 - rate_a) * (1 - rate_b), rate_b],
        "iam_gap": [0.0, 0.4 - 0.7],
        "iam_rank": [0.0, math.log1p(1)],
        "legal_moves": [math.log(20)] * 2,
        "candidates": [math.log(2)] * 2,
        "rote_share": [0, 0],
        "rote_games": [0, 0],
    }
    assert set(expected) == set(FEATURES)
    for name, values in expected.items():
        assert _column(rows, name) == pytest.approx(values), name
    assert rows.proposal_beliefs.tolist() == pytest.approx([0.5, 0.4, 0.4, 0.0])  # C filtered out: 0
    assert rows.proposal_completion.tolist() == pytest.approx([rate_a, rate_b, rate_b, 0.0])
    assert rows.proposal_quantities[2, RULE_FEATURES.index("dissolved")] == 1.0
    assert not rows.proposal_quantities[3].any()


def test_the_rote_memory_adds_its_shares_and_its_own_moves():
    """e4 chosen 3 times of 4, Nf3 once: Nf3 becomes a third candidate with no chunk figures."""
    rote = RoteEntry("key", {"e2e4": 3, "g1f3": 1})
    rows = candidate_rows(_completions(), _facts(), rote, move_number=15, rule_weights=FrequencyBelief())
    assert rows.moves == [E4, D4, NF3]
    assert _column(rows, "rote_share") == pytest.approx([0.75, 0.0, 0.25])
    assert _column(rows, "rote_games") == pytest.approx([math.log1p(4)] * 3)
    assert _column(rows, "candidates") == pytest.approx([math.log(3)] * 3)
    assert _column(rows, "iam_score")[2] == 0.0 and _column(rows, "iam_gap")[2] == pytest.approx(-0.7)
    assert _column(rows, "iam_rank") == pytest.approx([0.0, math.log1p(1), math.log1p(2)])
    assert rows.sources(2).tolist() == []


def test_a_rote_memory_of_fewer_games_than_min_games_is_ignored():
    rows = candidate_rows(_completions(), _facts(min_games=5), RoteEntry("key", {"g1f3": 4}), move_number=15,
                          rule_weights=FrequencyBelief())
    assert rows.moves == [E4] and _column(rows, "rote_games") == [0.0]  # B (4 games) falls below min_games too


def test_a_games_own_contribution_is_taken_out():
    """Leaving a game out: its chunk counts, its rote move and its completion record are removed."""
    own = np.zeros((4, len(COUNT_COLUMNS)), np.int64)
    own[:, COUNT_COLUMNS.index("games")] = [1, 0, 0, 0]  # A: 4 games without it
    own[[1, 2], COUNT_COLUMNS.index("formed_games")] = 2  # B never formed without it: filtered
    record = (np.array([1.0, 0, 0, 0]), np.array([1.0, 0, 0, 0]))
    rote = RoteEntry("key", {"e2e4": 3, "g1f3": 1})
    rows = candidate_rows(_completions(), _facts(), rote, move_number=15, rule_weights=FrequencyBelief(),
                          own_counts=own, own_rote_move="g1f3", own_completions=record)
    assert rows.moves == [E4] and rows.proposals.tolist() == [0]
    assert _column(rows, "frequency") == pytest.approx([4 / 9])  # 4 games of the 9 other training games
    assert _column(rows, "completion") == pytest.approx([(1 + COMPLETION_SMOOTHING * 0.2) / (3 + COMPLETION_SMOOTHING)])
    assert _column(rows, "rote_share") == pytest.approx([1.0]) and _column(rows, "rote_games") == pytest.approx(
        [math.log1p(3)]
    )
    assert _column(rows, "chunks") == pytest.approx([math.log1p(1)])


def test_the_opening_bin_and_a_position_with_no_candidates():
    """Move 5 reads the 1-10 bin; a position without proposals or rote moves has no rows."""
    rows = candidate_rows(_completions(), _facts(), None, move_number=5, rule_weights=FrequencyBelief())
    assert _column(rows, "temporal") == pytest.approx([0.6, 0.0])  # A: 6 of 10; B: never in moves 1-10
    empty = Completions(moves=[], move=np.zeros(0, np.int64), placement=np.zeros(0, np.int64),
                        chunk=np.zeros(0, np.int64), dissolved=np.zeros(0, bool), legal_moves=0)
    rows = candidate_rows(empty, _facts(), None, move_number=5, rule_weights=FrequencyBelief())
    assert rows.moves == [] and rows.features.shape == (0, len(FEATURES)) and rows.sources(0).tolist() == []
