"""Evaluation functions: estimates of a non-terminal state's value (source notes 000 and 002).

An evaluator scores a state for player 0 (MAX, White in chess); the search turns it
into the point of view of the player to move in one place. The source notes' standard form is
a weighted linear sum of features, ``Eval(s) = w1 f1(s) + ... + wn fn(s)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from search.game import State

__all__ = ["Evaluator", "LinearEvaluator"]


class Evaluator(Protocol):
    """A heuristic value of ``state`` for player 0, on the scale of the game's utility."""

    def __call__(self, state: State) -> float: ...


class LinearEvaluator:
    """``Eval(s) = sum_i weights[i] * features(s)[i]``.

    ``features`` maps a state to a fixed-length sequence of numbers, each counted from
    player 0's side (e.g. white queens minus black queens).
    """

    __slots__ = ("features", "weights")

    def __init__(
        self, features: Callable[[State], Sequence[float]], weights: Sequence[float]
    ) -> None:
        self.features = features
        self.weights = tuple(float(w) for w in weights)

    def __call__(self, state: State) -> float:
        values = self.features(state)
        if len(values) != len(self.weights):
            raise ValueError(
                f"{len(values)} features but {len(self.weights)} weights"
            )
        return sum(w * f for w, f in zip(self.weights, values))

    def __repr__(self) -> str:
        return f"LinearEvaluator(weights={self.weights})"
