"""Max^n (source note 003, "Multi-player non-zero-sum games"): utilities are tuples, one entry
per player, and the player to move picks the child whose tuple is best for them."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from search.game import CHANCE, Action, Cursor, Game, State, require
from search.result import SearchResult

__all__ = ["maxn"]

TupleEvaluator = Callable[[State], tuple[float, ...]]


def maxn(
    game: Game, state: State, *, depth: int | None = None, evaluator: TupleEvaluator | None = None
) -> SearchResult:
    """The max^n utility tuple of ``state`` and the mover's best action.

    Each player maximises their own entry of the backed-up tuple; ties go to the first
    action in the game's order. A finite ``depth`` scores the horizon with
    ``evaluator``, which returns a tuple like ``Game.utilities``.
    """
    require(game, "max^n")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if depth is not None and evaluator is None:
        raise ValueError("a depth-limited max^n needs a tuple evaluator for the horizon")
    started = time.perf_counter()
    walk = _MaxN(evaluator)
    value, line = walk.value(game.cursor(state), math.inf if depth is None else depth)
    return SearchResult(
        value=value,
        move=line[0] if line else None,
        pv=line,
        nodes=walk.nodes,
        depth=depth if depth is not None else len(line),
        seconds=time.perf_counter() - started,
    )


class _MaxN:
    def __init__(self, evaluator: TupleEvaluator | None) -> None:
        self.evaluator = evaluator
        self.nodes = 0

    def value(self, cursor: Cursor, depth: float) -> tuple[tuple[float, ...], tuple[Action, ...]]:
        self.nodes += 1
        if cursor.is_terminal():
            return tuple(cursor.utilities()), ()
        if depth <= 0:
            assert self.evaluator is not None  # a finite depth comes with an evaluator
            return tuple(self.evaluator(cursor.state)), ()
        mover = cursor.to_move()
        assert mover is not CHANCE  # require() refused games with chance nodes
        best: tuple[float, ...] | None = None
        best_line: tuple[Action, ...] = ()
        for action in cursor.actions():
            cursor.push(action)
            value, line = self.value(cursor, depth - 1)
            cursor.pop()
            if best is None or value[mover] > best[mover]:
                best, best_line = value, (action, *line)
        assert best is not None  # a non-terminal state has an action
        return best, best_line
