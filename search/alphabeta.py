"""Alpha-beta search in negamax form (source notes 000-004), with the improvements of source note 001:
move ordering, quiescence search and a transposition table, each optional.

Values are always from the point of view of the player to move, so one code path
serves both players: a child's value is negated when the turn passes to the other
player (and kept when the same player moves again). The search is fail-soft: a value
outside the (alpha, beta) window is a bound on the true value, never a wrong exact one.

``alphabeta`` searches to one fixed depth; :mod:`search.iterative` runs the same worker
with increasing depths under node and time limits.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import cast

from search.evaluation import Evaluator
from search.game import Action, Cursor, Game, State, distance_shifted, require
from search.ordering import MoveOrderer
from search.policy import SearchPolicy
from search.probe import DepthProbe
from search.result import MAX_PLY, SearchResult
from search.transposition import Bound, TranspositionTable

__all__ = ["alphabeta", "MAX_PLY", "result_of"]

class SearchAborted(Exception):
    """Raised inside the worker when a node or time budget or a stop request is hit."""


class Budget:
    """When a running search must give up: a node count, a deadline, a stop event."""

    __slots__ = ("max_nodes", "deadline", "stop")

    def __init__(
        self,
        *,
        max_nodes: int | None = None,
        deadline: float | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.stop = stop

    def check(self, nodes: int) -> None:
        if self.max_nodes is not None and nodes > self.max_nodes:
            raise SearchAborted
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise SearchAborted
        if self.stop is not None and self.stop.is_set():
            raise SearchAborted


class AlphaBetaWorker:
    """One search's configuration, counters and principal-variation table."""

    def __init__(
        self,
        *,
        evaluator: Evaluator | None,
        orderer: MoveOrderer | None,
        table: TranspositionTable | None,
        quiescence: bool,
        policy: SearchPolicy | None,
        budget: Budget | None = None,
        probe: DepthProbe | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.orderer = orderer
        self.table = table
        self.quiescence = quiescence
        self.policy = policy
        self.budget = budget
        self.probe = probe
        self.nodes = 0
        self.qnodes = 0
        self.cutoffs = 0
        self.tt_hits = 0
        self._pv: dict[int, tuple[Action, ...]] = {}

    def root(self, cursor: Cursor, depth: float, *, first: Action | None = None) -> tuple:
        """Search the root to ``depth``; returns ``(value, move, pv)``."""
        if self.probe is not None:
            self.probe.begin(depth)
        value = self.negamax(cursor, depth, -math.inf, math.inf, first=first)
        pv = self._pv.get(0, ())
        return value, (pv[0] if pv else None), pv

    def negamax(  # noqa: C901
        self, cursor: Cursor, depth: float, alpha: float, beta: float, *, first: Action | None = None
    ) -> float:
        self.nodes += 1
        if self.budget is not None:
            self.budget.check(self.nodes + self.qnodes)
        ply = cursor.ply
        if self.probe is not None:
            self.probe.visit(cursor, ply, depth)
        self._pv[ply] = ()
        mover = cursor.to_move()
        if cursor.is_terminal():
            return cursor.utility(cast(int, mover))  # alpha-beta games have no chance nodes
        if depth <= 0 or ply >= MAX_PLY:
            if self.quiescence:
                return self.quiesce(cursor, alpha, beta)
            return self.evaluate(cursor)

        original_alpha = alpha
        hint = first
        key = None
        if self.table is not None:
            key = cursor.key()
            entry = self.table.probe(key)
            if entry is not None:
                if hint is None:
                    hint = entry.action
                if ply > 0 and entry.depth >= depth:
                    # Stored relative to the node; distance-scored wins are read back
                    # from this root (the same key may sit at another ply here).
                    win_bound = cursor.win_bound
                    lower = distance_shifted(entry.lower, ply, win_bound)
                    upper = distance_shifted(entry.upper, ply, win_bound)
                    if lower >= beta or lower == upper:
                        self.tt_hits += 1
                        return lower
                    if upper <= alpha:
                        self.tt_hits += 1
                        return upper

        actions: Sequence[Action] = cursor.actions()
        if self.orderer is not None:
            actions = self.orderer.order(cursor, actions, ply=ply, hint=hint)
        elif hint is not None and hint in actions:
            actions = [hint, *(a for a in actions if a != hint)]
        plan: Iterable[tuple[Action, int]] | None = None
        if self.policy is not None:
            plan = self.policy.plan(cursor, actions, ply=ply, depth=depth)
        if plan is None:
            plan = zip(actions, repeat(0))

        best, best_action = -math.inf, None
        for action, adjustment in plan:
            cursor.push(action)
            child_depth = depth - 1 + adjustment
            if cursor.to_move() == mover:
                value = self.negamax(cursor, child_depth, alpha, beta)
            else:
                value = -self.negamax(cursor, child_depth, -beta, -alpha)
            cursor.pop()
            if value > best:
                best, best_action = value, action
                self._pv[ply] = (action, *self._pv.get(ply + 1, ()))
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self.cutoffs += 1
                        if self.orderer is not None:
                            self.orderer.record_cutoff(cursor, action, ply=ply, depth=depth)
                        break

        if key is not None:
            if best >= beta:
                bound = Bound.LOWER
            elif best <= original_alpha:
                bound = Bound.UPPER
            else:
                bound = Bound.EXACT
            stored = distance_shifted(best, -ply, cursor.win_bound)
            assert self.table is not None  # a key is read only from a table
            self.table.store(key, depth=depth, value=stored, bound=bound, action=best_action)
        return best

    def quiesce(self, cursor: Cursor, alpha: float, beta: float) -> float:  # noqa: C901
        """Quiescence search: stand pat on the evaluation, or try the noisy actions.

        The side to move may decline every capture ("stand pat"), so the static
        evaluation is a lower bound; captures and promotions are searched until the
        position is quiet, which keeps the horizon from cutting an exchange in half.
        Where the game refuses standing pat (in check) there is no such bound: every
        action is searched, so a check or fork at the horizon is played out.
        """
        mover = cursor.to_move()
        if cursor.ply >= MAX_PLY:
            return self.evaluate(cursor)
        if cursor.stand_pat_allowed():
            best = self.evaluate(cursor)
            if best >= beta:
                return best
            alpha = max(alpha, best)
            candidates = cursor.noisy_actions()
        else:
            best = -math.inf
            candidates = cursor.actions()
        noisy = sorted(candidates, key=cursor.action_priority, reverse=True)
        for action in noisy:
            cursor.push(action)
            self.qnodes += 1
            if self.budget is not None:
                self.budget.check(self.nodes + self.qnodes)
            same = cursor.to_move() == mover
            if cursor.is_terminal():
                value = cursor.utility(cast(int, mover))  # alpha-beta games have no chance nodes
            elif same:
                value = self.quiesce(cursor, alpha, beta)
            else:
                value = -self.quiesce(cursor, -beta, -alpha)
            cursor.pop()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self.cutoffs += 1
                        break
        if best == -math.inf:  # no action to try where standing pat was refused
            return self.evaluate(cursor)
        return best

    def evaluate(self, cursor: Cursor) -> float:
        """The evaluator's value (for player 0) seen from the player to move."""
        if self.evaluator is None:
            raise ValueError(
                "the search reached its depth limit on a non-terminal state and has no evaluator"
            )
        value = self.evaluator(cursor.state)
        return value if cursor.to_move() == 0 else -value


def result_of(
    worker: AlphaBetaWorker, value: float, move: Action | None, pv: Sequence[Action], depth: int, started: float
) -> SearchResult:
    """The :class:`SearchResult` of an alpha-beta search: its answer and the worker's counters."""
    return SearchResult(
        value=value,
        move=move,
        pv=tuple(pv),
        nodes=worker.nodes,
        qnodes=worker.qnodes,
        cutoffs=worker.cutoffs,
        tt_hits=worker.tt_hits,
        depth=depth,
        seconds=time.perf_counter() - started,
    )


def check_search_parts(game: Game, *, quiescence: bool, evaluator: Evaluator | None) -> None:
    """The checks every alpha-beta search makes of its game and parts (ValueError if wrong)."""
    require(game, "alpha-beta", players=2, zero_sum=True)
    if quiescence and evaluator is None:
        raise ValueError("quiescence search needs an evaluator")


def alphabeta(
    game: Game,
    state: State,
    *,
    depth: int | None = None,
    evaluator: Evaluator | None = None,
    ordering: MoveOrderer | None = None,
    table: TranspositionTable | None = None,
    quiescence: bool = False,
    policy: SearchPolicy | None = None,
    probe: DepthProbe | None = None,
) -> SearchResult:
    """Alpha-beta value and best action of ``state``, searched ``depth`` plies deep.

    ``depth=None`` searches to the end of the game (small games only); a finite depth
    needs an ``evaluator`` for the states at the horizon. ``ordering`` (default: the
    game's action order) and ``table`` change how many nodes are visited, not the value
    (except that a table may reuse a deeper result for a position met again nearer the
    horizon); ``quiescence`` searches captures past the horizon and so refines the
    value; ``policy`` may reorder actions and extend or reduce their depth; ``probe``
    records how deep the tree reached (:mod:`search.probe`) and changes nothing.

    >>> from search.games.nim import Nim
    >>> game = Nim()  # II-Nim: two piles of two; who takes the last match loses
    >>> alphabeta(game, game.initial_state()).value  # the player to move loses
    -1.0
    """
    check_search_parts(game, quiescence=quiescence, evaluator=evaluator)
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    started = time.perf_counter()
    worker = AlphaBetaWorker(
        evaluator=evaluator,
        orderer=ordering,
        table=table,
        quiescence=quiescence,
        policy=policy,
        probe=probe,
    )
    limit = math.inf if depth is None else depth
    value, move, pv = worker.root(game.cursor(state), limit)
    return result_of(worker, value, move, pv, depth if depth is not None else len(pv), started)
