"""The move-predictor protocol: the one thing the search needs from an opponent model.

A predictor maps a state to beliefs over that state's legal actions: each belief in
[0, 1], all together at most 1 (the rest is "some other move"); an empty mapping means
no prediction. For chess the state is a ``chess.Board`` whose ``move_stack`` holds the
game so far (an opponent model may use the opening moves and the previous position),
and the actions are ``chess.Move`` objects. ``iam.model.OpponentModel`` satisfies the
protocol as it is.

A predictor whose beliefs depend on more than the position (on the moves that led
to it, say) may also define ``context_key(state) -> Hashable``, naming that extra
dependence; a search that caches predictions by position adds it to the cache key.
Without it, the beliefs are taken to depend on the position alone.

A chess predictor whose beliefs rest partly on
:func:`search.chess.scoring.score_root_moves` may also define
``use_root_scores(cache)``: a search that computes the same scores hands it its
:class:`~search.chess.scoring.RootScoreCache`, and the scores are computed once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

from search.game import Action, State

__all__ = ["MovePredictor", "NullPredictor", "checked_beliefs"]

_TOLERANCE = 1e-9


class MovePredictor(Protocol):
    """Beliefs over the legal actions of ``state`` (see the module docstring)."""

    def predict_proba(self, state: State) -> Mapping[Action, float]: ...


class NullPredictor:
    """Predicts nothing, ever: a guided search with it equals the plain search."""

    def predict_proba(self, state: State) -> Mapping[Action, float]:
        return {}


def checked_beliefs(
    beliefs: Mapping[Action, float], legal: Collection[Action]
) -> dict[Action, float]:
    """``beliefs`` as a dict after checking the protocol's contract; ``ValueError`` if broken."""
    total = 0.0
    for action, belief in beliefs.items():
        if action not in legal:
            raise ValueError(f"belief for an action that is not legal here: {action}")
        if not 0.0 <= belief <= 1.0:
            raise ValueError(f"belief {belief} for {action} is outside [0, 1]")
        total += belief
    if total > 1.0 + _TOLERANCE:
        raise ValueError(f"beliefs sum to {total:.6f}, more than 1")
    return dict(beliefs)
