"""What a search returns and when it must stop: frozen values, like python-chess's
``chess.engine.Limit`` and ``PlayResult``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from search.game import Action

__all__ = ["MAX_PLY", "Limits", "SearchResult"]

MAX_PLY = 128
"""Hard limit on a search path's length (extensions cannot make a search run away)."""


@dataclass(frozen=True)
class Limits:
    """When an iterative-deepening search stops: the first limit reached wins.

    ``depth`` is the deepest iteration to run, ``nodes`` a budget of visited positions
    (quiescence included), ``time`` a budget in seconds. ``None`` means no limit of
    that kind; with no limit at all the search runs until told to stop.
    """

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"depth limit must be at least 1, got {self.depth}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"node limit must be at least 1, got {self.nodes}")
        if self.time is not None and self.time < 0:
            raise ValueError(f"time limit must not be negative, got {self.time}")


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    ``value`` is seen from the player to move at the root (for max^n: the utility
    tuple). ``move`` is the chosen action (``None`` only when the root is terminal),
    ``pv`` the principal variation starting with it. ``nodes`` counts positions the
    main search visited, ``qnodes`` those only quiescence visited; ``depth`` is the
    deepest fully completed iteration and ``seconds`` the wall time spent.
    """

    value: float | tuple[float, ...]
    move: Action | None
    pv: Sequence[Action] = ()
    nodes: int = 0
    qnodes: int = 0
    cutoffs: int = 0
    tt_hits: int = 0
    depth: int = 0
    seconds: float = 0.0

    @property
    def total_nodes(self) -> int:
        """Every position visited, main search and quiescence together."""
        return self.nodes + self.qnodes
