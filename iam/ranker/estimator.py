"""The move ranker: a model of one player that scores every legal move.

``MoveRanker().fit(games)`` learns, from the player's games, how he weighs the
evidence about a move (the move itself, a shallow search, optionally a UCI engine,
his own chunks and openings, and other masters' openings), as a conditional logit
over the legal moves pulled towards a population prior, plus the population's residual
trees where the prior has them (:mod:`iam.priors.trees`). ``predict_proba(board)``
gives a belief for every legal move (they sum to one); ``explain`` says which
features carried a move. It is a scikit-learn style estimator like
:class:`~iam.chunks.model.OpponentModel` and predicts wherever that one does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import chess
import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from iam.chunks.model import OpponentModel
from iam.chunks.rote import RoteMemory
from iam.evidence.evidence import Evidence, EvidenceSources, player_evidence
from iam.evidence.registry import DEFAULT_FAMILIES, ENGINE_FAMILIES, FAMILIES, family_columns
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH, EngineSettings
from iam.games.digest import TrainingGames
from iam.games.pgn import PlayerGame, check_player_games
from iam.models.base import Fitted, Number, PlayerModel, WholeNumber, most_common_name
from iam.models.explanation import Explanation, FeatureContribution
from iam.priors.logit import (
    MoveTable,
    feature_scale,
    fit_conditional_logit,
    fit_temperature,
    position_log_likelihood,
    position_rows,
    softmax_by_position,
    take_positions,
)
from iam.priors.patterns import count_patterns
from iam.priors.policynet import PolicyNet, require_policy_net
from iam.priors.population import PopulationBook, PopulationPrior, bundled_prior
from iam.priors.positions import PlayerPosition, player_positions, position_of
from iam.priors.trees import ResidualTrees
from iam.priors.valuenet import ValueNet, require_value_net
from iam.ranker.calibration import TopLabelCalibration, calibrate_top, fit_top_label
from iam.ranker.fitted import RankerMemories, RankerScoring, RankerState, RankerTraining, blunder_rate
from iam.ranker.own_lines import OWN_LINES_STRENGTH, own_counts, weigh_own_lines
from iam.ranker.persistence import (
    RANKER_FORMAT,
    RANKER_VERSION,
    policy_record,
    ranker_document,
    ranker_from_document,
    saved_params,
)
from iam.ranker.replytable import fit_reply_policy
from iam.ranker.training import deal_folds, move_table
from iam.runtime import Runtime
from search.chess.scoring import RootScoreCache

__all__ = [
    "MoveRanker",
    "FeatureContribution",
    "DEFAULT_PRIOR_STRENGTH",
    "RIDGE_STRENGTH",
    "prior_penalty",
    "RANKER_FORMAT",
    "RANKER_VERSION",
]

_PRIORS = ("population", "population-linear", "none")
DEFAULT_PRIOR_STRENGTH = 1000.0
"""L2 pull towards the population weights, chosen on development games (strengths 3 to 3,000;
``docs/results/ranker.md``). The population already knows most of how a master weighs
evidence; what is his own lives mostly in the habit features, his book and patterns."""
RIDGE_STRENGTH = 30.0
"""L2 pull towards zero when there is no prior (``prior="none"``): a plain ridge, as light
as the lightest pull tried for the population on development games."""
_NO_RUNTIME = Runtime()
"""No engine, no cache, one process: what a ranker runs on until it is given a runtime."""


def prior_penalty(prior: str, strength: float | None, *, exact: bool = True) -> float:
    """The L2 penalty a fit uses: ``strength`` if given, else the default for ``prior``.

    ``exact``: whether the population prior was fitted on exactly the ranker's families
    (and its search depth). When it was not, its weights were fitted beside other columns,
    and the pull towards them is the light :data:`RIDGE_STRENGTH`.
    """
    if strength is not None:
        return float(strength)
    return DEFAULT_PRIOR_STRENGTH if prior == "population" and exact else RIDGE_STRENGTH



class MoveRanker(PlayerModel):
    """A conditional-logit model of one player's move choices over all legal moves.

    Parameters
    ----------
    families:
        Feature families used (see :mod:`iam.evidence.registry`); ``"engine"`` and ``"glance"`` need an engine
        in the :class:`~iam.runtime.Runtime` the ranker runs on.
    search_depth:
        Depth (plies before quiescence) at which this project's search scores every move.
    engine_depth:
        The fixed depth of the ``engine`` family's analyses (the ``glance`` family's is
        :data:`~iam.evidence.settings.GLANCE_DEPTH`).
    max_positions:
        Training positions used (a seeded sample of the player's positions).
    folds:
        Folds of the out-of-fold habit features.
    prior:
        ``"population"``: the bundled population prior and book, without the player
        himself, with the population's residual trees added to the linear score where the
        prior holds trees for exactly these families at this search depth (the default
        families do; their effect is measured in ``docs/results/ranker.md``);
        ``"population-linear"``: the same without the trees (a linear score only);
        a :class:`~iam.priors.population.PopulationPrior`: that one instead of the bundled
        one, with the trees it holds; ``"none"``: weights pulled towards zero, no book.
    prior_strength:
        L2 penalty pulling the weights towards the prior (in units of each feature's spread);
        None: :data:`DEFAULT_PRIOR_STRENGTH` towards the population, :data:`RIDGE_STRENGTH`
        towards zero with ``prior="none"``, and towards the population when its prior was
        not fitted on exactly these families (a combination the prior does not hold).
    reply_positions:
        Positions of the player (a seeded sample of all his positions) on which
        the cheap reply policy a search reads at his interior nodes is fitted
        (:mod:`iam.ranker.replytable`, ``reply_policy_``); 0 (the default) fits none.
        Only the exploiting engine's selectivity reads it (``iam uci --exploit-reduce``),
        which is off by default.
    min_games:
        The IAM model's noise filter (a chunk or opening sequence seen in this many games).
    random_state:
        Seed of the position sample and of the IAM models.

    The player's name is given to :meth:`fit` (inferred from the games when it is not).
    What the ranker runs on (the engine program, caches, processes) is not a parameter: it is
    given to :meth:`fit` and :meth:`load` as a :class:`~iam.runtime.Runtime`, or by :meth:`use`.
    """

    player_ = Fitted()
    n_games_ = Fitted("training")
    n_positions_ = Fitted("training")
    training_log_loss_ = Fitted("training")
    training_games_ = Fitted("training")
    blunder_rate_ = Fitted("training")
    blunder_check_depth_ = Fitted("training")
    families_ = Fitted("scoring")
    feature_names_ = Fitted("scoring")
    coef_ = Fitted("scoring")
    prior_weights_ = Fitted("scoring")
    scale_ = Fitted("scoring")
    temperature_ = Fitted("scoring")
    top_calibration_ = Fitted("scoring")
    trees_ = Fitted("scoring")
    book_ = Fitted("memories")
    population_patterns_ = Fitted("memories")
    own_patterns_ = Fitted("memories")
    iam_ = Fitted("memories")
    value_net_ = Fitted("memories")
    policy_net_ = Fitted("memories")
    reply_policy_ = Fitted("memories")

    kind: ClassVar[str] = "ranker"
    """Which kind of model this is, as reports and JSON name it (the move ranker)."""
    _parameter_constraints: ClassVar[dict[str, list]] = {
        "families": [list, tuple],
        "search_depth": [WholeNumber(1, 6)],
        "engine_depth": [WholeNumber(1, 40)],
        "max_positions": [WholeNumber(1, None, closed="left"), None],
        "folds": [WholeNumber(2, 100)],
        "prior": [StrOptions(set(_PRIORS)), PopulationPrior],
        "prior_strength": [Number(0, float("inf"), closed="left"), None],
        "reply_positions": [WholeNumber(0, None, closed="left")],
        "min_games": [WholeNumber(1, 10**6)],
        "random_state": [WholeNumber(0, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        families: Sequence[str] = DEFAULT_FAMILIES,
        search_depth: int = DEFAULT_SEARCH_DEPTH,
        engine_depth: int = 8,
        max_positions: int | None = 2000,
        folds: int = 5,
        prior: str | PopulationPrior = "population",
        prior_strength: float | None = None,
        reply_positions: int = 0,
        min_games: int = 2,
        random_state: int = 0,
    ) -> None:
        self.families = families
        self.search_depth = search_depth
        self.engine_depth = engine_depth
        self.max_positions = max_positions
        self.folds = folds
        self.prior = prior
        self.prior_strength = prior_strength
        self.reply_positions = reply_positions
        self.min_games = min_games
        self.random_state = random_state

    # -- learning ---------------------------------------------------------------

    def fit(
        self,
        games: Iterable[PlayerGame],
        y: None = None,
        *,
        player: str | None = None,
        runtime: Runtime | None = None,
        progress: Callable | None = None,
    ) -> MoveRanker:
        """Learn the player's weights from his games (in any order: they are taken by their index); returns ``self``.

        ``player``: his name, which the prior's sources leave out (None: the name he has in most of the games).
        ``runtime``: the engine, caches and processes the features are computed with (none, one process, by
        default; always on this machine); the fitted ranker goes on predicting with them until :meth:`use` says
        otherwise.
        """
        games = check_player_games(games, "MoveRanker.fit")
        families = self._check_parameters()
        self._attach(runtime, families)
        _check_games(games, player)
        games.sort(key=lambda game: game.index)  # the sample and the folds follow the games' numbers, not their order
        name = player or most_common_name(games)
        prior = self._population()
        evidence = player_evidence(
            name,
            families,
            prior,
            search_depth=self.search_depth,
            engine=self._engine_settings(),
            search_cache=self.runtime.search_cache,
        )
        iam_params: dict[str, Any] = {"min_games": self.min_games, "random_state": self.random_state, "player": name}
        table, positions = move_table(
            games,
            evidence,
            max_positions=self.max_positions,
            folds=self.folds,
            iam_params=iam_params,
            random_state=self.random_state,
            runtime=self.runtime.local,
            progress=progress,
        )
        scoring, offset = self._fit_scoring(table, positions, families, evidence.columns, prior, name)
        log_loss = (
            float(-position_log_likelihood(table, scoring.coef, offset / scoring.temperature).mean())
            if table.positions
            else float("nan")
        )
        habits = "habits" in families
        self.state_ = RankerState(
            params=saved_params(self, player),
            player=name,
            training=RankerTraining(
                n_games=len(games), n_positions=table.positions, training_log_loss=log_loss,
                training_games=TrainingGames.of(games), blunder_rate=blunder_rate(table, evidence.columns),
            ),
            scoring=scoring,
            memories=RankerMemories(
                book=evidence.sources.book if evidence.sources.book is not None else PopulationBook(),
                population_patterns=evidence.population_patterns(),
                own_patterns=count_patterns(games) if habits else None,
                iam=OpponentModel(**iam_params).fit(games) if habits else None,
                value_net=_value_fingerprint(evidence) if "value" in families else None,
                policy_net=policy_record(families, name),
                reply_policy=(
                    fit_reply_policy(
                        player_positions(games, sample=self.reply_positions, random_state=self.random_state + 1)
                    )
                    if self.reply_positions
                    else None
                ),
            ),
        )
        self._evidence: Evidence | None = None
        return self

    def _fit_scoring(
        self,
        table: MoveTable,
        positions: list[PlayerPosition],
        families: tuple[str, ...],
        columns: tuple[str, ...],
        prior: PopulationPrior | None,
        player: str,
    ) -> tuple[RankerScoring, np.ndarray | float]:
        """The weights pulled towards the prior, the trees and the calibration; and the trees' score of each row."""
        depth = self.search_depth
        found = prior.weights_for(families, player, depth) if prior is not None else {}
        prior_weights = np.array([found.get(name, 0.0) for name in columns])
        scale = feature_scale(table)
        exact = prior is not None and prior.fitted_for(families, player, depth)
        penalty = prior_penalty("none" if prior is None else "population", self.prior_strength, exact=exact)
        linear = self.prior == "population-linear"
        trees = prior.trees_for(families, player, depth) if prior is not None and not linear else None
        offset = 0.0 if trees is None else trees.score(table.features[:, _tree_columns(trees, columns)])
        raw = fit_conditional_logit(table, prior=prior_weights, penalty=penalty, scale=scale, offset=offset)
        temperature, top = self._calibration(table, positions, penalty, offset, prior_weights, scale)
        scoring = RankerScoring(
            families=families,
            feature_names=columns,
            coef=raw / temperature,
            prior_weights=prior_weights,
            scale=scale,
            temperature=temperature,
            top_calibration=top,
            trees=trees,
        )
        return scoring, offset

    def _tree_scores(self, rows: np.ndarray, temperature: float | None = None) -> np.ndarray | float:
        """The residual trees' part of each row's score (0 without trees), divided by the temperature."""
        trees = self.trees_
        if trees is None:
            return 0.0
        cached = getattr(self, "_tree_columns", None)
        if cached is None or cached[0] is not trees:  # the trees' columns among the ranker's, found once
            cached = self._tree_columns = (trees, _tree_columns(trees, self.feature_names_))
        return trees.score(rows[:, cached[1]]) / (self.temperature_ if temperature is None else temperature)

    def _calibration(
        self,
        table: MoveTable,
        positions: list[PlayerPosition],
        penalty: float,
        offset: np.ndarray | float,
        prior_weights: np.ndarray,
        scale: np.ndarray,
    ) -> tuple[float, TopLabelCalibration]:
        """The softmax temperature and the top-label map that calibrate the beliefs, from out-of-fold scores.

        The games of the training positions are dealt into folds by the habit features' rule
        (:func:`~iam.ranker.training.deal_folds`); each fold's
        positions are scored by weights fitted on the other folds (pulled towards ``prior_weights``
        in units of ``scale``); one temperature is
        fitted to those scores, then the map of the top belief
        (:mod:`iam.ranker.calibration`) to the scores divided by it. With too few games to
        hold any out: temperature 1 and no map. The residual trees (``offset``) never saw
        the player, so they are the same in every fold.
        """
        fold_of = deal_folds((position.game for position in positions), self.folds)
        folds = max(fold_of.values(), default=0) + 1
        if folds < 2:
            return 1.0, TopLabelCalibration()
        fold = np.array([fold_of[position.game] for position in positions])
        scores = np.zeros(len(table.features))
        offset = np.broadcast_to(offset, scores.shape)
        for held in range(folds):
            inside, outside = np.flatnonzero(fold != held), np.flatnonzero(fold == held)
            weights = fit_conditional_logit(
                take_positions(table, inside),
                prior=prior_weights,
                penalty=penalty,
                scale=scale,
                offset=offset[position_rows(table, inside)],
            )
            rows = position_rows(table, outside)
            scores[rows] = table.features[rows] @ weights + offset[rows]
        temperature = fit_temperature(table, scores)
        return temperature, fit_top_label(table, scores / temperature)

    def _check_parameters(self) -> tuple[str, ...]:
        """The families as a tuple in canonical order; ValueError for a bad parameter."""
        if isinstance(self.families, str):
            raise ValueError("families must be a list of family names, not one string")
        self._check_params()
        unknown = [family for family in self.families if family not in FAMILIES]
        if unknown or not self.families:
            raise ValueError(f"families must be some of {', '.join(FAMILIES)}, not {list(self.families)!r}")
        return tuple(family for family in FAMILIES if family in self.families)

    def _population(self) -> PopulationPrior | None:
        """The prior the weights are pulled towards: the one given, the bundled one, or None for ``"none"``."""
        if isinstance(self.prior, PopulationPrior):
            return self.prior
        return None if self.prior == "none" else bundled_prior()

    def _engine_settings(self) -> EngineSettings | None:
        return self.runtime.engine_settings(self.engine_depth)

    def _attach(self, runtime: Runtime | None, families: Sequence[str]) -> None:
        """Run on ``runtime`` from now on (ValueError when ``families`` need an engine it lacks)."""
        runtime = Runtime() if runtime is None else runtime
        if not isinstance(runtime, Runtime):
            raise TypeError(f"runtime must be iam.runtime.Runtime, not {type(runtime).__name__}")
        needing = [family for family in ENGINE_FAMILIES if family in families]
        if needing and not runtime.engine:
            raise ValueError(f"the {needing[0]} family needs an engine path: fit or load with Runtime(engine=PATH)")
        self.close()
        self._evidence = None
        self._runtime = runtime

    @property
    def runtime(self) -> Runtime:
        """The engine, caches and processes this ranker computes its evidence with."""
        return getattr(self, "_runtime", _NO_RUNTIME)

    def use(self, runtime: Runtime | None) -> MoveRanker:
        """Predict with ``runtime`` from now on (an engine it held is stopped); returns ``self``.

        The beliefs do not change with the caches or the number of processes; with the engine
        families they are the engine's, so name the same program the ranker was fitted with.
        """
        check_is_fitted(self, "coef_")
        self._attach(runtime, self.families_)
        return self

    # -- predicting ------------------------------------------------------------

    @property
    def evidence(self) -> Evidence:
        """The fitted model's feature sources (opens the engine on first use)."""
        check_is_fitted(self, "coef_")
        evidence = getattr(self, "_evidence", None)
        if evidence is None:
            evidence = self._evidence = Evidence(
                families=self.families_,
                sources=EvidenceSources(
                    iam=self.iam_,
                    book=self.book_,
                    patterns=self.population_patterns_,
                    own_patterns=self.own_patterns_,
                    value_net=_value_net(self.families_),
                    policy_net=_policy_net(self.families_, self.player_),
                ),
                search_depth=self.search_depth,
                engine=self._engine_settings(),
                search_cache=self.runtime.search_cache,
            )
        return evidence

    def beliefs(
        self, board: chess.Board, *, own_lines: float = OWN_LINES_STRENGTH
    ) -> tuple[tuple[chess.Move, ...], np.ndarray, np.ndarray]:
        """Legal moves of ``board`` (sorted by UCI), their beliefs and their feature rows.

        Where his games have been to this position, the beliefs weigh his own choices there
        with the model's, the model counting for ``own_lines`` games (:mod:`iam.ranker.own_lines`;
        ``inf``: the model alone).
        """
        position = position_of(board)
        rows = self.evidence.matrix(position)
        if not position.moves:
            return position.moves, np.zeros(0), rows
        probs = softmax_by_position(rows @ self.coef_ + self._tree_scores(rows), np.array([0, len(rows)]))
        top = self.top_calibration_
        probs = calibrate_top(probs, top.slope, top.offset)
        memory = self.opening_memory()
        entry = memory.lookup_position(board) if memory is not None else None
        if entry is not None:
            probs = weigh_own_lines(probs, own_counts(position.moves, entry.counts), own_lines)
        return position.moves, probs, rows

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        """Belief per legal move of the side to move, highest first; they sum to 1."""
        moves, probs, _ = self.beliefs(board)
        order = np.argsort(-probs, kind="stable")
        return {moves[i]: float(probs[i]) for i in order.tolist()}

    def predict(self, board: chess.Board, *, top: int | None = None) -> list[chess.Move]:
        """The legal moves ranked by belief (at most ``top`` of them)."""
        ranked = list(self.predict_proba(board))
        return ranked if top is None else ranked[:top]

    def explain(self, board: chess.Board, *, top: int | None = 3, features: int = 4) -> list[Explanation]:
        """The ``top`` moves with their belief and the ``features`` that carried each most.

        A feature's contribution is its weight times how far the move's value lies
        from the average over the position's legal moves: what it added to this
        move's score compared with a typical move here. The population's residual
        trees count as one more feature, ``residual_trees``, whose value is their score.
        """
        moves, probs, rows = self.beliefs(board)
        if not moves:
            return []
        names = list(self.feature_names_)
        family_of = {name: family for family in self.families_ for name in family_columns(family)}
        values = rows
        if self.trees_ is not None:
            names.append("residual_trees")
            family_of["residual_trees"] = "population"
            values = np.column_stack([rows, self._tree_scores(rows, temperature=1.0)])
        weights = np.append(self.coef_, 1.0 / self.temperature_) if len(names) > len(self.coef_) else self.coef_
        centred = (values - values.mean(axis=0)) * weights
        order = np.argsort(-probs, kind="stable")[: top if top is not None else len(moves)]
        explained = []
        for i in order.tolist():
            strongest = np.argsort(-np.abs(centred[i]), kind="stable")[:features]
            contributions = [
                FeatureContribution(
                    feature=names[j],
                    family=family_of[names[j]],
                    value=float(values[i, j]),
                    contribution=float(centred[i, j]),
                )
                for j in strongest.tolist()
                if centred[i, j] != 0.0
            ]
            explained.append(Explanation(moves[i], board.san(moves[i]), float(probs[i]), features=tuple(contributions)))
        return explained

    def context_key(self, board: chess.Board) -> tuple:
        """What besides the position the beliefs depend on: the IAM model's context and the last two moves."""
        stack = board.move_stack
        iam_key = self.iam_.context_key(board) if self.iam_ is not None else ()
        return (tuple(stack[-2:]), iam_key)

    def chunk_model(self) -> OpponentModel | None:
        """The IAM model of his habits family, whose chunk library describes him (``None`` without it)."""
        return self.iam_

    def opening_memory(self) -> RoteMemory | None:
        """The rote memory of his openings, kept by the habits family's IAM model (``None`` without it)."""
        return None if self.iam_ is None else self.iam_.rote_

    def use_root_scores(self, cache: RootScoreCache) -> None:
        """Look the search family's scores up in ``cache`` first (a search filling it shares them).

        The beliefs do not change: the cache holds exactly what the family computes.
        """
        self.evidence.root_scores = cache

    def weights(self) -> dict[str, float]:
        """Fitted weight per feature name."""
        check_is_fitted(self, "coef_")
        return dict(zip(self.feature_names_, self.coef_.tolist()))

    def close(self) -> None:
        """Stop an engine the model started (safe to call any time)."""
        evidence = getattr(self, "_evidence", None)
        if evidence is not None:
            evidence.close()

    # -- files ------------------------------------------------------------------

    def to_dict(self) -> dict:
        """The JSON-ready content of the fitted model (its IAM model included; :mod:`iam.ranker.persistence`)."""
        return ranker_document(self)

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "model", runtime: Runtime | None = None) -> MoveRanker:
        """A fitted ranker from :meth:`to_dict`'s content, running on ``runtime``; ModelFileError if it is not one.

        A file never names a program to run: a ranker with engine evidence needs the
        engine's path from the caller (``Runtime(engine=PATH)``), and is refused without it.
        """
        return ranker_from_document(cls, data, source=source, runtime=runtime)


def _check_games(games: list, player: object) -> None:
    """ValueError or TypeError for games (or a player's name) a ranker cannot be fitted on."""
    if not games:
        raise ValueError("cannot fit a move ranker on no games")
    if player is not None and not isinstance(player, str):
        raise TypeError(f"player must be a name (str) or None, not {type(player).__name__}")


def _tree_columns(trees: ResidualTrees, columns: Sequence[str]) -> list[int]:
    """Where the trees' columns are among the ranker's ``columns``."""
    return [list(columns).index(name) for name in trees.columns]


def _value_fingerprint(evidence: Evidence) -> str:
    """The fingerprint of the value network ``evidence`` reads (it has one for the value family)."""
    return evidence.value_network().fingerprint


def _value_net(families: Sequence[str]) -> ValueNet | None:
    """The installed value network when ``families`` use it (ValueError when it is missing)."""
    return require_value_net() if "value" in families else None

def _policy_net(families: Sequence[str], player: str) -> PolicyNet | None:
    """The installed policy network that never saw ``player``, when ``families`` use it."""
    return require_policy_net(player)[1] if "policy" in families else None
