"""A fitted ranker's strongest evidence: the features that move its score most, in words that say which way.

A weight alone does not say how much a feature matters: a feature that ranges over
hundreds of centipawns carries a small weight and a large effect. The effect of a
feature is its weight times its spread over the training moves (the score one
typical difference adds), and the strongest features are those of largest effect.
A positive effect draws him to the moves that have the feature, a negative one keeps
him from them. ``iam train`` and ``iam inspect`` both show this list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from iam.models.words import feature_words
from iam.ranker.estimator import MoveRanker

__all__ = ["SHOWN", "HEADING", "WeightedFeature", "strongest_evidence", "strongest_lines"]

SHOWN = 10
"""How many of the strongest features the commands show by default."""
HEADING = "strongest evidence (the score one typical difference adds to a move; drawn to: +, avoids: -):"


@dataclass(frozen=True)
class WeightedFeature:
    """One feature of a fitted ranker: its weight, and its effect (weight times the feature's spread)."""

    feature: str
    weight: float
    effect: float

    @property
    def words(self) -> str:
        return feature_words(self.feature)

    @property
    def leaning(self) -> str:
        """``drawn to`` for a positive effect, ``avoids`` for a negative one (``indifferent to`` at zero)."""
        return "drawn to" if self.effect > 0 else "avoids" if self.effect < 0 else "indifferent to"

    def __str__(self) -> str:
        return f"{self.leaning}: {self.words} ({self.effect:+.2f})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "feature": self.feature, "words": self.words, "leaning": self.leaning, "effect": self.effect,
            "weight": self.weight,
        }


def strongest_evidence(model: MoveRanker, top: int = SHOWN) -> list[WeightedFeature]:
    """The ``top`` features of ``model`` of largest effect (in size), the largest first; ties by name."""
    features = [
        WeightedFeature(name, weight, weight * spread)
        for (name, weight), spread in zip(model.weights().items(), model.scale_.tolist())
    ]
    return sorted(features, key=lambda entry: (-abs(entry.effect), entry.feature))[:top]


def strongest_lines(entries: list[WeightedFeature]) -> list[str]:
    """The list as the commands print it: :data:`HEADING`, then one indented line a feature."""
    return [HEADING, *(f"  {entry}" for entry in entries)]
