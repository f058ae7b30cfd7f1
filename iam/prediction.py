"""Explained predictions: each move a model believes, with its belief and the evidence behind it.

:class:`Explanation` is the one explanation type of every model. An IAM model's says
which chunks proposed the move (their patterns, where on the board they would be
completed, their statistics, their completion rate and how much each of the source
notes' rules added to their belief) and whether the rote memory remembers it; a learned
belief, and a move ranker, say how much each feature moved the move's score
(:class:`FeatureContribution`, strongest first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import chess
import numpy as np

from iam.board import relative_square
from iam.chunk import BOX, encode, to_pattern
from iam.features import CandidateRows

__all__ = ["Explanation", "Prediction", "FeatureContribution", "explain", "MAX_CHUNK_SOURCES"]

MAX_CHUNK_SOURCES = 5
"""Chunk sources listed per move (the strongest by rule belief); the rest are counted."""


@dataclass(frozen=True)
class FeatureContribution:
    """How much one feature raised (or lowered) a move's score against the position's average move."""

    feature: str
    family: str
    value: float
    """The feature's value for the move (NaN where the model does not report it)."""
    contribution: float

    def to_dict(self) -> dict:
        value = None if math.isnan(self.value) else self.value
        return {"feature": self.feature, "family": self.family, "value": value, "contribution": self.contribution}


@dataclass(frozen=True)
class Explanation:
    """One move of the side to move, with its belief and why."""

    move: chess.Move
    san: str
    belief: float
    sources: tuple[dict, ...] = ()
    """Chunk and rote evidence, strongest chunk first, then the rote memory (IAM models)."""
    chunk_sources: int = 0
    """How many chunk placements proposed the move (only the strongest are listed)."""
    features: tuple[FeatureContribution, ...] = ()
    """What each feature added to the move's score, strongest first (a learned belief, a move ranker)."""

    @property
    def learned(self) -> dict[str, float] | None:
        """Feature -> contribution, or ``None`` when no feature carried the belief (rule beliefs)."""
        return {c.feature: c.contribution for c in self.features} if self.features else None

    def to_dict(self) -> dict:
        return {
            "move": self.move.uci(),
            "san": self.san,
            "belief": self.belief,
            "sources": list(self.sources),
            "chunk_sources": self.chunk_sources,
            "features": [c.to_dict() for c in self.features],
        }


Prediction = Explanation
"""The same type under the name the IAM model's explanations carry."""


def explain(model, board: chess.Board, *, top: int | None = None) -> list[Explanation]:
    """The model's ranked predictions for the side to move on ``board``, with their evidence."""
    rows, beliefs = model.candidates(board)
    entry = model.rote_.lookup(board)
    order = [i for i in np.argsort(-beliefs, kind="stable").tolist() if beliefs[i] > 0]
    predictions = []
    for i in order[:top] if top is not None else order:
        move = rows.moves[i]
        proposals = rows.sources(i)
        strongest = proposals[np.argsort(-rows.proposal_beliefs[proposals], kind="stable")][:MAX_CHUNK_SOURCES]
        sources = [_chunk_source(model, rows, int(p), board.turn) for p in strongest]
        if entry is not None and entry.counts.get(move.uci(), 0) > 0:
            chosen = entry.counts[move.uci()]
            sources.append({"kind": "rote", "games": entry.games, "chosen": chosen, "share": chosen / entry.games})
        learned = model.belief_.contributions(rows.features[i]) if model.belief_ is not None else {}
        features = tuple(
            FeatureContribution(name, "belief", math.nan, float(value))
            for name, value in sorted(learned.items(), key=lambda item: -abs(item[1]))
        )
        predictions.append(Explanation(move, board.san(move), float(beliefs[i]), tuple(sources), len(proposals), features))
    return predictions


def _chunk_source(model, rows: CandidateRows, proposal: int, color: chess.Color) -> dict:
    completions = rows.completions
    chunk = int(completions.chunk[proposal])
    squares, values = model.library_.cells(completions.placement[proposal : proposal + 1])
    stats = model.library_.table.iloc[chunk]
    rules = model.rule_weights_.contributions(rows.proposal_quantities[proposal : proposal + 1])
    return {
        "kind": "chunk",
        "pattern": to_pattern(int(encode(values[0].reshape(BOX, BOX)))),  # as placed: the stored chunk or its mirror
        "squares": [chess.square_name(relative_square(int(s), color)) for s in squares[0] if s >= 0],
        "occurrences": int(stats["occurrences"]),
        "games": int(stats["games"]),
        "formed_games": int(stats["formed_games"]),
        "completion": float(rows.proposal_completion[proposal]),
        "dissolved": bool(completions.dissolved[proposal]),
        "belief": float(rows.proposal_beliefs[proposal]),
        "rules": {name: round(float(value[0]), 4) for name, value in rules.items()},
    }
