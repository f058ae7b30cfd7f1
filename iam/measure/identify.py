"""Who played these games: the likelihood of a player's moves under candidate models.

Every candidate model gives each legal move of a position a probability; the
log-probability of the move the player chose, summed over his moves, says how well
a candidate explains him. :class:`LikelihoodScorer` computes those log-likelihoods for
many models at once, sharing the work that does not depend on the model: for move
rankers the ``move``, ``search`` and ``engine`` columns of a position are computed
once and each model adds only its own habits and book columns and one dot product.

Probabilities over candidates are a tempered softmax of the summed log-likelihoods
(``softmax(moves * mean_log_likelihood / T)``): with ``T = 1`` it is Bayes' rule
with equal priors, which is over-confident when the models are only approximately
right; ``T`` is fitted on development games (:func:`fit_temperature`).

>>> import numpy as np
>>> candidate_probabilities(np.array([[-10.0, -12.0]]), temperature=2.0).round(3)
array([[0.731, 0.269]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar
from scipy.special import softmax
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from iam.chunks.model import OpponentModel
from iam.evidence.evidence import Evidence
from iam.evidence.registry import ENGINE_FAMILIES, family_columns
from iam.games.pgn import PlayerGame, check_player_games
from iam.measure.repertoire import MODEL_WEIGHT, RepertoireScorer, memory_of
from iam.priors.positions import PlayerPosition, player_positions
from iam.ranker.calibration import TopLabelCalibration, calibrate_top
from iam.ranker.estimator import MoveRanker
from iam.ranker.own_lines import own_counts, weigh_own_lines
from iam.runtime import Runtime, map_in_order, runtime_from

__all__ = [
    "Candidate",
    "LikelihoodScorer",
    "Identification",
    "identify",
    "check_candidates",
    "game_positions",
    "candidate_probabilities",
    "fit_temperature",
    "rank_credit",
    "IAM_FLOOR",
    "SHOWN_CANDIDATES",
]

Candidate = OpponentModel | MoveRanker
"""A candidate model: the source notes' IAM model or a move ranker."""

SHOWN_CANDIDATES = 10
"""Candidates a printed :class:`Identification` lists (the best)."""

IAM_FLOOR = 1e-4
"""Smallest probability of a move under an IAM model (as in its log loss)."""

_SHARED = ("move", "shape", "search", "value", *ENGINE_FAMILIES)
"""Ranker families whose columns depend on the position only, never on the player."""
_OWN = ("policy", "habits", "population")
"""Ranker families whose columns each model computes itself (its memory, its population, the policy network
that never saw its player)."""


def check_candidates(models: Sequence[Candidate]) -> str:
    """The models' kind (``"iam"`` or ``"ranker"``); ValueError when they cannot be compared.

    Candidates must be of one kind, and move rankers must read their shared evidence
    the same way (search depth, engine and its depth): otherwise a likelihood would
    differ because of a setting, not because of the player.
    """
    if not models:
        raise ValueError("no candidate models")
    kinds = {_kind(model) for model in models}
    if len(kinds) > 1:
        raise ValueError(
            "candidate models are of different kinds (IAM models and move rankers); compare one kind at a time"
        )
    for model in models:
        try:
            check_is_fitted(model)
        except NotFittedError:
            raise ValueError("candidate models must be fitted") from None
    if kinds == {"ranker"}:
        settings = {_shared_settings(model) for model in models}
        if len(settings) > 1:
            raise ValueError("candidate move rankers use different search or engine settings; fit them alike")
    return kinds.pop()


def _kind(model: Candidate) -> str:
    """The model's kind as its class declares it (``"iam"`` or ``"ranker"``); ValueError for anything else."""
    kind = next((klass.__dict__["kind"] for klass in type(model).__mro__ if "kind" in klass.__dict__), None)
    if kind not in ("iam", "ranker"):
        raise ValueError("candidates must be IAM models or move rankers")
    return kind


def _shared_settings(model: MoveRanker) -> tuple:
    engine = (model.engine_depth,) if any(family in model.families_ for family in ENGINE_FAMILIES) else ()
    return (model.search_depth, *engine)


