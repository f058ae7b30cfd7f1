"""All the evidence about a position's legal moves, by feature family.

Families (each can be switched off, so an ablation can remove it):

* ``move``: the move itself (:mod:`iam.evidence.movefeatures`);
* ``shape``: what the move does to the whole position: threats, mobility, the enemy
  king's squares, pawn structure, rooks on open files (:mod:`iam.evidence.shapefeatures`);
* ``search``: this project's alpha-beta with quiescence scoring every legal move at a
  fixed shallow depth (:func:`search.chess.scoring.score_root_moves`);
* ``value``: the same from a small network distilled from a UCI engine, on numpy alone
  (:mod:`iam.priors.valuenet`);
* ``policy``: other masters' taste, from a small network fitted to their choices
  (:mod:`iam.priors.policynet`; the network that never saw the modelled player);
* ``engine``: the same from a UCI engine such as stockfish, cached on disk
  (:mod:`iam.engines.analysis`);
* ``glance``: the same from the same engine at depth 1 (:data:`GLANCE_DEPTH`): how
  a move looks at first sight, which a master's choice follows as well as its deep
  value;
* ``habits``: the player's chunks and opening memory, from his IAM model
  (:mod:`iam.evidence.habits`), and how much more than other masters he chooses the
  move's pattern (:mod:`iam.priors.patterns`);
* ``population``: other masters' opening choices (:mod:`iam.priors.population`) and
  the rate at which they choose the move's pattern.

:class:`Evidence` holds what the families need and computes one position's columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from iam.chunks.model import OpponentModel
from iam.engines.analysis import EngineAnalyser
from iam.evidence.habits import HABIT_FEATURES, habit_features
from iam.evidence.movefeatures import MOVE_FEATURES, move_features
from iam.evidence.scorefeatures import SCORE_FEATURES, score_features
from iam.evidence.search_cache import StoredSearchScores
from iam.evidence.shapefeatures import SHAPE_FEATURES, shape_features
from iam.priors.patterns import MovePatterns, PatternCounts, pattern_keys, pattern_lift
from iam.priors.policynet import POLICY_FEATURES, PolicyNet, policy_features, require_policy_net
from iam.priors.population import BOOK_FEATURES, PopulationBook, PopulationPrior, book_features
from iam.priors.positions import PlayerPosition
from iam.priors.valuenet import ValueNet, require_value_net
from search.chess.scoring import RootScoreCache, score_root_moves

__all__ = [
    "FAMILIES",
    "DEFAULT_FAMILIES",
    "QUICK_FAMILIES",
    "ENGINE_FAMILIES",
    "DEFAULT_SEARCH_DEPTH",
    "FAST_SEARCH_DEPTH",
    "GLANCE_DEPTH",
    "family_columns",
    "FAMILY_WORDS",
    "feature_words",
    "with_engine",
    "without_engine",
    "Evidence",
    "EngineSettings",
    "Family",
    "FAMILY_REGISTRY",
    "player_evidence",
]

ENGINE_FAMILIES: tuple[str, ...] = ("engine", "glance")
"""The families a UCI engine computes: a ranker with any of them needs an engine's path."""

GLANCE_DEPTH = 1
"""Depth of the ``glance`` family's analyses: how a move looks at first sight. Chosen on
development games (``docs/results/ranker.md``, *Engine evidence*)."""

DEFAULT_FAMILIES: tuple[str, ...] = ("move", "shape", "search", "value", "policy", "habits", "population")
"""The pure-Python ranker's families (``engine`` needs an engine)."""

QUICK_FAMILIES: tuple[str, ...] = ("move", "policy", "habits", "population")
"""The families that search nothing: a *quick* ranker of milliseconds a position, which a
game-tree search can afford at its modelled player's nodes below the root, where the
default ranker (which searches every move) is read at the root's children only."""

DEFAULT_SEARCH_DEPTH = 3
"""Plies at which this project's search scores every move. Chosen on development games:
each depth up to 3 named the played move more often than the one before, at several times
the cost (``docs/results/ranker.md``)."""

FAST_SEARCH_DEPTH = 2
"""The shallower depth the bundled prior is also fitted at: a ranker about twice as quick to
train and to query, for a short run (the first command of the README), at a point or so of top-1."""


def family_columns(family: str) -> tuple[str, ...]:
    """The column names of one family."""
    if family not in FAMILY_REGISTRY:
        raise ValueError(f"unknown feature family {family!r} (known: {', '.join(FAMILIES)})")
    return FAMILY_REGISTRY[family].columns


FAMILY_WORDS: dict[str, str] = {
    "move": "the move itself",
    "shape": "what the move does to the position",
    "search": "this toolkit's search",
    "value": "the value network (an engine's judgement, distilled)",
    "policy": "other masters' taste",
    "engine": "the engine",
    "glance": "the engine at first glance",
    "habits": "his own habits (chunks and opening memory)",
    "population": "other masters' openings and patterns",
}
"""Each family in words a chess player reads."""

