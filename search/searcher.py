"""One object that owns a search's parts: :class:`Searcher`.

A search is configured by a game, an evaluator, a move orderer, a transposition
table, whether to search quiescence, a policy (the guided search's hook) and a probe
(which watches the tree's depth). Callers build a :class:`Searcher` once and ask it
``search(state, limits)`` as often as they like (the table and the orderer's killers
and history carry over from search to search, as an engine keeps them through a
game), instead of handing the same keyword arguments to every call. The guided search
is a Searcher whose policy is a model policy (:func:`search.opponent.omsearch.guided_searcher`).

The functions :func:`search.iterative.search`, :func:`search.iterative.iterate` and
:func:`search.opponent.omsearch.guided_search` build a Searcher and ask it once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import cast

from search.alphabeta import AlphaBetaWorker, Budget, SearchAborted, alphabeta, check_search_parts, result_of
from search.evaluation import Evaluator
from search.game import Game, State
from search.ordering import MoveOrderer
from search.policy import SearchPolicy
from search.probe import DepthProbe
from search.result import Limits, SearchResult
from search.transposition import TranspositionTable

__all__ = ["Searcher"]

_DEEPEST = 64


class Searcher:
    """Iterative-deepening alpha-beta over ``game`` with its parts fixed at construction.

    ``evaluator`` scores the horizon (for player 0); ``ordering`` (default: the game's
    action order) and ``table`` change how many nodes are visited, not the value;
    ``quiescence`` searches noisy actions past the horizon (needs an evaluator);
    ``policy`` may reorder actions and extend or reduce their depth; ``probe`` records
    how deep the tree reached and changes nothing.

    >>> from search import Limits, Searcher, TranspositionTable
    >>> from search.games.tictactoe import TicTacToe
    >>> game = TicTacToe()
    >>> searcher = Searcher(game, evaluator=lambda state: 0.0, table=TranspositionTable())
    >>> result = searcher.search(game.initial_state(), Limits(depth=9))
    >>> result.value == 0, result.depth  # a draw with best play, the whole game searched
    (True, 9)
    >>> searcher.search((1, 1, 0, 2, 2, 0, 0, 0, 0), Limits(depth=3)).move  # X completes the top row
    2
    """

    def __init__(
        self,
        game: Game,
        *,
        evaluator: Evaluator | None = None,
        ordering: MoveOrderer | None = None,
        table: TranspositionTable | None = None,
        quiescence: bool = False,
        policy: SearchPolicy | None = None,
        probe: DepthProbe | None = None,
    ) -> None:
        check_search_parts(game, quiescence=quiescence, evaluator=evaluator)
        self.game = game
        self.evaluator = evaluator
        self.ordering = ordering
        self.table = table
        self.quiescence = quiescence
        self.policy = policy
        self.probe = probe

    def __repr__(self) -> str:
        parts = [type(self.game).__name__]
        parts += [f"{name}={getattr(self, name)!r}" for name in ("evaluator", "ordering", "table", "policy")
                  if getattr(self, name) is not None]
        return f"Searcher({', '.join(parts)}, quiescence={self.quiescence})"

    def _worker(self, budget: Budget | None = None) -> AlphaBetaWorker:
        return AlphaBetaWorker(
            evaluator=self.evaluator,
            orderer=self.ordering,
            table=self.table,
            quiescence=self.quiescence,
            policy=self.policy,
            budget=budget,
            probe=self.probe,
        )

    def search_depth(self, state: State, depth: int | None) -> SearchResult:
        """One alpha-beta search of ``state`` to a fixed ``depth`` (``None``: to the game's end)."""
        return alphabeta(
            self.game, state, depth=depth, evaluator=self.evaluator, ordering=self.ordering,
            table=self.table, quiescence=self.quiescence, policy=self.policy, probe=self.probe,
        )

    def iterate(
        self, state: State, limits: Limits = Limits(), *, stop: threading.Event | None = None
    ) -> Iterator[SearchResult]:
        """Yield the result of each completed depth until a limit or ``stop`` ends it.

        Counters (nodes, time) in each result are cumulative over the iterations. The
        previous iteration's best action is searched first at the root. A terminal root
        yields nothing.
        """
        return self._iterations(state, limits, stop, time.perf_counter())[1]

    def search(self, state: State, limits: Limits, *, stop: threading.Event | None = None) -> SearchResult:
        """The answer of the deepest iteration completed within ``limits``.

        Value, move and principal variation come from the deepest completed iteration;
        nodes and seconds count everything spent, the interrupted iteration included. On
        a terminal root the result has no move and the terminal utility as value. If not
        even depth 1 completes, the first action in the orderer's (or the game's) order
        is returned with the root's static evaluation and ``depth=0``.
        """
        started = time.perf_counter()
        worker, iterations = self._iterations(state, limits, stop, started)
        last = None
        for last in iterations:
            pass
        if last is not None:
            return result_of(worker, cast(float, last.value), last.move, last.pv, last.depth, started)
        cursor = self.game.cursor(state)
        mover = cursor.to_move()
        if cursor.is_terminal():
            return result_of(worker, cursor.utility(cast(int, mover)), None, (), 0, started)
        actions = cursor.actions()
        if self.ordering is not None:
            actions = self.ordering.order(cursor, actions, ply=0, hint=None)
        if self.evaluator is None:
            raise ValueError("the search has no evaluator to score a root it could not search")
        score = self.evaluator(cursor.state)
        value = score if mover == 0 else -score
        return result_of(worker, value, actions[0], (actions[0],), 0, started)

    def _iterations(
        self, state: State, limits: Limits, stop: threading.Event | None, started: float
    ) -> tuple[AlphaBetaWorker, Iterator[SearchResult]]:
        """A worker under ``limits`` and the generator of its completed iterations."""
        budget = Budget(
            max_nodes=limits.nodes,
            deadline=None if limits.time is None else started + limits.time,
            stop=stop,
        )
        worker = self._worker(budget)
        return worker, self._deepen(worker, self.game.cursor(state), limits.depth or _DEEPEST, started)

    @staticmethod
    def _deepen(worker: AlphaBetaWorker, cursor, max_depth: int, started: float) -> Iterator[SearchResult]:
        if cursor.is_terminal():
            return
        previous = None
        for depth in range(1, max_depth + 1):
            try:
                value, move, pv = worker.root(cursor, depth, first=previous)
            except SearchAborted:
                return
            finally:
                while cursor.ply:
                    cursor.pop()
            previous = move
            yield result_of(worker, value, move, pv, depth, started)
