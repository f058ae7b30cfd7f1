"""Transposition table: remembers what a search learned about a position, keyed by
its Zobrist key, so a position reached by another move order is not searched again.

Each entry keeps a lower and an upper bound on the position's value (from the side to
move) at a given remaining depth, plus the best action found. A fail-high result
raises the lower bound, a fail-low result lowers the upper bound, an exact result sets
both. The bounds never cross: when new information contradicts what is stored (path-
dependent values such as repetitions can do that) the entry is replaced.

Values are what the search hands in. For a game whose wins are scored by distance
(``Capabilities.win_bound``, chess mates) the alpha-beta worker stores them relative
to the node, not to its root, and converts them back when it reads them, so an entry
stays right when the position comes back at another ply or under another root.
"""

from __future__ import annotations

import enum
import math
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from search.game import Action

__all__ = ["Bound", "TTEntry", "TranspositionTable"]


class Bound(enum.Enum):
    """What a stored value says about the true value."""

    EXACT = "exact"
    LOWER = "lower"  # the search failed high: value >= stored
    UPPER = "upper"  # the search failed low: value <= stored


@dataclass(slots=True)
class TTEntry:
    """What is known about one position after a search to ``depth`` plies."""

    depth: float
    lower: float
    upper: float
    action: Action | None


class TranspositionTable:
    """A bounded key -> :class:`TTEntry` map; the oldest entry goes first when full.

    Deeper results are preferred: a shallower store does not overwrite a deeper entry
    (it may only supply a missing action). Every operation takes constant time, also
    evicting from a full table (an insertion-ordered linked map, not a scan past the
    holes that deletions leave at the front of a plain dict).
    """

    __slots__ = ("capacity", "_entries")

    def __init__(self, capacity: int = 1_000_000) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self._entries: OrderedDict[Hashable, TTEntry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries.items())

    def clear(self) -> None:
        self._entries.clear()

    def probe(self, key: Hashable) -> TTEntry | None:
        """The entry for ``key``, or ``None``."""
        return self._entries.get(key)

    def store(
        self, key: Hashable, *, depth: float, value: float, bound: Bound, action: Action | None
    ) -> None:
        """Record that a search of ``depth`` plies gave ``value`` as ``bound``."""
        lower = value if bound is not Bound.UPPER else -math.inf
        upper = value if bound is not Bound.LOWER else math.inf
        entry = self._entries.get(key)
        if entry is None:
            if len(self._entries) >= self.capacity:
                self._entries.popitem(last=False)
            self._entries[key] = TTEntry(depth, lower, upper, action)
        elif depth > entry.depth:
            entry.depth, entry.lower, entry.upper = depth, lower, upper
            entry.action = action if action is not None else entry.action
        elif depth == entry.depth:
            tight_lower, tight_upper = max(entry.lower, lower), min(entry.upper, upper)
            if tight_lower > tight_upper:  # contradiction: trust the newest result
                tight_lower, tight_upper = lower, upper
            entry.lower, entry.upper = tight_lower, tight_upper
            if action is not None and bound is not Bound.UPPER:
                entry.action = action
        elif entry.action is None:
            entry.action = action