def game_positions(game: PlayerGame, *, cap: int | None = None, random_state: int = 0) -> list[PlayerPosition]:
    """The player's positions in one game (all, or a seeded sample of ``cap`` in game order)."""
    return player_positions([game], sample=cap, random_state=random_state + game.index)


class LikelihoodScorer:
    """Log-likelihood of the played move under each of several models, work shared.

    Models may be of both kinds here (an experiment scores several predictors in one
    pass); move rankers must agree on search depth and engine (:func:`check_candidates`).
    """

    def __init__(
        self,
        models: Sequence[Candidate],
        *,
        repertoire: bool = False,
        model_weight: float = 1.0,
        runtime: Runtime = Runtime(),
    ) -> None:
        if not 0 <= model_weight < float("inf"):
            raise ValueError("the models' weight must be a number of at least 0")
        self.models = list(models)
        self.repertoire = RepertoireScorer([memory_of(model) for model in self.models]) if repertoire else None
        """With ``repertoire``, positions some candidate remembers from his openings are scored by
        the candidates' repertoires (:mod:`iam.measure.repertoire`), the rest by the models, their
        log-likelihoods times ``model_weight``."""
        self.model_weight = model_weight if repertoire else 1.0
        rankers = [model for model in self.models if _kind(model) == "ranker"]
        if rankers:
            check_candidates(rankers)
        shared = tuple(f for f in _SHARED if any(f in model.families_ for model in rankers))
        first = rankers[0] if rankers else None
        engine = next(
            (
                r.runtime.engine_settings(r.engine_depth)
                for r in rankers
                if any(f in r.families_ for f in ENGINE_FAMILIES)
            ),
            None,
        )
        self.runtime = runtime
        """Where :meth:`games` scores the games, and the search scores' cache (the engine is the rankers' own)."""
        self.evidence = Evidence(
            families=shared,
            search_depth=first.search_depth if first else 1,
            engine=engine,
            search_cache=runtime.search_cache,
        )
        """The shared families' sources; with the runtime's ``search_cache`` (an SQLite file) the search family's
        scores are kept across runs (:mod:`iam.evidence.search_cache`)."""
        columns = list(self.evidence.columns)
        self._weights = np.zeros((len(columns), len(self.models)))
        self._own: dict[int, tuple[tuple[str, ...], list[str], np.ndarray]] = {}
        calibrations = [
            model.top_calibration_ if _kind(model) == "ranker" else TopLabelCalibration() for model in self.models
        ]
        self._slopes = np.array([c.slope for c in calibrations])
        self._offsets = np.array([c.offset for c in calibrations])
        self._calibrated = not all(c.identity for c in calibrations)
        self._iam = [j for j, model in enumerate(self.models) if _kind(model) == "iam"]
        self._memories = [
            (j, memory)
            for j, model in enumerate(self.models)
            if _kind(model) == "ranker" and (memory := model.opening_memory()) is not None
        ]
        for j, model in enumerate(self.models):
            if _kind(model) == "ranker":
                self._place_weights(j, model, columns)

    def _place_weights(self, j: int, model: MoveRanker, columns: list[str]) -> None:
        """Split a ranker's weights into the shared columns and its own (habits, book)."""
        weight = dict(zip(model.feature_names_, model.coef_.tolist()))
        for i, name in enumerate(columns):
            self._weights[i, j] = weight.get(name, 0.0)
        own = tuple(family for family in _OWN if family in model.families_)
        names = [name for family in own for name in family_columns(family)]
        self._own[j] = (own, names, np.array([weight[name] for name in names]))

    def position(self, position: PlayerPosition) -> np.ndarray:
        """The log-probability of the move played in ``position`` under each model."""
        if position.played < 0:
            raise ValueError("a position needs the move played to be scored")
        if self.repertoire is not None:
            opening = self.repertoire.position(position)
            if opening is not None:
                return opening
        scores = self._ranker_scores(position)
        own_lines = [(j, entry) for j, memory in self._memories if (entry := memory.lookup_position(position.board))]
        if self._calibrated or own_lines:
            probs = softmax(scores, axis=0)
            if self._calibrated:
                probs = calibrate_top(probs, self._slopes, self._offsets)
            for j, entry in own_lines:  # his games at this position weigh in, as in the ranker's own beliefs
                probs[:, j] = weigh_own_lines(probs[:, j], own_counts(position.moves, entry.counts))
            result = np.log(np.maximum(probs[position.played], 1e-300))
        else:
            result = _log_softmax_played(scores, position.played)
        for j in self._iam:
            result[j] = _iam_log_probability(self.models[j], position)
        return result * self.model_weight if self.model_weight != 1.0 else result

    def _ranker_scores(self, position: PlayerPosition) -> np.ndarray:
        """The move rankers' scores of each move in ``position``: an array (moves, models), zero for other models."""
        scores = np.zeros((len(position.moves), len(self.models)))
        if not self._own:
            return scores
        shared = self.evidence.features(position) if self.evidence.families else {}
        if shared:
            scores += np.column_stack([shared[name] for name in self.evidence.columns]) @ self._weights
        for j, (own, names, weights) in self._own.items():
            model = self.models[j]
            trees = model.trees_
            if own and (weights.any() or trees is not None):
                found = model.evidence.features(position, own, known=shared)
                scores[:, j] += np.column_stack([found[name] for name in names]) @ weights
            if trees is not None:
                every = {**shared, **found} if own else shared
                columns = np.column_stack([every[name] for name in trees.columns])
                scores[:, j] += trees.score(columns) / model.temperature_
        return scores

    def weight(self, position: PlayerPosition) -> float:
        """The weight :meth:`position` gives this position's log-likelihoods: 1 where a repertoire scores it."""
        if self.repertoire is not None and self.repertoire.position(position) is not None:
            return 1.0
        return self.model_weight

    def positions(self, positions: Sequence[PlayerPosition]) -> np.ndarray:
        """:meth:`position` of each position: an array (positions, models)."""
        rows = [self.position(position) for position in positions]
        return np.array(rows).reshape(len(rows), len(self.models))

    def close(self) -> None:
        """Stop the engine process, if one was started."""
        self.evidence.close()

    def games(
        self, games: Sequence[PlayerGame], *, cap: int | None = None, random_state: int = 0, progress=None
    ) -> list[np.ndarray]:
        """Per game an array (its scored positions, models); ``cap`` positions at most per game.

        The pieces go to the runtime's local processes or to its Dask scheduler (else ``$IAM_SCHEDULER``).
        """
        tasks = [game_positions(game, cap=cap, random_state=random_state) for game in games]
        runtime = runtime_from(self.runtime)
        if runtime.jobs == 1 and not runtime.distributed:
            finished = (self.positions(task) for task in tasks)
            try:
                return list(progress(finished, total=len(tasks)) if progress else finished)
            finally:
                self.close()
        # a few large pieces per process, cut by positions, not games, so the workers finish
        # together: each piece ships every model to its worker once
        flat = [position for task in tasks for position in task]
        pieces = np.array_split(np.arange(len(flat)), min(len(flat), runtime.workers * 3)) if flat else []
        work = map_in_order(_score_piece, [(self, [flat[i] for i in piece]) for piece in pieces], runtime)
        if progress is not None:
            work = progress(work, total=len(pieces))
        scores = np.concatenate([np.zeros((0, len(self.models))), *work])
        return np.split(scores, np.cumsum([len(task) for task in tasks])[:-1]) if tasks else []



