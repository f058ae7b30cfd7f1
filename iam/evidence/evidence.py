"""The evidence of one model: its families and their sources, and one position's columns from them.

:class:`Evidence` holds what the families compute from (the player's IAM model and move patterns,
the population's book and patterns, the networks: :class:`~iam.evidence.sources.EvidenceSources`;
the search and engine settings) and, apart, the processes and caches it opens on first use and
closes (:class:`OpenedSources`: the engine's analysers, the search's score file); it is the context
each family's computation (:mod:`iam.evidence.compute`) is given, and lays out their columns in the
registry's order (:mod:`iam.evidence.registry`). :func:`player_evidence` builds it for a player from
sources that never saw him.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from iam.chunks.model import OpponentModel
from iam.engines.analysis import EngineAnalyser
from iam.evidence.registry import FAMILY_REGISTRY, Family
from iam.evidence.search_cache import StoredSearchScores
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH, GLANCE_DEPTH, EngineSettings
from iam.evidence.sources import EvidenceSources
from iam.priors.patterns import MovePatterns, PatternCounts, pattern_lift
from iam.priors.policynet import PolicyNet, require_policy_net
from iam.priors.population import PopulationBook, PopulationPrior
from iam.priors.positions import PlayerPosition
from iam.priors.valuenet import ValueNet, require_value_net
from search.chess.scoring import RootScoreCache, score_root_moves

__all__ = ["Evidence", "EvidenceSources", "OpenedSources", "player_evidence"]


@dataclass
class OpenedSources:
    """What an evidence opens or works out on first use and owns: processes, an open file, derived tables.

    A copy of an evidence (``dataclasses.replace``) starts with none of them.
    """

    engine_analyser: EngineAnalyser | None = None
    """The engine at the depth of the evidence's :class:`~iam.evidence.settings.EngineSettings`."""
    glance_analyser: EngineAnalyser | None = None
    """The same engine at :data:`~iam.evidence.settings.GLANCE_DEPTH`."""
    stored_scores: StoredSearchScores | None = None
    """The search scores' file (the evidence's ``search_cache``)."""
    patterns: MovePatterns | None = None
    """Empty population patterns, when the sources hold none."""
    lift: np.ndarray | None = None
    """Per pattern, the player's log lift over the population."""

    def close(self) -> None:
        """Stop the engine processes and close the search scores' file, if they were opened."""
        for name in ("engine_analyser", "glance_analyser"):
            analyser = getattr(self, name)
            if analyser is not None:
                analyser.close()
                setattr(self, name, None)
        if self.stored_scores is not None:
            self.stored_scores.close()


