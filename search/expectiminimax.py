"""Expectiminimax (source note 000, "Games of chance"): minimax with chance nodes, whose value
is the probability-weighted average of their outcomes' values."""

from __future__ import annotations

import math
import time

from search.evaluation import Evaluator
from search.game import CHANCE, Action, Cursor, Game, State, require
from search.result import SearchResult

__all__ = ["expectiminimax"]


def expectiminimax(
    game: Game, state: State, *, depth: int | None = None, evaluator: Evaluator | None = None
) -> SearchResult:
    """Expectiminimax value and best action of ``state``.

    The value is seen from the player to move at the root (from player 0 when the root
    is a chance node, whose ``move`` is then ``None``). A finite ``depth`` counts chance
    levels too and scores the horizon with ``evaluator`` (for player 0).
    """
    require(game, "expectiminimax", players=2, zero_sum=True, chance_allowed=True)
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if depth is not None and evaluator is None:
        raise ValueError("a depth-limited expectiminimax needs an evaluator for the horizon")
    started = time.perf_counter()
    walk = _Expectiminimax(evaluator)
    cursor = game.cursor(state)
    value, line = walk.value(cursor, math.inf if depth is None else depth)
    mover = cursor.to_move()
    if mover == 1:
        value = -value
    move = line[0] if line and mover is not CHANCE else None
    return SearchResult(
        value=value,
        move=move,
        pv=line if move is not None else (),
        nodes=walk.nodes,
        depth=depth if depth is not None else len(line),
        seconds=time.perf_counter() - started,
    )


class _Expectiminimax:
    """Values from player 0's point of view; player 1 picks the child worst for player 0."""

    def __init__(self, evaluator: Evaluator | None) -> None:
        self.evaluator = evaluator
        self.nodes = 0

    def value(self, cursor: Cursor, depth: float) -> tuple[float, tuple[Action, ...]]:
        self.nodes += 1
        mover = cursor.to_move()
        if cursor.is_terminal():
            return cursor.utility(0), ()
        if depth <= 0:
            assert self.evaluator is not None  # a finite depth comes with an evaluator
            return self.evaluator(cursor.state), ()
        if mover is CHANCE:
            expected = 0.0
            for outcome, probability in cursor.chance_outcomes():
                cursor.push(outcome)
                expected += probability * self.value(cursor, depth - 1)[0]
                cursor.pop()
            return expected, ()
        sign = 1.0 if mover == 0 else -1.0
        best_line: tuple[Action, ...]
        best, best_line = -math.inf, ()
        for action in cursor.actions():
            cursor.push(action)
            value, line = self.value(cursor, depth - 1)
            cursor.pop()
            if sign * value > best:
                best, best_line = sign * value, (action, *line)
        return sign * best, best_line