def _score_piece(scorer: LikelihoodScorer, positions: list[PlayerPosition]) -> np.ndarray:
    """One piece of :meth:`LikelihoodScorer.games` in a worker: its positions scored, the scorer's engine closed."""
    try:
        return scorer.positions(positions)
    finally:
        scorer.close()


def _log_softmax_played(scores: np.ndarray, played: int) -> np.ndarray:
    peak = scores.max(axis=0)
    return scores[played] - peak - np.log(np.exp(scores - peak).sum(axis=0))


def _iam_log_probability(model: OpponentModel, position: PlayerPosition) -> float:
    """Log-probability of the played move under an IAM model, made a distribution.

    IAM's beliefs cover the moves its chunks and memory propose and sum to at most
    one; the rest of the mass is shared equally by all legal moves, and the result
    floored at :data:`IAM_FLOOR`.
    """
    beliefs = model.predict_proba(position.board)
    leftover = max(0.0, 1.0 - sum(beliefs.values()))
    played = position.played_move
    probability = (beliefs.get(played, 0.0) if played is not None else 0.0) + leftover / len(position.moves)
    return float(np.log(max(probability, IAM_FLOOR)))


def candidate_probabilities(log_likelihood: np.ndarray, *, temperature: float = 1.0) -> np.ndarray:
    """Softmax over the last axis of summed log-likelihoods divided by ``temperature``."""
    scaled = np.asarray(log_likelihood, dtype=np.float64) / temperature
    scaled = scaled - scaled.max(axis=-1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(axis=-1, keepdims=True)


def fit_temperature(log_likelihood: np.ndarray, truth: np.ndarray) -> float:
    """The temperature minimising the log loss of the true candidates (rows: samples).

    Fit it on development games the models never saw, never on test games.
    """
    log_likelihood = np.asarray(log_likelihood, dtype=np.float64)
    if len(log_likelihood) == 0:
        return 1.0
    rows = np.arange(len(truth))

    def loss(log_t: float) -> float:
        scaled = log_likelihood / np.exp(log_t)
        peak = scaled.max(axis=1)
        norm = peak + np.log(np.exp(scaled - peak[:, None]).sum(axis=1))
        return float(-(scaled[rows, truth] - norm).mean())

    found = minimize_scalar(loss, bounds=(-3.0, 9.0), method="bounded")
    return float(np.exp(found.x))


def rank_credit(log_likelihood: np.ndarray, truth: np.ndarray, top: int) -> np.ndarray:
    """Per row, the chance that the true candidate is among the ``top`` best, ties broken at random.

    Exact ties (identical models) thus count as a fair lottery, never as a win for
    whichever column comes first.
    """
    log_likelihood = np.asarray(log_likelihood, dtype=np.float64)
    own = log_likelihood[np.arange(len(truth)), truth][:, None]
    tolerance = 1e-9 * np.maximum(1.0, np.abs(own))
    better = (log_likelihood > own + tolerance).sum(axis=1)
    tied = (np.abs(log_likelihood - own) <= tolerance).sum(axis=1)  # includes the true candidate
    return np.clip(top - better, 0, tied) / tied


@dataclass(frozen=True)
class Identification:
    """The answer to "who played these games": each candidate's likelihood and probability."""

    candidates: tuple[str, ...]
    log_likelihood: np.ndarray
    """Summed log-likelihood of the player's moves under each candidate."""
    moves: int
    probability: np.ndarray
    temperature: float
    scores: np.ndarray
    """Per scored position (rows) the log-likelihood under each candidate, times the position's weight."""
    positions: tuple[PlayerPosition, ...]
    games: tuple[int, ...]
    """The game (its number in the input) of each scored position."""
    weights: np.ndarray | None = None
    """Per scored position the weight of its log-likelihoods (1 where a repertoire scored it; None: all 1)."""

    def __str__(self) -> str:
        """The candidates best first (at most :data:`SHOWN_CANDIDATES`): log-likelihood per move and probability."""
        head = f"{self.moves} moves scored under {len(self.candidates)} candidates (temperature {self.temperature:g})"
        table = self.table()[["rank", "candidate", "per_move", "probability"]]
        text = table.head(SHOWN_CANDIDATES).to_string(index=False, float_format=lambda value: f"{value:.3f}")
        more = len(self.candidates) - SHOWN_CANDIDATES
        return f"{head}\n{text}" + (f"\nand {more} more (table() lists them all)" if more > 0 else "")

    __repr__ = __str__

    @property
    def ranking(self) -> np.ndarray:
        return np.argsort(-self.log_likelihood, kind="stable")

    def table(self) -> pd.DataFrame:
        """One row per candidate, best first: log-likelihood, per move, probability."""
        order = self.ranking
        return pd.DataFrame(
            {
                "rank": np.arange(1, len(order) + 1),
                "candidate": [self.candidates[i] for i in order],
                "log_likelihood": self.log_likelihood[order],
                "per_move": self.log_likelihood[order] / max(self.moves, 1),
                "probability": self.probability[order],
            }
        )

    def decisive_positions(self, top: int = 5) -> pd.DataFrame:
        """The positions that weighed most for the winner against the runner-up."""
        if len(self.candidates) < 2 or not len(self.scores):
            return pd.DataFrame(
                columns=[
                    "game", "move_number", "fen", "played", "margin", "winner_probability", "runner_up_probability"
                ]
            )
        winner, runner = self.ranking[:2]
        margin = self.scores[:, winner] - self.scores[:, runner]
        weights = np.ones(len(self.scores)) if self.weights is None else self.weights
        with np.errstate(divide="ignore", invalid="ignore"):  # weight 0: the probability was not kept
            divisor = np.where(weights > 0, weights, 1.0)[:, None]
            probability = np.where(weights[:, None] > 0, np.exp(self.scores / divisor), np.nan)
        rows = []
        for i in np.argsort(-margin, kind="stable")[:top].tolist():
            position = self.positions[i]
            rows.append(
                {
                    "game": self.games[i],
                    "move_number": position.board.fullmove_number,
                    "fen": position.board.fen(),
                    "played": position.board.san(position.played_move),
                    "margin": float(margin[i]),
                    "winner_probability": float(probability[i, winner]),
                    "runner_up_probability": float(probability[i, runner]),
                }
            )
        return pd.DataFrame(rows)


def identify(
    games: Sequence[PlayerGame],
    models: Sequence[Candidate],
    names: Sequence[str] | None = None,
    *,
    temperature: float = 1.0,
    cap: int | None = None,
    repertoire: bool = True,
    model_weight: float = MODEL_WEIGHT,
    runtime: Runtime = Runtime(),
    progress=None,
) -> Identification:
    """Score the player's moves in ``games`` under each candidate model.

    ``names`` label the candidates (default: each model's player); ``cap`` limits the
    positions scored per game (a seeded sample); with ``repertoire`` (the default) the
    positions a candidate remembers from his openings are scored by the candidates'
    repertoires (:mod:`iam.measure.repertoire`), and the others by the models with ``model_weight``
    (:data:`~iam.measure.repertoire.MODEL_WEIGHT`). The scoring runs where ``runtime`` says, its
    ``search_cache`` (an SQLite file) keeping the rankers' search scores across runs (the same scores,
    found again at once). ValueError for
    candidates that cannot be compared or games without a move of the player.
    """
    games = check_player_games(games, "identify")
    check_candidates(models)
    if not 0 < temperature < float("inf"):
        raise ValueError("the temperature must be a positive number")
    names = tuple(names) if names is not None else tuple(_name(model, i) for i, model in enumerate(models))
    if len(names) != len(models):
        raise ValueError("one name per candidate model")
    scorer = LikelihoodScorer(models, repertoire=repertoire, model_weight=model_weight, runtime=runtime)
    per_game = scorer.games(games, cap=cap, progress=progress)
    positions = tuple(p for game in games for p in game_positions(game, cap=cap))
    weights = np.array([scorer.weight(position) for position in positions])
    game_of = tuple(number for number, scores in enumerate(per_game) for _ in range(len(scores)))
    scores = np.concatenate(per_game) if per_game else np.zeros((0, len(models)))
    if not len(scores):
        raise ValueError("the games hold no move of the player to score")
    total = scores.sum(axis=0)
    return Identification(
        candidates=names,
        log_likelihood=total,
        moves=len(scores),
        probability=candidate_probabilities(total, temperature=temperature),
        temperature=float(temperature),
        scores=scores,
        positions=positions,
        games=game_of,
        weights=weights,
    )


def _name(model: Candidate, number: int) -> str:
    name = model.player_  # both kinds are fitted here (check_candidates); "" when the games named nobody
    return str(name) if name else f"model {number + 1}"
