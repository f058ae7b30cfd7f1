"""Minimax (source note 000): the value of a state when both players play perfectly.

Written in negamax form: the value of a state for the player to move is the best of
its children's values, each negated when the turn passes to the other player. No
pruning: every node of the tree (to ``depth``, or to the end) is visited, which makes
it the reference every other search is checked against.
"""

from __future__ import annotations

import math
import time
from typing import cast

from search.alphabeta import Budget
from search.evaluation import Evaluator
from search.game import Action, Cursor, Game, State, require
from search.result import SearchResult

__all__ = ["minimax"]


def minimax(
    game: Game,
    state: State,
    *,
    depth: int | None = None,
    evaluator: Evaluator | None = None,
    budget: Budget | None = None,
) -> SearchResult:
    """Minimax value and best action of ``state`` from the point of view of its mover.

    ``depth=None`` searches to the end of the game; a finite ``depth`` (H-MINIMAX of
    source note 000) scores the states at the horizon with ``evaluator`` (for player 0).
    Ties go to the first action in the game's order. A ``budget`` (nodes, deadline,
    stop event; as the alpha-beta worker's) is checked at every node; when it runs
    out the search raises ``search.alphabeta.SearchAborted`` (a minimax value is not
    worth anything half done).
    """
    require(game, "minimax", players=2, zero_sum=True)
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if depth is not None and evaluator is None:
        raise ValueError("a depth-limited minimax needs an evaluator for the horizon")
    started = time.perf_counter()
    walk = _Minimax(evaluator, budget)
    value, pv = walk.value(game.cursor(state), math.inf if depth is None else depth)
    return SearchResult(
        value=value,
        move=pv[0] if pv else None,
        pv=pv,
        nodes=walk.nodes,
        depth=depth if depth is not None else len(pv),
        seconds=time.perf_counter() - started,
    )


class _Minimax:
    def __init__(self, evaluator: Evaluator | None, budget: Budget | None) -> None:
        self.evaluator = evaluator
        self.budget = budget
        self.nodes = 0

    def value(self, cursor: Cursor, depth: float) -> tuple[float, tuple[Action, ...]]:
        self.nodes += 1
        if self.budget is not None:
            self.budget.check(self.nodes)
        mover = cursor.to_move()
        if cursor.is_terminal():
            return cursor.utility(cast(int, mover)), ()  # minimax games have no chance nodes
        if depth <= 0:
            assert self.evaluator is not None  # a finite depth comes with an evaluator
            score = self.evaluator(cursor.state)
            return (score if mover == 0 else -score), ()
        best_line: tuple[Action, ...]
        best, best_line = -math.inf, ()
        for action in cursor.actions():
            cursor.push(action)
            value, line = self.value(cursor, depth - 1)
            if cursor.to_move() != mover:
                value = -value
            cursor.pop()
            if value > best:
                best, best_line = value, (action, *line)
        return best, best_line
