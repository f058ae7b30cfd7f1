"""Iterative deepening under limits (source note 003): search depth 1, 2, 3 ... and keep the
last completed answer, so the search can stop at any moment with a sound move.

:func:`iterate` yields one :class:`SearchResult` per completed depth and lets the
caller decide when to stop; :func:`search` runs it under a :class:`Limits` and returns
the final answer. Both always have a legal move for a non-terminal root, even when the
budget runs out before depth 1 completes. They are one-call shorthands for a
:class:`~search.searcher.Searcher` built with the same parts; callers that search
again and again build the Searcher once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from search.evaluation import Evaluator
from search.game import Game, State
from search.ordering import MoveOrderer
from search.policy import SearchPolicy
from search.probe import DepthProbe
from search.result import Limits, SearchResult
from search.searcher import Searcher
from search.transposition import TranspositionTable

__all__ = ["iterate", "search"]


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
    """:meth:`Searcher.iterate` of a Searcher with these parts (see there)."""
    searcher = Searcher(
        game, evaluator=evaluator, ordering=ordering, table=table, quiescence=quiescence,
        policy=policy, probe=probe,
    )
    return searcher.iterate(state, limits, stop=stop)


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
    """:meth:`Searcher.search` of a Searcher with these parts (see there).

    >>> from search import Limits, search
    >>> from search.games.nim import Nim
    >>> game = Nim((1, 2))  # who takes the last match loses
    >>> result = search(game, game.initial_state(), evaluator=lambda state: 0.0, limits=Limits(depth=4))
    >>> result.value, result.move  # empty the pile of two: the opponent must take the last match
    (1.0, (1, 2))
    """
    searcher = Searcher(
        game, evaluator=evaluator, ordering=ordering, table=table, quiescence=quiescence,
        policy=policy, probe=probe,
    )
    return searcher.search(state, limits, stop=stop)
