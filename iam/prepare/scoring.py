"""What a position is worth: every legal move scored, by a UCI engine or by the toolkit's own search.

The dossier judges habits and prepared lines with one :class:`MoveScorer`: a
:class:`EngineScorer` (a UCI engine through :class:`~iam.engine_analysis.EngineAnalyser`
and its on-disk cache) when an engine is given, else a :class:`SearchScorer` (this
project's alpha-beta with quiescence, :func:`search.chess.scoring.score_root_moves`).
Scores are centipawns from the side to move's point of view, mates as
``+-(MATE_SCORE - moves)``, so the two are interchangeable.

>>> import chess
>>> scorer = SearchScorer(depth=1)
>>> position_value(scorer, chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
-100000
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

import chess

from iam.engine_analysis import MATE_SCORE, EngineAnalyser
from search.chess.scoring import score_root_moves

__all__ = ["MoveScorer", "SearchScorer", "EngineScorer", "position_value", "score_all"]


class MoveScorer(Protocol):
    """Scores every legal move of a position, from the side to move's point of view."""

    @property
    def description(self) -> str: ...

    def scores(self, board: chess.Board) -> dict[chess.Move, int]: ...

    def analyse_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Score ``boards`` ahead of use, so later :meth:`scores` calls are lookups."""
        ...


class SearchScorer:
    """The toolkit's own search at a fixed depth; each position searched once (kept by EPD)."""

    def __init__(self, depth: int = 2) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        self.depth = depth
        self._known: dict[str, dict[chess.Move, int]] = {}

    @property
    def description(self) -> str:
        return f"the toolkit's own search (alpha-beta with quiescence, depth {self.depth})"

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        key = board.epd()
        if key not in self._known:
            self._known[key] = score_root_moves(board.copy(stack=False), self.depth)
        return self._known[key]

    def analyse_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Score ``boards`` one by one (a search has no batch to gain from)."""
        for board in boards:
            self.scores(board)
            if progress is not None:
                progress(1)

    def close(self) -> None:
        """Nothing to release; here so both scorers close alike."""


class EngineScorer:
    """A UCI engine at a fixed depth, every analysis through the on-disk cache."""

    def __init__(self, path: str, *, depth: int = 12, cache: str | None = None) -> None:
        self.analyser = EngineAnalyser(path, depth=depth, cache=cache)
        self._known: dict[str, dict[chess.Move, int]] = {}

    @property
    def description(self) -> str:
        return f"{self.analyser.engine_id} at depth {self.analyser.depth}"

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        key = board.epd()
        if key not in self._known:
            self._known[key] = self.analyser.analyse(board).scores
        return self._known[key]

    def analyse_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Analyse ``boards`` in one batch (cache hits first), so later ``scores`` calls are lookups."""
        fresh = [board for board in boards if board.epd() not in self._known]
        for board, result in zip(fresh, self.analyser.analyse_many(fresh, progress=progress)):
            self._known[board.epd()] = result.scores

    def close(self) -> None:
        self.analyser.close()


def score_all(scorer: MoveScorer, boards: Iterable[chess.Board], progress: Callable[[int], None] | None = None) -> None:
    """Score ``boards`` ahead of use (an engine analyses them in one batch)."""
    scorer.analyse_many(list(boards), progress)


def position_value(scorer: MoveScorer, board: chess.Board) -> int:
    """The position's value for the side to move: its best move's score; mated -MATE_SCORE, drawn 0."""
    if board.is_checkmate():
        return -MATE_SCORE
    if board.is_stalemate() or board.is_insufficient_material():
        return 0
    scores = scorer.scores(board)
    return max(scores.values()) if scores else 0
