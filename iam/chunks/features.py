"""Candidate-move features: what the chunks and the rote memory say about each move.

The partial chunk finder proposes (chunk, move) pairs; the rote memory proposes
moves it remembers. This module turns them into one row of numbers per candidate
move, the input of every belief (:mod:`iam.chunks.belief`). The per-chunk quantities are
source note 001's heuristics (frequency, large patterns, major pieces, temporal
similarity, winning patterns, a just-dissolved pattern) plus, beyond IAM, each
chunk's *completion rate*: how often the player completed the chunk when a move
could complete it, measured on training positions and smoothed towards the
overall rate.

Chunk statistics enter as raw counts so that a training position can see them
*without its own game* (leave-one-game-out): subtracting the game's contribution
gives exactly the counts a library built without that game would hold, and a
chunk that would not have passed the noise filter without it is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import chess
import numpy as np
import pandas as pd

from iam.chunks.board import QUEEN, ROOK
from iam.chunks.chunk import BOX, decode
from iam.chunks.noise_filter import STAT_COLUMNS, move_bin, passes_filters
from iam.chunks.partial import Completions
from iam.chunks.rote import RoteEntry

__all__ = [
    "FEATURES",
    "RULE_FEATURES",
    "COUNT_COLUMNS",
    "COMPLETION_SMOOTHING",
    "ChunkFacts",
    "CandidateRows",
    "eligible",
    "candidate_rows",
]

COUNT_COLUMNS = STAT_COLUMNS[1:]
"""Count columns of the chunk statistics (everything but the constant ``size``)."""
_COLUMN = {name: i for i, name in enumerate(COUNT_COLUMNS)}
_BIN_COLUMNS = [i for name, i in _COLUMN.items() if name.startswith("moves_")]

COMPLETION_SMOOTHING = 5.0
"""Pseudo-opportunities at the overall completion rate added to every chunk's own record."""

RULE_FEATURES = ("frequency", "size", "major", "temporal", "winning", "dissolved")
"""Per-chunk quantities the source notes' heuristics use, in this order."""

FEATURES = (
    "iam_score",
    "iam_gap",
    "iam_rank",
    "chunks",
    "frequency",
    "formed_rate",
    "formed_log",
    "size",
    "major",
    "temporal",
    "winning",
    "dissolved",
    "completion",
    "completion_any",
    "rote_share",
    "rote_games",
    "legal_moves",
    "candidates",
)
"""Columns of a candidate row, in order."""
_F = {name: i for i, name in enumerate(FEATURES)}
_DISSOLVED = RULE_FEATURES.index("dissolved")


@dataclass(frozen=True)
class ChunkFacts:
    """Per-chunk constants and counts, aligned with the library table's rows."""

    size: np.ndarray
    major: np.ndarray
    counts: np.ndarray
    """``(chunks, len(COUNT_COLUMNS))`` int64."""
    completed: np.ndarray
    """Training proposals of the chunk whose move was the move played."""
    opportunities: np.ndarray
    """Training proposals of the chunk (a move could complete it)."""
    completion_prior: float
    training_games: int
    min_games: int
    min_formed_games: int

    @classmethod
    def from_table(
        cls, table: pd.DataFrame, *, training_games: int, min_games: int, min_formed_games: int
    ) -> ChunkFacts:
        cells = decode(table.index.to_numpy(dtype=np.int64)).reshape(len(table), BOX * BOX)
        completed = table["completed"].to_numpy(np.int64) if "completed" in table else np.zeros(len(table), np.int64)
        opportunities = (
            table["opportunities"].to_numpy(np.int64) if "opportunities" in table else np.zeros(len(table), np.int64)
        )
        total = opportunities.sum()
        return cls(
            size=table["size"].to_numpy(dtype=np.float64),
            major=cast(np.ndarray, np.isin(cells, (ROOK, QUEEN)).any(axis=1)).astype(np.float64),
            counts=table[list(COUNT_COLUMNS)].to_numpy(dtype=np.int64),
            completed=completed,
            opportunities=opportunities,
            completion_prior=float(completed.sum() / total) if total else 0.0,
            training_games=max(int(training_games), 1),
            min_games=min_games,
            min_formed_games=min_formed_games,
        )