_FEATURE_WORDS: dict[str, str] = {
    "piece_pawn": "a pawn move",
    "piece_knight": "a knight move",
    "piece_bishop": "a bishop move",
    "piece_rook": "a rook move",
    "piece_queen": "a queen move",
    "piece_king": "a king move",
    "capture": "a capture",
    "captured_value": "the material it captures",
    "exchange_gain": "what it wins in the exchange",
    "exchange_loss": "what it loses in the exchange",
    "check": "a check",
    "left_en_prise": "leaves a piece hanging",
    "rescued": "saves a threatened piece",
    "recapture": "a recapture",
    "castle": "castling",
    "promotion": "a promotion",
    "pawn_advance": "how far the pawn advances",
    "pst_gain": "a better square for the piece",
    "near_last_move": "near the last move",
    "retreat": "a retreat",
    "develop": "develops a piece",
    "same_piece_again": "moves the same piece again",
    "threat_gain": "new threats",
    "double_threat": "a double attack",
    "mobility_gain": "more room for his pieces",
    "enemy_mobility_gain": "more room for the opponent's pieces",
    "king_attack_gain": "pressure on the enemy king",
    "doubled_pawns_gain": "doubled pawns",
    "isolated_pawns_gain": "isolated pawns",
    "passed_pawns_gain": "a new passed pawn",
    "passed_pawn_push": "pushes a passed pawn",
    "rook_open_file": "a rook on an open file",
    "rook_seventh": "a rook on the seventh rank",
    "policy_log_belief": "what other masters would play",
    "policy_best": "other masters' first choice",
    "policy_rank": "its rank among other masters' choices",
    "iam_belief": "his chunks' and opening memory's belief",
    "iam_log_belief": "his chunks' and opening memory's belief (log)",
    "iam_top": "his habits' first choice",
    "rote_share": "his own opening move (how often he chose it)",
    "rote_top": "his most played opening move",
    "pattern_lift": "a kind of move he plays more than other masters",
    "book_share": "the book move (how often masters chose it)",
    "book_log_games": "how well known the book position is",
    "book_top": "the masters' most played book move",
    "pattern_rate": "a kind of move masters often play",
    "residual_trees": "the population's correction trees",
}
_SCORE_WORDS: dict[str, str] = {
    "best": "{source}'s choice",
    "loss": "what it loses by {source}'s score",
    "log_loss": "what it loses by {source}'s score (log)",
    "loss_under_30cp": "within 0.3 pawns of {source}'s choice",
    "loss_under_100cp": "within a pawn of {source}'s choice",
    "loss_over_300cp": "a blunder by {source}'s score (over 3 pawns)",
    "rank": "its rank by {source}'s score",
    "best_gap": "how far ahead {source}'s choice is",
    "near_best_share": "how many moves are about as good, by {source}",
}
_SCORE_SOURCES = {"search": "the search", "value": "the value network", "engine": "the engine", "glance": "the engine's first glance"}


