"""Explained predictions: each candidate move with its belief and the evidence behind it.

Every prediction can say which chunks proposed it (their patterns, where on the
board they would be completed, their statistics, their completion rate and how
much each of the source notes' rules added to their belief), whether the rote memory
remembers the move, and, for a learned belief, how much each feature moved the
move's log-odds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess
import numpy as np

from iam.board import relative_square
from iam.chunk import BOX, encode, to_pattern
from iam.features import CandidateRows

__all__ = ["Prediction", "explain", "MAX_CHUNK_SOURCES"]

MAX_CHUNK_SOURCES = 5
"""Chunk sources listed per move (the strongest by rule belief); the rest are counted."""


@dataclass(frozen=True)
class Prediction:
    """One candidate move of the side to move, with its belief and why."""

    move: chess.Move
    san: str
    belief: float
    sources: list[dict] = field(default_factory=list)
    """Chunk and rote evidence, strongest chunk first, then the rote memory."""
    chunk_sources: int = 0
    """How many chunk placements proposed the move (only the strongest are listed)."""
    learned: dict[str, float] | None = None
    """Feature -> contribution to the log-odds, when the belief is learned."""

    def to_dict(self) -> dict:
        payload = {
            "move": self.move.uci(),
            "san": self.san,
            "belief": self.belief,
            "sources": self.sources,
            "chunk_sources": self.chunk_sources,
        }
        if self.learned is not None:
            payload["learned"] = self.learned
        return payload


def explain(model, board: chess.Board, *, top: int | None = None) -> list[Prediction]:
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
        learned = model.belief_.contributions(rows.features[i]) if model.belief_ is not None else None
        predictions.append(Prediction(move, board.san(move), float(beliefs[i]), sources, len(proposals), learned))
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