@dataclass(frozen=True)
class CandidateRows:
    """Feature rows of one position's candidate moves (parallel to ``moves``)."""

    moves: list[chess.Move]
    features: np.ndarray
    """``(len(moves), len(FEATURES))`` float64."""
    proposals: np.ndarray
    """Indices (into the completions) of the proposals that count, grouped by move."""
    starts: np.ndarray
    """Where each candidate's proposals begin in ``proposals`` (rote-only moves: none)."""
    completions: Completions
    """The finder's proposals the rows were built from."""
    proposal_quantities: np.ndarray
    """``(len(completions), len(RULE_FEATURES))`` heuristic inputs per proposal (0 where filtered out)."""
    proposal_beliefs: np.ndarray
    """The source notes' rule belief of every proposal (0 where filtered out)."""
    proposal_completion: np.ndarray
    """Smoothed completion rate of every proposal's chunk (0 where filtered out)."""

    def sources(self, candidate: int) -> np.ndarray:
        """Proposal indices supporting one candidate move."""
        if candidate >= len(self.starts):
            return self.proposals[:0]
        end = self.starts[candidate + 1] if candidate + 1 < len(self.starts) else len(self.proposals)
        return self.proposals[self.starts[candidate] : end]


def eligible(
    completions: Completions, facts: ChunkFacts, own_counts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Count rows of the proposals' chunks and which proposals pass the filters.

    With ``own_counts`` (a game's own contribution) the counts are those of a
    library built without that game.
    """
    counts = facts.counts[completions.chunk]
    if own_counts is not None:
        counts = counts - own_counts
    kept = passes_filters(
        counts[:, _COLUMN["games"]],
        counts[:, _COLUMN["formed_games"]],
        min_games=facts.min_games,
        min_formed_games=facts.min_formed_games,
    )
    return counts, kept


def candidate_rows(
    completions: Completions,
    facts: ChunkFacts,
    rote: RoteEntry | None,
    *,
    move_number: int,
    rule_weights,
    own_counts: np.ndarray | None = None,
    own_rote_move: str | None = None,
    own_completions: tuple[np.ndarray, np.ndarray] | None = None,
) -> CandidateRows:
    """Feature rows for every move proposed by a chunk or by the rote memory.

    The ``own_*`` arguments remove the predicted game's own contribution when
    building training rows: its chunk counts, its move in the rote memory, and
    its (completed, opportunities) per proposal in the completion record.
    """
    counts, kept = eligible(completions, facts, own_counts)
    games_total = facts.training_games - (own_counts is not None)
    rote_counts, rote_total = _rote_counts(rote, own_rote_move, facts.min_games)

    # Proposals that count, in move order: every per-move figure is one reduceat.
    proposal = np.flatnonzero(kept)
    proposal = proposal[np.argsort(completions.move[proposal], kind="stable")]
    proposed_move = completions.move[proposal]
    starts = np.flatnonzero(np.r_[True, proposed_move[1:] != proposed_move[:-1]]) if len(proposal) else proposal
    quantities = _chunk_quantities(completions, facts, counts, proposal, max(games_total, 1), move_number)
    beliefs = rule_weights.chunk_belief(quantities)
    chunk = completions.chunk[proposal]
    completed = facts.completed[chunk].astype(np.float64)
    chances = facts.opportunities[chunk].astype(np.float64)
    if own_completions is not None:
        completed -= own_completions[0][proposal]
        chances -= own_completions[1][proposal]
    rate = (completed + COMPLETION_SMOOTHING * facts.completion_prior) / (chances + COMPLETION_SMOOTHING)

    moves = [completions.moves[i] for i in proposed_move[starts].tolist()]
    known = {move.uci(): i for i, move in enumerate(moves)}
    for uci, count in rote_counts.items():
        if uci not in known and count > 0:
            known[uci] = len(moves)
            moves.append(chess.Move.from_uci(uci))

    rows = np.zeros((len(moves), len(FEATURES)))
    if len(proposal):
        g = len(starts)
        c = counts[proposal]
        strongest = {  # features that take the strongest proposing chunk's value, by name
            **{name: quantities[:, i] for i, name in enumerate(RULE_FEATURES) if i != _DISSOLVED},
            "formed_rate": c[:, _COLUMN["formed_games"]] / np.maximum(c[:, _COLUMN["games"]], 1),
            "formed_log": np.log1p(np.maximum(c[:, _COLUMN["formed"]], 0)),
            "completion": rate,
        }
        columns = [_F[name] for name in strongest]
        rows[:g, columns] = np.maximum.reduceat(np.column_stack(list(strongest.values())), starts, axis=0)
        rows[:g, _F["dissolved"]] = np.minimum.reduceat(quantities[:, _DISSOLVED], starts)
        rows[:g, _F["chunks"]] = np.log1p(np.diff(np.r_[starts, len(proposal)]))
        failing = np.log(np.clip(1.0 - np.column_stack([beliefs, rate]), 1e-12, 1.0))
        rows[:g, [_F["iam_score"], _F["completion_any"]]] = 1.0 - np.exp(np.add.reduceat(failing, starts, axis=0))
    if rote_total:
        _fill_rote(rows, known, rote_counts, rote_total)
    if len(moves):
        score = rows[:, _F["iam_score"]]
        rows[:, _F["iam_gap"]] = score - score.max()
        rows[:, _F["iam_rank"]] = np.log1p(np.argsort(np.argsort(-score, kind="stable"), kind="stable"))
        rows[:, _F["legal_moves"]] = np.log(max(completions.legal_moves, 1))
        rows[:, _F["candidates"]] = np.log(len(moves))
    all_quantities = np.zeros((len(completions), len(RULE_FEATURES)))
    all_quantities[proposal] = quantities
    all_beliefs, all_rates = np.zeros(len(completions)), np.zeros(len(completions))
    all_beliefs[proposal], all_rates[proposal] = beliefs, rate
    return CandidateRows(moves, rows, proposal, starts, completions, all_quantities, all_beliefs, all_rates)


def _rote_counts(rote: RoteEntry | None, own_rote_move: str | None, min_games: int) -> tuple[dict[str, int], int]:
    """The rote memory's move counts less ``own_rote_move``, and their total; none below ``min_games``."""
    rote_counts = dict(rote.counts) if rote is not None else {}
    if own_rote_move in rote_counts:
        rote_counts[own_rote_move] -= 1
    rote_total = sum(rote_counts.values())
    if rote_total < min_games:
        rote_counts, rote_total = {}, 0
    return rote_counts, rote_total


def _fill_rote(rows: np.ndarray, known: dict[str, int], rote_counts: dict[str, int], rote_total: int) -> None:
    """Write the rote memory's share of each move and its number of games into ``rows``."""
    for uci, count in rote_counts.items():
        if count > 0:
            rows[known[uci], _F["rote_share"]] = count / rote_total
    rows[:, _F["rote_games"]] = np.log1p(rote_total)


def _chunk_quantities(
    completions: Completions,
    facts: ChunkFacts,
    counts: np.ndarray,
    proposal: np.ndarray,
    games_total: int,
    move_number: int,
) -> np.ndarray:
    """``(len(proposal), len(RULE_FEATURES))``: the source notes' per-chunk heuristic inputs."""
    chunk = completions.chunk[proposal]
    c = counts[proposal]
    games = np.maximum(c[:, _COLUMN["games"]], 1)
    occurrences = np.maximum(c[:, _COLUMN["occurrences"]], 1)
    stage = _BIN_COLUMNS[int(move_bin(move_number))]
    quantity = {
        "frequency": c[:, _COLUMN["games"]] / games_total,
        "size": facts.size[chunk],
        "major": facts.major[chunk],
        "temporal": c[:, stage] / occurrences,
        "winning": (c[:, _COLUMN["won_games"]] - c[:, _COLUMN["lost_games"]]) / games,
        "dissolved": completions.dissolved[proposal].astype(np.float64),
    }
    return np.column_stack([quantity[name] for name in RULE_FEATURES])
