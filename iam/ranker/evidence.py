"""All the evidence about a position's legal moves, by feature family.

Families (each can be switched off, so an ablation can remove it):

* ``move``: the move itself (:mod:`iam.ranker.movefeatures`);
* ``shape``: what the move does to the whole position: threats, mobility, the enemy
  king's squares, pawn structure, rooks on open files (:mod:`iam.ranker.shapefeatures`);
* ``search``: this project's alpha-beta with quiescence scoring every legal move at a
  fixed shallow depth (:func:`search.chess.scoring.score_root_moves`);
* ``value``: the same from a small network distilled from a UCI engine, on numpy alone
  (:mod:`iam.ranker.valuenet`);
* ``policy``: other masters' taste, from a small network fitted to their choices
  (:mod:`iam.ranker.policynet`; the network that never saw the modelled player);
* ``engine``: the same from a UCI engine such as stockfish, cached on disk
  (:mod:`iam.engine_analysis`);
* ``glance``: the same from the same engine at depth 1 (:data:`GLANCE_DEPTH`): how
  a move looks at first sight, which a master's choice follows as well as its deep
  value;
* ``habits``: the player's chunks and opening memory, from his IAM model
  (:mod:`iam.ranker.habits`), and how much more than other masters he chooses the
  move's pattern (:mod:`iam.ranker.patterns`);
* ``population``: other masters' opening choices (:mod:`iam.ranker.population`) and
  the rate at which they choose the move's pattern.

:class:`Evidence` holds what the families need and computes one position's columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from iam.engine_analysis import EngineAnalyser
from iam.model import OpponentModel
from iam.ranker.habits import HABIT_FEATURES, habit_features
from iam.ranker.patterns import MovePatterns, PatternCounts, pattern_keys, pattern_lift
from iam.ranker.movefeatures import MOVE_FEATURES, move_features
from iam.ranker.population import BOOK_FEATURES, PopulationBook, book_features
from iam.ranker.positions import Position
from iam.ranker.scorefeatures import SCORE_FEATURES, score_features
from iam.ranker.shapefeatures import SHAPE_FEATURES, shape_features
from iam.ranker.search_cache import StoredSearchScores
from iam.ranker.policynet import POLICY_FEATURES, PolicyNet, policy_features
from iam.ranker.valuenet import ValueNet, require_value_net
from search.chess.scoring import RootScoreCache, score_root_moves

__all__ = [
    "FAMILIES",
    "DEFAULT_FAMILIES",
    "ENGINE_FAMILIES",
    "DEFAULT_SEARCH_DEPTH",
    "FAST_SEARCH_DEPTH",
    "GLANCE_DEPTH",
    "family_columns",
    "with_engine",
    "without_engine",
    "Evidence",
    "EngineSettings",
]

FAMILIES: tuple[str, ...] = ("move", "shape", "search", "value", "policy", "engine", "glance", "habits", "population")
"""Every feature family, in the order their columns are laid out."""

ENGINE_FAMILIES: tuple[str, ...] = ("engine", "glance")
"""The families a UCI engine computes: a ranker with any of them needs an engine's path."""

GLANCE_DEPTH = 1
"""Depth of the ``glance`` family's analyses: how a move looks at first sight. Chosen on
development games (``docs/results/ranker.md``, *Engine evidence*)."""

DEFAULT_FAMILIES: tuple[str, ...] = ("move", "shape", "search", "value", "policy", "habits", "population")
"""The pure-Python ranker's families (``engine`` needs an engine)."""

DEFAULT_SEARCH_DEPTH = 3
"""Plies at which this project's search scores every move. Chosen on development games:
each depth up to 3 named the played move more often than the one before, at several times
the cost (``docs/results/ranker.md``)."""

FAST_SEARCH_DEPTH = 2
"""The shallower depth the bundled prior is also fitted at: a ranker about twice as quick to
train and to query, for a short run (the first command of the README), at a point or so of top-1."""


def family_columns(family: str) -> tuple[str, ...]:
    """The column names of one family."""
    if family == "move":
        return MOVE_FEATURES
    if family == "shape":
        return SHAPE_FEATURES
    if family in ("search", "value", *ENGINE_FAMILIES):
        return tuple(f"{family}_{name}" for name in SCORE_FEATURES)
    if family == "policy":
        return tuple(f"policy_{name}" for name in POLICY_FEATURES)
    if family == "habits":
        return (*HABIT_FEATURES, "pattern_lift")
    if family == "population":
        return (*BOOK_FEATURES, "pattern_rate")
    raise ValueError(f"unknown feature family {family!r} (known: {', '.join(FAMILIES)})")


def with_engine(families: Sequence[str]) -> tuple[str, ...]:
    """``families`` and every engine family, in canonical order (what ``--engine`` adds)."""
    return tuple(family for family in FAMILIES if family in families or family in ENGINE_FAMILIES)


def without_engine(families: Sequence[str]) -> tuple[str, ...]:
    """``families`` less the engine families, in canonical order (the pure-Python ranker's)."""
    return tuple(family for family in FAMILIES if family in families and family not in ENGINE_FAMILIES)


@dataclass(frozen=True)
class EngineSettings:
    """Which UCI engine scores the moves, how deep, and where its analyses are cached."""

    path: str
    depth: int = 8
    cache: str | None = None