@dataclass
class Evidence:
    """The sources of one model's features: which families, what they read, the search and the engine settings.

    The engine's analysers and the search scores' file are opened on first use (one per process) and
    kept in ``opened``.
    """

    families: tuple[str, ...]
    sources: EvidenceSources = field(default_factory=EvidenceSources)
    """What the families read about the player and the population."""
    search_depth: int = DEFAULT_SEARCH_DEPTH
    engine: EngineSettings | None = None
    search_cache: str | None = None
    """SQLite file where the search family's scores are kept across runs (:mod:`iam.evidence.search_cache`)."""
    registry: Mapping[str, Family] = field(default_factory=lambda: FAMILY_REGISTRY)
    """The families by name (default :data:`~iam.evidence.registry.FAMILY_REGISTRY`)."""
    root_scores: RootScoreCache | None = field(default=None, init=False, repr=False)
    """Where the search family's scores are looked up first (shared with a search that computes them too; set it)."""
    opened: OpenedSources = field(default_factory=OpenedSources, init=False, repr=False)
    """The processes and caches this evidence opened, which :meth:`close` closes."""

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(name for family in self.families for name in self.registry[family].columns)

    def matrix(self, position: PlayerPosition) -> np.ndarray:
        """The position's feature rows, one per legal move, columns as :attr:`columns`."""
        found = self.features(position)
        return (
            np.column_stack([found[name] for name in self.columns])
            if position.moves
            else np.zeros((0, len(self.columns)))
        )

    def features(
        self,
        position: PlayerPosition,
        families: Sequence[str] | None = None,
        *,
        known: dict[str, np.ndarray] | None = None,
    ) -> dict[str, np.ndarray]:
        """Column name -> value per legal move, for ``families`` (default: all of this evidence's).

        ``known``: columns of this position already computed elsewhere (the move family's,
        say), which families that read them reuse instead of computing them again.
        """
        found: dict[str, np.ndarray] = dict(known or {})
        for family in self.families if families is None else families:
            if family not in self.registry:
                raise ValueError(f"unknown feature family {family!r}")
            found.update(self.registry[family].compute(self, position, found))
        return found if known is None else {name: found[name] for name in found if name not in known}

    def matrices(self, positions: Sequence[PlayerPosition], *, progress: Callable | None = None) -> list[np.ndarray]:
        """:meth:`matrix` of each position (``progress`` wraps the iteration)."""
        iterator = progress(positions) if progress else positions
        return [self.matrix(position) for position in iterator]

    def close(self) -> None:
        """Stop the engine process, if one was started, and close the search cache."""
        self.opened.close()

    # -- what the families read (iam.evidence.compute.EvidenceContext) ------------------

    def value_network(self) -> ValueNet:
        """The value network: the one given, else the shipped one."""
        return self.sources.value_net if self.sources.value_net is not None else require_value_net()

    def policy_network(self) -> PolicyNet:
        """The population's policy network; no default, since only the caller knows which never saw the player."""
        if self.sources.policy_net is None:
            raise ValueError(
                "the policy family needs a policy network (iam.priors.policynet.require_policy_net(player))"
            )
        return self.sources.policy_net

    def population_patterns(self) -> MovePatterns:
        """The population's move patterns (empty ones when none were given)."""
        if self.sources.patterns is not None:
            return self.sources.patterns
        if self.opened.patterns is None:
            self.opened.patterns = MovePatterns()
        return self.opened.patterns

    def pattern_lift(self) -> np.ndarray:
        """Per pattern, the player's log lift over the population (zeros without his counts)."""
        opened = self.opened
        if opened.lift is None:
            own = self.sources.own_patterns
            rates = self.population_patterns().log_rates
            opened.lift = np.zeros(len(rates)) if own is None else pattern_lift(own, rates)
        return opened.lift

    def search_scores(self, position: PlayerPosition) -> dict:
        """This project's search's scores of the legal moves at :attr:`search_depth`: shared, stored or computed."""
        if self.root_scores is not None:
            return self.root_scores.scores(position.board, self.search_depth)
        if self.search_cache is not None:
            if self.opened.stored_scores is None:
                self.opened.stored_scores = StoredSearchScores(self.search_cache)
            return self.opened.stored_scores.scores(position.board, self.search_depth)
        return score_root_moves(position.board, self.search_depth)

    def engine_scores(self, position: PlayerPosition) -> dict:
        """The UCI engine's scores of the legal moves at the depth of :attr:`engine`."""
        if self.engine is None:
            raise ValueError("the engine family needs an engine (EngineSettings)")
        if self.opened.engine_analyser is None:
            self.opened.engine_analyser = self._analyser(self.engine, self.engine.depth)
        return self.opened.engine_analyser.analyse(position.board).scores

    def glance_scores(self, position: PlayerPosition) -> dict:
        """The UCI engine's scores of the legal moves at :data:`~iam.evidence.settings.GLANCE_DEPTH`."""
        if self.engine is None:
            raise ValueError("the glance family needs an engine (EngineSettings)")
        if self.opened.glance_analyser is None:
            self.opened.glance_analyser = self._analyser(self.engine, GLANCE_DEPTH)
        return self.opened.glance_analyser.analyse(position.board).scores

    @staticmethod
    def _analyser(engine: EngineSettings, depth: int) -> EngineAnalyser:
        return EngineAnalyser(engine.path, depth=depth, cache=engine.cache, analysis_timeout=engine.timeout)


def player_evidence(
    player: str,
    families: Sequence[str],
    population: PopulationPrior | None,
    *,
    search_depth: int = DEFAULT_SEARCH_DEPTH,
    engine: EngineSettings | None = None,
    search_cache: str | None = None,
    iam: OpponentModel | None = None,
    own_patterns: PatternCounts | None = None,
) -> Evidence:
    """The evidence about ``player``'s moves from sources that never saw him.

    The population's opening book and move patterns with every master of his name left
    out, the policy network fitted without him, the shipped value network; ``iam`` and
    ``own_patterns`` are his own (None while they are being fitted). Fitting, ablation and
    the population prior's build all take their evidence from here.
    """
    book = population.book.without(player) if population is not None else PopulationBook()
    others = population.patterns.without(player).pooled if population is not None else PatternCounts()
    sources = EvidenceSources(
        iam=iam,
        book=book,
        patterns=MovePatterns({"population": others}),
        own_patterns=own_patterns,
        value_net=require_value_net() if "value" in families else None,
        policy_net=require_policy_net(player)[1] if "policy" in families else None,
    )
    return Evidence(
        families=tuple(families),
        sources=sources,
        search_depth=search_depth,
        engine=engine,
        search_cache=search_cache,
    )
