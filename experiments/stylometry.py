"""Stylometry: identify who played a sample of k games among several players' models.

Each player (or, with ``by_decade``, each decade of one player) is a *group* with
his games under the held-out protocol: models are fitted on the training games that
are not development games, the temperature of the probabilities is fitted on the
development games, and samples are drawn from the test games only. Every game's
log-likelihood under every model is computed once (a games x models matrix, work
shared between models by :class:`iam.measure.identify.LikelihoodScorer`); a seeded sample of k
games is then a sum of k rows, done for all samples at once with numpy.

Predictors: ``iam`` (the source notes' chunks and opening memory), ``ranker`` (the move
ranker of :data:`RANKER_FAMILIES`), ``ranker+engine`` (with a UCI engine's evidence),
``repertoire`` (the players' openings alone: only the positions some candidate remembers
count, :mod:`iam.measure.repertoire`) and ``population``, the control: every group's control
model is a ranker of the move and population families fitted on an equal, randomly dealt share
of *all* groups' games, so it knows the population and nothing about the group it stands for;
its accuracy must be at chance.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import norm

from experiments.common import ExperimentResult
from iam.chunks.model import OpponentModel
from iam.errors import DataError
from iam.games.pgn import PlayerGame
from iam.measure import candidates
from iam.measure.candidates import (
    RANKER_FAMILIES,
    CandidateSettings,
    Group,
    deal_sums,
    development_temperature,
    fit_candidates,
    game_matrix,
)
from iam.measure.identify import LikelihoodScorer, candidate_probabilities, game_positions, rank_credit
from iam.measure.repertoire import RepertoireScorer, memory_of
from iam.progress import progress
from iam.ranker import MoveRanker
from iam.runtime import Runtime

__all__ = [
    "PREDICTORS",
    "CONTROL",
    "RANKER_FAMILIES",
    "StylometryConfig",
    "StylometryResult",
    "stylometry",
    "run",
    "NAME",
    "HELP",
    "load_groups",
    "split_group",
    "summarise",
    "wilson_interval",
    "plot",
]

NAME = "stylometry"
HELP = "identify who played samples of k test games among several players' models (accuracy, top-2, confusion)"

PREDICTORS = ("iam", "ranker", "ranker+engine", "repertoire", "population")
"""Predictor names, in the order of the tables."""

CONTROL = "population"
"""The control predictor (no information about the group; must be at chance)."""

_CONTROL_FAMILIES = ("move", "population")

"""The ranker's families here: without the population book, which differs between
candidates (a player's own book leaves him out, everyone else's holds his openings) and
so speaks against the true player."""
_CONTROL_PLAYER = "population control"


@dataclass(frozen=True)
class StylometryConfig:
    """One stylometry run: whose games, which predictors, how many samples of which size, and how the candidates
    are fitted and scored (their ``seed`` and ``runtime`` are the run's)."""

    players: tuple[tuple[str, str], ...] = field(kw_only=True)
    """(name, PGN path) per player (required, by keyword)."""
    candidates: CandidateSettings = CandidateSettings()
    """How every predictor's candidate models are fitted and scored (the control's rankers too); its sizes k are
    the sizes of the samples of test games, its seed the seed of every sample, model and deal of the run."""
    predictors: tuple[str, ...] = ("iam", "ranker", "repertoire", CONTROL)
    control_deals: int = 3
    """Random deals of the pooled fitting games the control is fitted on, one set of models
    each. One deal can lean either way (one of its models may simply be the best of them at
    every group's games), so the control's figures are over all deals: the same samples of
    games scored under each deal's models."""
    samples: int = 200
    """Seeded samples of k test games per group and k."""
    max_test_games: int | None = None
    """Test games per group scored (a seeded sample); None: all."""
    by_decade: bool = False
    min_decade_games: int = 40
    """With ``by_decade``: a decade needs this many games to be a group."""
    quiet: bool = False
    """No progress bars on stderr (they are off anyway when stderr is not a terminal)."""

    @property
    def seed(self) -> int:
        """The run's random seed: its candidates'."""
        return self.candidates.seed

    @property
    def runtime(self) -> Runtime:
        """Where the run's work runs, with the engine and the caches: its candidates' runtime."""
        return self.candidates.runtime

    @property
    def ks(self) -> tuple[int, ...]:
        """Sizes k of the samples of games, for the temperature and the test samples alike."""
        return self.candidates.ks


@dataclass(frozen=True)
class StylometryResult:
    """The tables of a run: accuracy rows, confusion, per-game likelihoods, temperatures, notes."""

    rows: pd.DataFrame
    confusion: pd.DataFrame
    games: pd.DataFrame
    temperatures: dict[str, float]
    groups: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def load_groups(config: StylometryConfig) -> tuple[list[Group], list[str]]:
    """The groups of a run (players, or decades of players) and notes on what was read."""
    return candidates.load_groups(
        config.players,
        config.candidates.games_filter,
        by_decade=config.by_decade,
        min_decade_games=config.min_decade_games,
    )


def split_group(group: Group, config: StylometryConfig, rng: np.random.Generator) -> dict[str, list[PlayerGame]]:
    """The group's fitting, development and test games (development and test capped by seeded samples)."""
    return candidates.split_group(group, config.candidates, rng, max_test_games=config.max_test_games)


def _fit_models(
    groups: list[Group], splits: list[dict], config: StylometryConfig, rng: np.random.Generator
) -> dict[str, list]:
    """Per predictor, one fitted model per group (the control's from a random share of everyone's games)."""
    models: dict[str, list] = {}
    fitting = [split["fitting"] for split in splits]
    for predictor in config.predictors:
        if predictor in ("iam", "repertoire"):
            shared = models.get("iam") or models.get("repertoire")
            models[predictor] = shared or fit_candidates("iam", groups, fitting, config.candidates)
        elif predictor == CONTROL:
            models[predictor] = _control_models(splits, config, rng)
        else:
            models[predictor] = fit_candidates(predictor, groups, fitting, config.candidates)
    return models


def _control_models(splits: list[dict], config: StylometryConfig, rng: np.random.Generator) -> list[MoveRanker]:
    """Per deal (``config.control_deals``, deal after deal), one ranker per group fitted on random shares
    of the pooled fitting games, each share holding every group's games alike.

    The shares are drawn within each group (each group's games dealt at random into as
    many equal parts as there are models), so no share leans towards one group: a share
    that happened to hold more of one player's games would learn him and point away
    from its own group, which is information, not chance.
    """
    pool = [game for split in splits for game in split["fitting"]]
    pool = [replace(game, index=number) for number, game in enumerate(pool)]  # unique numbers across players
    bounds = np.cumsum([0] + [len(split["fitting"]) for split in splits])
    shares: list[np.ndarray] = []
    for _ in range(config.control_deals):
        parts = [
            np.array_split(start + rng.permutation(end - start), len(splits))
            for start, end in zip(bounds[:-1], bounds[1:])
        ]
        shares.extend(np.sort(np.concatenate([group_parts[j] for group_parts in parts])) for j in range(len(splits)))
    rankers = config.candidates.rankers
    return [
        MoveRanker(
            families=_CONTROL_FAMILIES,
            max_positions=rankers.train_positions,
            prior_strength=rankers.prior_strength,
            search_depth=rankers.search_depth,
            random_state=config.seed,
        ).fit([pool[i] for i in share.tolist()], player=_CONTROL_PLAYER, runtime=config.runtime)
        for share in shares
    ]


class _OpeningsOnly:
    """The ``repertoire`` predictor: per game, the positions some candidate remembers (the rest count nothing)."""

    def __init__(self, models: Sequence[OpponentModel]) -> None:
        self.models = list(models)
        self._scorer = RepertoireScorer([memory_of(model) for model in self.models])

    def games(
        self,
        games: Sequence[PlayerGame],
        *,
        cap: int | None,
        random_state: int,
        progress,
    ) -> list[np.ndarray]:
        del progress  # a dictionary look-up per position: not worth a worker process
        found = []
        for game in games:
            positions = game_positions(game, cap=cap, random_state=random_state)
            rows = [self._scorer.position(position) for position in positions]
            found.append(np.array([row for row in rows if row is not None]).reshape(-1, len(self.models)))
        return found


def _scorer(predictor: str, models: list, config: StylometryConfig) -> LikelihoodScorer | _OpeningsOnly:
    if predictor == "repertoire":
        return _OpeningsOnly(models)
    scoring = config.candidates.scoring
    return LikelihoodScorer(
        models, repertoire=scoring.repertoire, model_weight=scoring.model_weight, runtime=config.runtime
    )


def _game_matrix(
    scorer: LikelihoodScorer | _OpeningsOnly, games: list[PlayerGame], config: StylometryConfig, progress
) -> tuple[np.ndarray, np.ndarray]:
    """Summed log-likelihood of each game under each model, and the moves scored per game."""
    return game_matrix(scorer, games, config.candidates, progress)


def wilson_interval(share: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion observed over ``n`` independent trials."""
    if n <= 0:
        return (float("nan"), float("nan"))
    z = norm.ppf(0.5 + confidence / 2)
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (float(min(share, max(0.0, centre - half))), float(max(share, min(1.0, centre + half))))


def _temperature(
    matrix: np.ndarray, owner: np.ndarray, ks: Sequence[int], seed: Sequence[int], deals: int = 1
) -> float:
    """The temperature fitted on samples of development games of every size k that fits."""
    return development_temperature(matrix, owner, ks, seed, deals)


def _rows_for(
    predictor: str,
    matrix: np.ndarray,
    owner: np.ndarray,
    labels: list[str],
    temperature: float,
    config: StylometryConfig,
    deals: int = 1,
) -> tuple[list[dict], list[dict]]:
    """Accuracy rows and confusion records of one predictor at every k (over all ``deals`` of its models)."""
    rows: list[dict] = []
    confusion: list[dict] = []
    counts = np.bincount(owner, minlength=len(labels))
    for k in config.ks:
        # the same samples for every predictor
        sums, truth = deal_sums(matrix, owner, k, config.samples, [config.seed, k], deals)
        if not len(truth):
            continue
        top1 = rank_credit(sums, truth, 1)
        top2 = rank_credit(sums, truth, 2)
        probs = candidate_probabilities(sums, temperature=temperature)
        independent = float(np.minimum(config.samples, counts[counts >= k] // k).sum())
        accuracy = float(top1.mean())
        rows.append(
            {
                "predictor": predictor,
                "k": k,
                "accuracy": accuracy,
                "top2": float(top2.mean()),
                "ci95": list(wilson_interval(accuracy, independent)),
                "samples": int(len(truth)),
                "groups": int((counts >= k).sum()),
                "chance": 1.0 / len(labels),
                "independent_samples": independent,
                "mean_probability_true": float(probs[np.arange(len(truth)), truth].mean()),
                "mean_top_probability": float(probs.max(axis=1).mean()),
                "log_loss": float(-np.log(np.maximum(probs[np.arange(len(truth)), truth], 1e-12)).mean()),
            }
        )
        tolerance = 1e-9 * np.maximum(1.0, np.abs(sums).max(axis=1, keepdims=True))
        winners = (sums >= sums.max(axis=1, keepdims=True) - tolerance).astype(float)
        winners /= winners.sum(axis=1, keepdims=True)
        for group in np.unique(truth).tolist():
            share = winners[truth == group].mean(axis=0)
            confusion.extend(
                {
                    "predictor": predictor, "k": k, "true": labels[group], "identified": labels[j],
                    "share": float(share[j]),
                }
                for j in range(len(labels))
            )
    return rows, confusion


def deals_of(predictor: str, config: StylometryConfig) -> int:
    """How many sets of candidate models a predictor has: the control's deals, one for the others."""
    return config.control_deals if predictor == CONTROL else 1


def summarise(
    matrices: dict[str, np.ndarray],
    owners: dict[str, np.ndarray],
    names: list[str],
    labels: list[str],
    config: StylometryConfig,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, float]]:
    """Accuracy rows, confusion records and temperatures from the games x models matrices.

    ``matrices["development"]`` and ``matrices["test"]`` hold one column per (predictor,
    candidate), predictors in ``names`` order, the control's candidates once per deal
    (:func:`deals_of`); ``owners`` the group of each row. Samples are seeded by
    ``config.seed`` (and k) alone, so every predictor sees the same samples.
    """
    rows, confusion, temperatures = [], [], {}
    start = 0
    for name in names:
        deals = deals_of(name, config)
        columns = slice(start, start + deals * len(labels))
        start = columns.stop
        temperatures[name] = _temperature(
            matrices["development"][:, columns], owners["development"], config.ks, [config.seed, 0], deals
        )
        found, mixed = _rows_for(
            name, matrices["test"][:, columns], owners["test"], labels, temperatures[name], config, deals
        )
        rows.extend(found)
        confusion.extend(mixed)
    return pd.DataFrame(rows), pd.DataFrame(confusion), temperatures


def stylometry(config: StylometryConfig, *, groups: list[Group] | None = None, progress=None) -> StylometryResult:
    """Fit every group's models, score development and test games once, and identify samples.

    ``groups`` replaces the games named by ``config.players`` (tests, callers that
    already hold the games). ``progress`` wraps long iterations (a progress bar).
    """
    _check(config)
    notes: list[str] = []
    if groups is None:
        groups, notes = load_groups(config)
    if len(groups) < 2:
        raise ValueError(f"stylometry needs at least two groups to tell apart, found {len(groups)}")
    rng = np.random.default_rng(config.seed)
    splits = [split_group(group, config, rng) for group in groups]
    for group, split in zip(groups, splits):
        if not split["fitting"] or not split["development"] or not split["test"]:
            has = ", ".join(f"{len(v)} {k}" for k, v in split.items())
            raise ValueError(f"{group.label} needs fitting, development and test games (has {has})")
    labels = [group.label for group in groups]
    started = time.perf_counter()
    models = _fit_models(groups, splits, config, rng)
    fitted = time.perf_counter() - started
    names = list(models)
    matrices, owners = {}, {}
    game_rows = []
    for part in ("development", "test"):
        games = [game for split in splits for game in split[part]]
        owner = np.array([number for number, split in enumerate(splits) for _ in split[part]], dtype=np.int64)
        parts = []
        for name in names:  # one scorer per predictor: a repertoire's shared base is its own candidates'
            matrix, moves = _game_matrix(_scorer(name, models[name], config), games, config, progress)
            parts.append(matrix)
            for row, game in enumerate(games):
                for column in range(matrix.shape[1]):
                    deal, candidate = divmod(column, len(groups))
                    game_rows.append(
                        {
                            "part": part,
                            "group": labels[owner[row]],
                            "game": game.index,
                            "moves": int(moves[row]),
                            "predictor": name,
                            "deal": deal,
                            "candidate": labels[candidate],
                            "log_likelihood": float(matrix[row, column]),
                        }
                    )
        matrices[part], owners[part] = np.hstack(parts), owner
    scored = time.perf_counter() - started - fitted
    scored_games = sum(len(s["development"]) + len(s["test"]) for s in splits)
    notes.append(f"fitting {fitted:.0f} s, scoring {scored:.0f} s ({scored_games} games)")
    rows, confusion, temperatures = summarise(matrices, owners, names, labels, config)
    group_table = pd.DataFrame(
        [{"group": g.label, **{part: len(games) for part, games in s.items()}} for g, s in zip(groups, splits)]
    )
    return StylometryResult(
        rows=rows,
        confusion=confusion,
        games=pd.DataFrame(game_rows),
        temperatures=temperatures,
        groups=group_table,
        notes=notes,
    )


def _check(config: StylometryConfig) -> None:
    unknown = [p for p in config.predictors if p not in PREDICTORS]
    if unknown or not config.predictors:
        raise ValueError(f"predictors must be some of {', '.join(PREDICTORS)}, not {list(config.predictors)!r}")
    if "ranker+engine" in config.predictors and not config.runtime.engine:
        raise ValueError("the ranker+engine predictor needs an engine")
    if not config.ks or any(k < 1 for k in config.ks):
        raise ValueError("every k must be at least 1")
    if config.samples < 1:
        raise ValueError("samples must be at least 1")
    if config.control_deals < 1:
        raise ValueError("the control needs at least one deal")


def plot(result: StylometryResult) -> Figure:
    """Accuracy (solid) and top-2 (dashed) against k per predictor, with 95% intervals and chance."""
    figure = Figure(figsize=(7, 4.5))
    axis = figure.subplots()
    for predictor, rows in result.rows.groupby("predictor", sort=False):
        low = rows["ci95"].map(lambda pair: pair[0])
        high = rows["ci95"].map(lambda pair: pair[1])
        errors = [(rows["accuracy"] - low).clip(lower=0), (high - rows["accuracy"]).clip(lower=0)]
        line = axis.errorbar(rows["k"], rows["accuracy"], yerr=errors, marker="o", capsize=3, label=f"{predictor}")
        axis.plot(rows["k"], rows["top2"], linestyle="--", color=line[0].get_color(), label=f"{predictor} top-2")
    if len(result.rows):
        axis.axhline(result.rows["chance"].iloc[0], color="grey", linestyle=":", label="chance")
    axis.set_xscale("log")
    axis.set_xlabel("games identified together (k)")
    axis.set_ylabel("accuracy")
    axis.set_ylim(0, 1.02)
    axis.legend(fontsize=8)
    axis.set_title("Who played these games?")
    return figure


def plot_confusion(result: StylometryResult, predictor: str, k: int) -> Figure:
    """Heat map of the confusion shares of one predictor at one k."""
    chosen = result.confusion.query("predictor == @predictor and k == @k")
    table = chosen.pivot(index="true", columns="identified", values="share")
    figure = Figure(figsize=(6, 5))
    axis = figure.subplots()
    image = axis.imshow(table.to_numpy(), vmin=0, vmax=1, cmap="Blues")
    axis.set_xticks(range(len(table.columns)), table.columns, rotation=45, ha="right")
    axis.set_yticks(range(len(table.index)), table.index)
    axis.set_xlabel("identified as")
    axis.set_ylabel("played by")
    axis.set_title(f"{predictor}, k = {k}")
    figure.colorbar(image, ax=axis)
    return figure


def run(config: StylometryConfig) -> ExperimentResult:
    """The experiment as the CLI runs it: tables, the JSON payload, a summary, plots.

    Raises :class:`~iam.errors.DataError` when the games cannot be told apart (fewer
    than two groups, a group without fitting, development or test games). A tiny run
    on two bundled players:

    >>> from iam.games.bundled import bundled_pgn
    >>> players = tuple((name, str(bundled_pgn(f"{name}.pgn"))) for name in ("Capablanca", "Lasker"))
    >>> from iam.measure.candidates import CandidateScoring
    >>> candidates = CandidateSettings(scoring=CandidateScoring(positions_per_game=4), train_games=4, max_dev_games=4,
    ...                                ks=(1,))
    >>> config = StylometryConfig(players=players, candidates=candidates, predictors=("iam",), max_test_games=4,
    ...                           samples=20, quiet=True)
    >>> result = run(config)
    >>> result.tables["stylometry"][["predictor", "k", "samples", "groups"]].to_dict(orient="records")
    [{'predictor': 'iam', 'k': 1, 'samples': 40, 'groups': 2}]
    >>> sorted(result.tables), sorted(result.figures)
    (['confusion', 'games', 'groups', 'stylometry'], ['accuracy', 'confusion_iam_k1'])
    """
    bar = None if config.quiet else (lambda items, total: progress(items, total=total, desc="scoring", unit=" pieces"))
    try:
        result = stylometry(config, progress=bar)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    return experiment_result(result)


def experiment_result(result: StylometryResult) -> ExperimentResult:
    """The tables, the JSON payload, a markdown summary and the plots."""
    rows = result.rows
    short = rows[["predictor", "k", "accuracy", "top2", "ci95", "samples"]].to_dict(orient="records")
    payload = {
        "rows": short,
        "confusion": _nested(result.confusion),
        "details": rows.to_dict(orient="records"),
        "temperatures": result.temperatures,
        "groups": result.groups.to_dict(orient="records"),
        "notes": result.notes,
    }
    shown = rows.assign(ci95=rows["ci95"].map(lambda pair: f"{pair[0]:.2f}-{pair[1]:.2f}"))
    columns = [
        "predictor", "k", "accuracy", "top2", "ci95", "samples", "groups", "chance", "mean_probability_true",
        "mean_top_probability",
    ]
    lines = [
        "# Stylometry: who played these games?",
        "",
        shown[columns].to_markdown(index=False, floatfmt=".3f"),
        "",
        "Temperatures (fitted on development games): "
        + ", ".join(f"{k} {v:.3g}" for k, v in result.temperatures.items()),
        "",
        result.groups.to_markdown(index=False),
        "",
        *(f"- {note}" for note in result.notes),
    ]
    figures = {"accuracy": plot(result)} if len(rows) else {}
    main = [p for p in rows["predictor"].unique().tolist() if p != CONTROL] if len(rows) else []
    if main:
        k = 5 if 5 in set(rows["k"]) else int(rows["k"].min())
        figures[f"confusion_{main[-1]}_k{k}"] = plot_confusion(result, main[-1], k)
    tables = {
        "stylometry": rows.assign(ci95=rows["ci95"].map(str)) if len(rows) else rows,
        "confusion": result.confusion,
        "games": result.games,
        "groups": result.groups,
    }
    return ExperimentResult(name=NAME, tables=tables, payload=payload, markdown="\n".join(lines), figures=figures)


def _nested(confusion: pd.DataFrame) -> dict:
    """predictor -> k -> played by -> identified as -> share."""
    nested: dict = {}
    for row in confusion.itertuples():
        by_k = nested.setdefault(row.predictor, {}).setdefault(str(row.k), {})
        by_k.setdefault(row.true, {})[row.identified] = row.share
    return nested
