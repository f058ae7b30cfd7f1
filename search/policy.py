"""The search-policy hook: where a guided search changes what alpha-beta does.

At every interior node the alpha-beta worker hands its ordered actions to the policy,
which may reorder them and give each a depth adjustment: +1 searches that action one
ply deeper (an extension), -1 one ply shallower (a reduction); an action left out of
the plan is not searched at all (forward pruning; a plan must keep at least one).
Returning ``None`` leaves the node exactly as the plain search would have it. The opponent-model-guided
search is a policy that consults a :class:`~search.opponent.predictor.MovePredictor` at the
modelled player's nodes; the worker itself is never forked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from search.game import Action, Cursor

__all__ = ["SearchPolicy", "PlainPolicy"]


class SearchPolicy(Protocol):
    """Reorders a node's actions and adjusts their depths, or returns ``None``."""

    def plan(
        self, cursor: Cursor, actions: Sequence[Action], *, ply: int, depth: float
    ) -> Sequence[tuple[Action, int]] | None:
        """``(action, depth adjustment)`` pairs in search order: a non-empty subset of ``actions``."""
        ...


class PlainPolicy:
    """The plain search: no reordering, no extension, no reduction."""

    def plan(
        self, cursor: Cursor, actions: Sequence[Action], *, ply: int, depth: float
    ) -> Sequence[tuple[Action, int]] | None:
        return None