def feature_words(name: str) -> str:
    """A feature column in words a chess player reads (the name itself when it has none).

    >>> feature_words("book_share"), feature_words("engine_best")
    ('the book move (how often masters chose it)', "the engine's choice")
    """
    if name in _FEATURE_WORDS:
        return _FEATURE_WORDS[name]
    source, _, score = name.partition("_")
    if source in _SCORE_SOURCES and score in _SCORE_WORDS:
        return _SCORE_WORDS[score].format(source=_SCORE_SOURCES[source])
    return name


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
    timeout: float | None = None
    """Seconds one position's analysis may take (``None``: derived from the depth)."""


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
    """SQLite file where the search family's scores are kept across runs (:mod:`iam.evidence.search_cache`)."""
    stored_scores: StoredSearchScores | None = None
    """Opened on first use from ``search_cache``."""
    registry: Mapping[str, Family] | None = None
    """The families by name (default :data:`FAMILY_REGISTRY`)."""
    _lift: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.registry is None:
            self.registry = FAMILY_REGISTRY

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(name for family in self.families for name in self.registry[family].columns)

    def matrix(self, position: PlayerPosition) -> np.ndarray:
        """The position's feature rows, one per legal move, columns as :attr:`columns`."""
        found = self.features(position)
        return np.column_stack([found[name] for name in self.columns]) if position.moves else np.zeros((0, len(self.columns)))

    def features(
        self, position: PlayerPosition, families: Sequence[str] | None = None, *, known: dict[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Column name -> value per legal move, for ``families`` (default: all of this evidence's).

        ``known``: columns of this position already computed elsewhere (the move family's,
        say), which families that read them reuse instead of computing them again.
        """
        found: dict[str, np.ndarray] = dict(known or {})
        for family in self.families if families is None else families:
            found.update(self._family(family, position, found))
        return found if known is None else {name: found[name] for name in found if name not in known}

    def matrices(self, positions: Sequence[PlayerPosition], *, progress: Callable | None = None) -> list[np.ndarray]:
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

    def _family(self, family: str, position: PlayerPosition, found: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """One family's columns (``found``: the columns already computed for this position)."""
        if family not in self.registry:
            raise ValueError(f"unknown feature family {family!r}")
        return self.registry[family].compute(self, position, found)

    def _move_columns(self, position: PlayerPosition, found: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The move family's columns, from ``found`` when they are there (the networks read them)."""
        return found if "exchange_gain" in found else move_features(position)

    def _habit_columns(self, position: PlayerPosition) -> dict[str, np.ndarray]:
        if self.iam is None:
            habits = {name: np.zeros(len(position.moves)) for name in HABIT_FEATURES}
        else:
            habits = habit_features(self.iam, position)
        habits["pattern_lift"] = self._pattern_lift()[pattern_keys(position.board, position.moves)]
        return habits

    def _population_columns(self, position: PlayerPosition) -> dict[str, np.ndarray]:
        population = book_features(self.book or PopulationBook(), position)
        population["pattern_rate"] = self._population_patterns().log_rates[pattern_keys(position.board, position.moves)]
        return population

    def _value_net(self) -> ValueNet:
        if self.value_net is None:
            self.value_net = require_value_net()
        return self.value_net

    def _policy_net(self) -> PolicyNet:
        if self.policy_net is None:  # no default: only the caller knows which network never saw the player
            raise ValueError("the policy family needs a policy network (iam.priors.policynet.require_policy_net(player))")
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

    def _search_scores(self, position: PlayerPosition) -> dict:
        if self.root_scores is not None:
            return self.root_scores.scores(position.board, self.search_depth)
        if self.search_cache is not None:
            if self.stored_scores is None:
                self.stored_scores = StoredSearchScores(self.search_cache)
            return self.stored_scores.scores(position.board, self.search_depth)
        return score_root_moves(position.board, self.search_depth)

    def _engine_scores(self, position: PlayerPosition) -> dict:
        if self.engine is None:
            raise ValueError("the engine family needs an engine (EngineSettings)")
        if self.engine_analyser is None:
            self.engine_analyser = EngineAnalyser(
                self.engine.path, depth=self.engine.depth, cache=self.engine.cache, analysis_timeout=self.engine.timeout
            )
        return self.engine_analyser.analyse(position.board).scores

    def _glance_scores(self, position: PlayerPosition) -> dict:
        if self.engine is None:
            raise ValueError("the glance family needs an engine (EngineSettings)")
        if self.glance_analyser is None:
            self.glance_analyser = EngineAnalyser(
                self.engine.path, depth=GLANCE_DEPTH, cache=self.engine.cache, analysis_timeout=self.engine.timeout
            )
        return self.glance_analyser.analyse(position.board).scores


@dataclass(frozen=True)
class Family:
    """One family of evidence: its name, its columns, and how it computes them for a position.

    ``compute(evidence, position, found)`` returns the family's columns, one value per
    legal move; ``found`` holds the columns already computed for the position.
    """

    name: str
    columns: tuple[str, ...]
    compute: Callable[[Evidence, PlayerPosition, dict[str, np.ndarray]], dict[str, np.ndarray]]


def _score_family(name: str, scores: Callable[[Evidence, PlayerPosition, dict[str, np.ndarray]], dict]) -> Family:
    """A family of :data:`~iam.evidence.scorefeatures.SCORE_FEATURES` built from one source of move scores."""
    return Family(
        name,
        tuple(f"{name}_{column}" for column in SCORE_FEATURES),
        lambda evidence, position, found: score_features(scores(evidence, position, found), position.moves, name),
    )


FAMILY_REGISTRY: Mapping[str, Family] = MappingProxyType(
    {
        family.name: family
        for family in (
            Family("move", MOVE_FEATURES, lambda evidence, position, found: move_features(position)),
            Family("shape", SHAPE_FEATURES, lambda evidence, position, found: shape_features(position)),
            _score_family("search", lambda evidence, position, found: evidence._search_scores(position)),
            _score_family(
                "value",
                lambda evidence, position, found: evidence._value_net().scores(position, evidence._move_columns(position, found)),
            ),
            Family(
                "policy",
                tuple(f"policy_{name}" for name in POLICY_FEATURES),
                lambda evidence, position, found: policy_features(
                    evidence._policy_net().log_beliefs(position, evidence._move_columns(position, found))
                ),
            ),
            _score_family("engine", lambda evidence, position, found: evidence._engine_scores(position)),
            _score_family("glance", lambda evidence, position, found: evidence._glance_scores(position)),
            Family("habits", (*HABIT_FEATURES, "pattern_lift"), lambda evidence, position, found: evidence._habit_columns(position)),
            Family(
                "population", (*BOOK_FEATURES, "pattern_rate"), lambda evidence, position, found: evidence._population_columns(position)
            ),
        )
    }
)
"""Every feature family by name, in the order their columns are laid out. A new family is one entry here."""

FAMILIES: tuple[str, ...] = tuple(FAMILY_REGISTRY)
"""Every feature family, in the order their columns are laid out."""


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
    return Evidence(
        families=tuple(families),
        iam=iam,
        book=book,
        patterns=MovePatterns({"population": others}),
        own_patterns=own_patterns,
        value_net=require_value_net() if "value" in families else None,
        policy_net=require_policy_net(player)[1] if "policy" in families else None,
        search_depth=search_depth,
        engine=engine,
        search_cache=search_cache,
    )