@dataclass
class Evidence:
    """The sources of one model's features: which families, the IAM model, the book, the engine.

    ``patterns`` are the population's move patterns (the player left out), ``own_patterns``
    the player's own. ``engine_analyser`` is opened on first use from ``engine`` (one per process).
    """

    families: tuple[str, ...]
    iam: OpponentModel | None = None
    book: PopulationBook | None = None
    patterns: MovePatterns | None = None
    own_patterns: PatternCounts | None = None
    value_net: ValueNet | None = None
    policy_net: PolicyNet | None = None
    """The population's policy network (the caller picks the one that never saw the player)."""
    search_depth: int = DEFAULT_SEARCH_DEPTH
    engine: EngineSettings | None = None
    engine_analyser: EngineAnalyser | None = None
    glance_analyser: EngineAnalyser | None = None
    """The same engine at :data:`GLANCE_DEPTH`, opened on first use."""
    root_scores: RootScoreCache | None = None
    """Where the search family's scores are looked up first (shared with a search that computes them too)."""
    search_cache: str | None = None
    """SQLite file where the search family's scores are kept across runs (:mod:`iam.ranker.search_cache`)."""
    stored_scores: StoredSearchScores | None = None
    """Opened on first use from ``search_cache``."""
    _lift: np.ndarray | None = field(default=None, init=False, repr=False)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(name for family in self.families for name in family_columns(family))

    def matrix(self, position: Position) -> np.ndarray:
        """The position's feature rows, one per legal move, columns as :attr:`columns`."""
        found = self.features(position)
        return np.column_stack([found[name] for name in self.columns]) if position.moves else np.zeros((0, len(self.columns)))

    def features(
        self, position: Position, families: Sequence[str] | None = None, *, known: dict[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Column name -> value per legal move, for ``families`` (default: all of this evidence's).

        ``known``: columns of this position already computed elsewhere (the move family's,
        say), which families that read them reuse instead of computing them again.
        """
        found: dict[str, np.ndarray] = dict(known or {})
        for family in self.families if families is None else families:
            found.update(self._family(family, position, found))
        return found if known is None else {name: found[name] for name in found if name not in known}

    def matrices(self, positions: Sequence[Position], *, progress: Callable | None = None) -> list[np.ndarray]:
        """:meth:`matrix` of each position (``progress`` wraps the iteration)."""
        iterator = progress(positions) if progress else positions
        return [self.matrix(position) for position in iterator]

    def close(self) -> None:
        """Stop the engine process, if one was started, and close the search cache."""
        for name in ("engine_analyser", "glance_analyser"):
            analyser = getattr(self, name)
            if analyser is not None:
                analyser.close()
                setattr(self, name, None)
        if self.stored_scores is not None:
            self.stored_scores.close()

    def _family(self, family: str, position: Position, found: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """One family's columns (``found``: the columns already computed for this position)."""
        if family == "move":
            return move_features(position)
        if family == "shape":
            return shape_features(position)
        if family == "search":
            return score_features(self._search_scores(position), position.moves, "search")
        if family == "value":
            columns = found if "exchange_gain" in found else move_features(position)
            return score_features(self._value_net().scores(position, columns), position.moves, "value")
        if family == "policy":
            columns = found if "exchange_gain" in found else move_features(position)
            return policy_features(self._policy_net().log_beliefs(position, columns))
        if family == "engine":
            return score_features(self._engine_scores(position), position.moves, "engine")
        if family == "glance":
            return score_features(self._glance_scores(position), position.moves, "glance")
        if family == "habits":
            if self.iam is None:
                habits = {name: np.zeros(len(position.moves)) for name in HABIT_FEATURES}
            else:
                habits = habit_features(self.iam, position)
            habits["pattern_lift"] = self._pattern_lift()[pattern_keys(position.board, position.moves)]
            return habits
        if family == "population":
            population = book_features(self.book or PopulationBook(), position)
            population["pattern_rate"] = self._population_patterns().log_rates[pattern_keys(position.board, position.moves)]
            return population
        raise ValueError(f"unknown feature family {family!r}")

    def _value_net(self) -> ValueNet:
        if self.value_net is None:
            self.value_net = require_value_net()
        return self.value_net

    def _policy_net(self) -> PolicyNet:
        if self.policy_net is None:  # no default: only the caller knows which network never saw the player
            raise ValueError("the policy family needs a policy network (iam.ranker.policynet.require_policy_net(player))")
        return self.policy_net

    def _population_patterns(self) -> MovePatterns:
        if self.patterns is None:
            self.patterns = MovePatterns()
        return self.patterns

    def _pattern_lift(self) -> np.ndarray:
        """Per pattern, the player's log lift over the population (zeros without his counts)."""
        if self._lift is None:
            if self.own_patterns is None:
                self._lift = np.zeros(len(self._population_patterns().log_rates))
            else:
                self._lift = pattern_lift(self.own_patterns, self._population_patterns().log_rates)
        return self._lift

    def _search_scores(self, position: Position) -> dict:
        if self.root_scores is not None:
            return self.root_scores.scores(position.board, self.search_depth)
        if self.search_cache is not None:
            if self.stored_scores is None:
                self.stored_scores = StoredSearchScores(self.search_cache)
            return self.stored_scores.scores(position.board, self.search_depth)
        return score_root_moves(position.board, self.search_depth)

    def _engine_scores(self, position: Position) -> dict:
        if self.engine is None:
            raise ValueError("the engine family needs an engine (EngineSettings)")
        if self.engine_analyser is None:
            self.engine_analyser = EngineAnalyser(self.engine.path, depth=self.engine.depth, cache=self.engine.cache)
        return self.engine_analyser.analyse(position.board).scores

    def _glance_scores(self, position: Position) -> dict:
        if self.engine is None:
            raise ValueError("the glance family needs an engine (EngineSettings)")
        if self.glance_analyser is None:
            self.glance_analyser = EngineAnalyser(self.engine.path, depth=GLANCE_DEPTH, cache=self.engine.cache)
        return self.glance_analyser.analyse(position.board).scores
