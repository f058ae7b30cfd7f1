"""Iterative deepening under limits (seed 003): search depth 1, 2, 3 ... and keep the
last completed answer, so the search can stop at any moment with a sound move.

:func:`iterate` yields one :class:`SearchResult` per completed depth and lets the
caller decide when to stop (the UCI engine prints ``info`` lines from it);
:func:`search` runs it under a :class:`Limits` and returns the final answer. Both
always have a legal move for a non-terminal root, even when the budget runs out
before depth 1 completes.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator

from search.alphabeta import AlphaBetaWorker, Budget, SearchAborted, check_two_player
from search.evaluation import Evaluator
from search.game import Game, State
from search.ordering import MoveOrderer
from search.policy import SearchPolicy
from search.probe import DepthProbe
from search.result import Limits, SearchResult
from search.transposition import TranspositionTable

__all__ = ["iterate", "search"]

_DEEPEST = 64


def iterate(
    game: Game,
    state: State,
    *,
    evaluator: Evaluator,
    limits: Limits = Limits(),
    ordering: MoveOrderer | None = None,
    table: TranspositionTable | None = None,
    quiescence: bool = False,
    policy: SearchPolicy | None = None,
    stop: threading.Event | None = None,
    probe: DepthProbe | None = None,
) -> Iterator[SearchResult]:
    """Yield the result of each completed depth until a limit or ``stop`` ends it.

    Counters (nodes, time) in each result are cumulative over the iterations. The
    previous iteration's best action is searched first at the root. A terminal root
    yields nothing.
    """
    check_two_player(game, "iterative deepening")
    deepening = _Deepening(game, state, evaluator, limits, ordering, table, quiescence, policy, stop, probe)
    yield from deepening.iterations()


def search(
    game: Game,
    state: State,
    *,
    evaluator: Evaluator,
    limits: Limits,
    ordering: MoveOrderer | None = None,
    table: TranspositionTable | None = None,
    quiescence: bool = False,
    policy: SearchPolicy | None = None,
    stop: threading.Event | None = None,
    probe: DepthProbe | None = None,
) -> SearchResult:
    """The answer of the deepest iteration completed within ``limits``.

    Value, move and principal variation come from the deepest completed iteration;
    nodes and seconds count everything spent, the interrupted iteration included. On
    a terminal root the result has no move and the terminal utility as value. If not
    even depth 1 completes, the first action in the orderer's (or the game's) order is
    returned with the root's static evaluation and ``depth=0``.
    """
    check_two_player(game, "iterative deepening")
    deepening = _Deepening(game, state, evaluator, limits, ordering, table, quiescence, policy, stop, probe)
    last = None
    for last in deepening.iterations():
        pass
    worker = deepening.worker
    spent = dict(
        nodes=worker.nodes,
        qnodes=worker.qnodes,
        cutoffs=worker.cutoffs,
        tt_hits=worker.tt_hits,
        seconds=time.perf_counter() - deepening.started,
    )
    if last is not None:
        return dataclasses.replace(last, **spent)
    cursor = game.cursor(state)
    mover = cursor.to_move()
    if cursor.is_terminal():
        return SearchResult(value=cursor.utility(mover), move=None, **spent)
    actions = cursor.actions()
    if ordering is not None:
        actions = ordering.order(cursor, actions, ply=0, hint=None)
    score = evaluator(cursor.state)
    return SearchResult(
        value=score if mover == 0 else -score, move=actions[0], pv=(actions[0],), depth=0, **spent
    )


class _Deepening:
    """One iterative-deepening run: the worker, its budget and the root cursor."""

    def __init__(
        self, game, state, evaluator, limits, ordering, table, quiescence, policy, stop, probe
    ) -> None:
        self.started = time.perf_counter()
        self.max_depth = limits.depth or _DEEPEST
        budget = Budget(
            max_nodes=limits.nodes,
            deadline=None if limits.time is None else self.started + limits.time,
            stop=stop,
        )
        self.worker = AlphaBetaWorker(
            evaluator=evaluator,
            orderer=ordering,
            table=table,
            quiescence=quiescence,
            policy=policy,
            budget=budget,
            probe=probe,
        )
        self.cursor = game.cursor(state)

    def iterations(self) -> Iterator[SearchResult]:
        cursor, worker = self.cursor, self.worker
        if cursor.is_terminal():
            return
        previous = None
        for depth in range(1, self.max_depth + 1):
            try:
                value, move, pv = worker.root(cursor, depth, first=previous)
            except SearchAborted:
                return
            finally:
                while cursor.ply:
                    cursor.pop()
            previous = move
            yield SearchResult(
                value=value,
                move=move,
                pv=pv,
                nodes=worker.nodes,
                qnodes=worker.qnodes,
                cutoffs=worker.cutoffs,
                tt_hits=worker.tt_hits,
                depth=depth,
                seconds=time.perf_counter() - self.started,
            )
