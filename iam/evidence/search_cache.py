"""The search family's scores kept on disk, so a position is searched once across runs.

The search family (this project's alpha-beta scoring every legal move,
:func:`search.chess.scoring.score_root_moves`) is most of what a move ranker's
features cost, and training, evaluation, identification and experiments keep meeting
the same positions. :class:`StoredSearchScores` keeps each position's scores in an
:class:`~iam.engines.cache.AnalysisCache` file (the engine cache's kind: one file may
hold both).

Stored scores are exactly what the search computes, never an approximation:

* the key is what the scores depend on (:func:`history_key`): the position and the
  moves since the last capture or pawn move (they alone can repeat it, and their count
  is the fifty-move clock), with the depth and whether quiescence is on;
* the source names the search by a digest of its code (:func:`search_source`), so
  scores from an older or changed evaluation are never served, only left unused.
"""

from __future__ import annotations

import hashlib
import inspect
import os
from functools import cache

import chess

import search.chess.board
import search.chess.engine
import search.chess.pst
import search.chess.scoring
import search.result
from iam.engines.cache import AnalysisCache, CacheError
from search.chess.scoring import score_root_moves

__all__ = ["StoredSearchScores", "history_key", "search_source"]

_SEARCH_MODULES = (search.chess.engine, search.chess.board, search.chess.pst, search.chess.scoring, search.result)
"""The modules whose code decides the scores."""


@cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    for module in _SEARCH_MODULES:
        digest.update(inspect.getsource(module).encode())
    return digest.hexdigest()[:16]


def search_source(quiescence: bool = True) -> str:
    """The name the search's scores are stored under: its code's digest and its quiescence setting."""
    return f"iam-search {_code_digest()} {'q' if quiescence else 'no-q'}"


def history_key(board: chess.Board) -> str:
    """The position as EPD, the fifty-move clock and the moves since the last capture or pawn move.

    Two boards with the same key score alike (see
    :func:`search.chess.scoring.position_history_key`, whose text form this is).

    >>> board = chess.Board()
    >>> board.push_san("Nf3")
    Move.from_uci('g1f3')
    >>> history_key(board)
    'rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 g1f3'
    """
    since = board.halfmove_clock
    recent = board.move_stack[-since:] if since else []
    return " ".join([board.epd(), str(since), *(move.uci() for move in recent)])


class StoredSearchScores:
    """:func:`~search.chess.scoring.score_root_moves`, looked up in an on-disk cache first.

    A finished game (no scores) is not stored: it costs nothing to find again. Copies
    sent to worker processes open their own connection to the file.
    """

    def __init__(self, path: str | os.PathLike, *, quiescence: bool = True) -> None:
        self.quiescence = quiescence
        self.source = search_source(quiescence)
        self.cache = AnalysisCache(path, label="search cache", error=CacheError)
        self.hits = 0
        self.misses = 0

    def scores(self, board: chess.Board, depth: int) -> dict[chess.Move, int]:
        """Every legal move's exact value at ``depth``, as :func:`score_root_moves` gives it."""
        key = history_key(board)
        found = self.cache.get(key, self.source, depth, board)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        found = score_root_moves(board, depth, quiescence=self.quiescence)
        if found:
            self.cache.put(key, self.source, depth, found)
        return found

    def close(self) -> None:
        self.cache.close()
