"""Move ordering: try the likely-best actions first so alpha-beta cuts off early.

The order is: the transposition table's action, then actions with a static priority
from the game (MVV-LVA captures in chess: most valuable victim, least valuable
attacker), then the killer actions that caused cutoffs at the same ply, then quiet
actions by their history score (how often and how deep they caused cutoffs).
Ordering changes how many nodes a search visits, never the value it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from search.game import Action, Cursor

__all__ = ["MoveOrderer", "HeuristicOrderer"]

_HINT = 1 << 62
_PRIORITY = 1 << 60
_KILLER = 1 << 58


class MoveOrderer(Protocol):
    """Orders a node's actions and learns from the cutoffs the search reports."""

    def order(
        self, cursor: Cursor, actions: Sequence[Action], *, ply: int, hint: Action | None
    ) -> Sequence[Action]: ...

    def record_cutoff(self, cursor: Cursor, action: Action, *, ply: int, depth: float) -> None: ...


class HeuristicOrderer:
    """TT action, game priorities, killers and history, each switchable.

    It keeps per-search tables (killers per ply, history per player and action), so
    use a fresh orderer per game or call :meth:`clear` between unrelated searches.
    """

    def __init__(
        self, *, priorities: bool = True, killers: bool = True, history: bool = True
    ) -> None:
        self.priorities = priorities
        self.killers = killers
        self.history = history
        self._killers: dict[int, list[Action]] = {}
        self._history: dict[tuple, float] = {}

    def clear(self) -> None:
        self._killers.clear()
        self._history.clear()

    def order(
        self, cursor: Cursor, actions: Sequence[Action], *, ply: int, hint: Action | None
    ) -> list[Action]:
        killers = self._killers.get(ply, ()) if self.killers else ()
        mover = cursor.to_move()
        history = self._history if self.history else None
        priority = cursor.action_priority if self.priorities else None

        def score(action: Action) -> float:
            if hint is not None and action == hint:
                return _HINT
            if priority is not None:
                value = priority(action)
                if value > 0:
                    return _PRIORITY + value
            if killers and action in killers:
                return _KILLER - killers.index(action)
            return history.get((mover, action), 0) if history else 0

        return sorted(actions, key=score, reverse=True)

    def record_cutoff(self, cursor: Cursor, action: Action, *, ply: int, depth: float) -> None:
        if self.priorities and cursor.action_priority(action) > 0:
            return  # captures are ordered by their priority already
        if self.killers:
            slots = self._killers.setdefault(ply, [])
            if action not in slots:
                slots.insert(0, action)
                del slots[2:]
        if self.history:
            key = (cursor.to_move(), action)
            bonus = depth * depth if depth != float("inf") else 1
            self._history[key] = self._history.get(key, 0) + bonus
