"""Explained predictions: each move a model believes, with its belief and the evidence behind it.

:class:`Explanation` is the one explanation type of every model. An IAM model's says
which chunks proposed the move (their patterns, where on the board they would be
completed, their statistics, their completion rate and how much each of the source
notes' rules added to their belief) and whether the rote memory remembers it; a learned
belief, and a move ranker, say how much each feature moved the move's score
(:class:`FeatureContribution`, strongest first). Printed, each reads in a chess player's
words (:func:`iam.models.words.feature_words`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import chess

from iam.models.words import feature_words

__all__ = ["Explanation", "FeatureContribution", "SHOWN_FEATURES"]

SHOWN_FEATURES = 3
"""Features a printed explanation lists (the strongest); the rest are counted."""

@dataclass(frozen=True)
class FeatureContribution:
    """How much one feature raised (or lowered) a move's score against the position's average move."""

    feature: str
    family: str
    value: float
    """The feature's value for the move (NaN where the model does not report it)."""
    contribution: float

    def __str__(self) -> str:
        value = "no value reported" if math.isnan(self.value) else f"value {self.value:.3g}"
        return f"{self.contribution:+.2f}  {feature_words(self.feature)}, {value}"

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

    def __str__(self) -> str:
        lines = [f"{self.san}: belief {self.belief:.3f}"]
        for source in self.sources:
            if source.get("kind") == "rote":
                lines.append(f"  opening memory: he chose it in {source['chosen']} of {source['games']} games")
        chunks = [source for source in self.sources if source.get("kind") == "chunk"]
        if chunks:
            lines.append(
                f"  chunks: {self.chunk_sources} propose it; the strongest, seen in {chunks[0]['games']} of his games, "
                f"with belief {chunks[0]['belief']:.2f}"
            )
        if self.features:
            lines.append("  what it added to the move's score:")
        lines.extend(f"    {contribution}" for contribution in self.features[:SHOWN_FEATURES])
        if len(self.features) > SHOWN_FEATURES:
            weaker = len(self.features) - SHOWN_FEATURES
            lines.append(f"    and {weaker} weaker feature{'s' if weaker > 1 else ''}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"Explanation({self.san}, belief={self.belief:.3f}, chunk_sources={self.chunk_sources}, "
            f"features={len(self.features)})"
        )

    def to_dict(self) -> dict:
        return {
            "move": self.move.uci(),
            "san": self.san,
            "belief": self.belief,
            "sources": list(self.sources),
            "chunk_sources": self.chunk_sources,
            "features": [c.to_dict() for c in self.features],
        }

