"""All the evidence about a position's legal moves, by feature family.

Families (each can be switched off, so an ablation can remove it):

* ``move``: the move itself (:mod:`iam.ranker.movefeatures`);
* ``search``: this project's alpha-beta with quiescence scoring every legal move at a
  fixed shallow depth (:func:`search.chess.scoring.score_root_moves`);
* ``engine``: the same from a UCI engine such as stockfish, cached on disk
  (:mod:`iam.engine_analysis`);
* ``habits``: the player's chunks and opening memory, from his IAM model
  (:mod:`iam.ranker.habits`);
* ``population``: other masters' opening choices (:mod:`iam.ranker.population`).

:class:`Evidence` holds what the families need and computes one position's columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from iam.engine_analysis import EngineAnalyser
from iam.model import OpponentModel
from iam.ranker.habits import HABIT_FEATURES, habit_features
from iam.ranker.movefeatures import MOVE_FEATURES, move_features
from iam.ranker.population import BOOK_FEATURES, PopulationBook, book_features
from iam.ranker.positions import Position
from iam.ranker.scorefeatures import SCORE_FEATURES, score_features
from search.chess.scoring import score_root_moves

__all__ = ["FAMILIES", "DEFAULT_FAMILIES", "family_columns", "Evidence", "EngineSettings"]

FAMILIES: tuple[str, ...] = ("move", "search", "engine", "habits", "population")
"""Every feature family, in the order their columns are laid out."""

DEFAULT_FAMILIES: tuple[str, ...] = ("move", "search", "habits", "population")
"""The pure-Python ranker's families (``engine`` needs an engine)."""


def family_columns(family: str) -> tuple[str, ...]:
    """The column names of one family."""
    if family == "move":
        return MOVE_FEATURES
    if family in ("search", "engine"):
        return tuple(f"{family}_{name}" for name in SCORE_FEATURES)
    if family == "habits":
        return HABIT_FEATURES
    if family == "population":
        return BOOK_FEATURES
    raise ValueError(f"unknown feature family {family!r} (known: {', '.join(FAMILIES)})")


@dataclass(frozen=True)
class EngineSettings:
    """Which UCI engine scores the moves, how deep, and where its analyses are cached."""

    path: str
    depth: int = 8
    cache: str | None = None


@dataclass
class Evidence:
    """The sources of one model's features: which families, the IAM model, the book, the engine.

    ``engine_analyser`` is opened on first use from ``engine`` (one per process).
    """

    families: tuple[str, ...]
    iam: OpponentModel | None = None
    book: PopulationBook | None = None
    search_depth: int = 1
    engine: EngineSettings | None = None
    engine_analyser: EngineAnalyser | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(name for family in self.families for name in family_columns(family))

    def matrix(self, position: Position) -> np.ndarray:
        """The position's feature rows, one per legal move, columns as :attr:`columns`."""
        found: dict[str, np.ndarray] = {}
        for family in self.families:
            found.update(self._family(family, position))
        return np.column_stack([found[name] for name in self.columns]) if position.moves else np.zeros((0, len(self.columns)))

    def matrices(self, positions: Sequence[Position], *, progress: Callable | None = None) -> list[np.ndarray]:
        """:meth:`matrix` of each position (``progress`` wraps the iteration)."""
        iterator = progress(positions) if progress else positions
        return [self.matrix(position) for position in iterator]

    def close(self) -> None:
        """Stop the engine process, if one was started."""
        if self.engine_analyser is not None:
            self.engine_analyser.close()
            self.engine_analyser = None

    def _family(self, family: str, position: Position) -> dict[str, np.ndarray]:
        if family == "move":
            return move_features(position)
        if family == "search":
            return score_features(self._search_scores(position), position.moves, "search")
        if family == "engine":
            return score_features(self._engine_scores(position), position.moves, "engine")
        if family == "habits":
            if self.iam is None:
                return {name: np.zeros(len(position.moves)) for name in HABIT_FEATURES}
            return habit_features(self.iam, position)
        if family == "population":
            return book_features(self.book or PopulationBook(), position)
        raise ValueError(f"unknown feature family {family!r}")

    def _search_scores(self, position: Position) -> dict:
        return score_root_moves(position.board, self.search_depth)

    def _engine_scores(self, position: Position) -> dict:
        if self.engine is None:
            raise ValueError("the engine family needs an engine (EngineSettings)")
        if self.engine_analyser is None:
            self.engine_analyser = EngineAnalyser(self.engine.path, depth=self.engine.depth, cache=self.engine.cache)
        return self.engine_analyser.analyse(position.board).scores
