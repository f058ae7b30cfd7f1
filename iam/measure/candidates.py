"""Candidate models fitted from players' games, for telling the players apart.

Each player (or each decade of one player's games) is a *group* with his games under
the held-out protocol: his candidate model is fitted on his training games that are not
development games, and the temperature that turns summed log-likelihoods into
probabilities over the candidates is fitted on seeded samples of development games.
Test games are never read here. ``iam identify --players`` and the stylometry
experiment both fit their candidates with these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from iam.chunks.model import OpponentModel
from iam.evidence.registry import with_engine
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.games.filters import GameFilter, apply_filter
from iam.games.heldout import development_games, fitting_games, test_games
from iam.games.pgn import PlayerGame, load_player_games
from iam.measure.identify import LikelihoodScorer, fit_temperature
from iam.measure.repertoire import MODEL_WEIGHT
from iam.ranker import MoveRanker
from iam.runtime import Runtime

__all__ = [
    "CANDIDATE_PREDICTORS",
    "RANKER_FAMILIES",
    "TEMPERATURE_KS",
    "CandidateRankers",
    "CandidateScoring",
    "CandidateSettings",
    "Group",
    "load_groups",
    "decade_groups",
    "split_group",
    "sample_games",
    "fit_candidates",
    "game_matrix",
    "sample_sums",
    "deal_sums",
    "development_temperature",
    "trained_candidates",
]

CANDIDATE_PREDICTORS = ("iam", "ranker", "ranker+engine")
"""Kinds of candidate model: the source notes' IAM model, the move ranker, the ranker with a UCI engine's evidence."""

RANKER_FAMILIES = ("move", "search", "value", "habits")
"""The candidate rankers' evidence families: what a player does with the position, his habits, no population."""

TEMPERATURE_KS = (1, 5, 10, 20, 50)
"""Sizes k of the samples of development games the temperature is fitted on."""

_DEV_SAMPLES = 100
"""Seeded samples of k development games per group and k for the temperature."""


@dataclass(frozen=True)
class CandidateRankers:
    """How the ranker candidates are fitted: their evidence, training positions, prior and search depths."""

    families: tuple[str, ...] = RANKER_FAMILIES
    train_positions: int = 2000
    """Training positions of each ranker."""
    prior_strength: float = 30.0
    """Pull of each ranker towards the population prior. Weaker than the ranker's default: a fingerprint lives in
    what sets a player apart from the population (``docs/results/identification.md``)."""
    engine_depth: int = 8
    """Depth of the ``ranker+engine`` candidates' engine analyses (the engine is the runtime's)."""
    search_depth: int = DEFAULT_SEARCH_DEPTH


@dataclass(frozen=True)
class CandidateScoring:
    """How a game is scored under the candidates: which positions, and by the repertoires or the models."""

    repertoire: bool = True
    """Score the positions a candidate remembers from his openings by the candidates' repertoires
    (:mod:`iam.measure.repertoire`), the rest by the models; False: every position by the models."""
    model_weight: float = MODEL_WEIGHT
    """With ``repertoire``: the weight of the models' log-likelihoods where no candidate remembers the position."""
    positions_per_game: int | None = None
    """Positions scored per game (a seeded sample); None: all."""


@dataclass(frozen=True)
class CandidateSettings:
    """How candidate models are fitted from their players' games and scored."""

    rankers: CandidateRankers = CandidateRankers()
    scoring: CandidateScoring = CandidateScoring()
    train_games: int | None = None
    """Cap on each group's fitting games (the first N); None: all."""
    max_dev_games: int | None = 40
    """Development games per group scored for the temperature (a seeded sample); None: all."""
    ks: tuple[int, ...] = TEMPERATURE_KS
    games_filter: GameFilter | None = None
    """Conditions on every player's games' headers and length (:mod:`iam.games.filters`); the splits keep their
    numbering."""
    seed: int = 0
    runtime: Runtime = Runtime()
    """What the candidates are fitted and scored with: the engine, the caches (the rankers' search scores
    across runs: the same scores; :mod:`iam.evidence.search_cache`), the processes or the Dask scheduler."""


@dataclass(frozen=True)
class Group:
    """One candidate: a label, the player's name (for the prior), and his games (all splits)."""

    label: str
    player: str
    games: tuple[PlayerGame, ...]


def load_groups(
    players: Sequence[tuple[str, str]],
    games_filter: GameFilter | None = None,
    *,
    by_decade: bool = False,
    min_decade_games: int = 40,
) -> tuple[list[Group], list[str]]:
    """The groups of (name, PGN path) players (or decades of them) and notes on what was read."""
    groups, notes = [], []
    for name, path in players:
        games, report = load_player_games([path], player=name)
        if games_filter is not None:  # the games left out keep their numbers: the splits do not move
            games = list(apply_filter(games, games_filter, report))
            if report.filtered:
                left_out = sum(report.filtered.values())
                notes.append(f"{name}: {left_out} games left out by the filters ({dict(report.filtered)})")
        if report.skipped_total:
            notes.append(f"{name}: {report.skipped_total} games skipped ({dict(report.skipped)})")
        if by_decade:
            found, dropped = decade_groups(name, games, min_decade_games)
            groups.extend(found)
            notes.extend(dropped)
        else:
            groups.append(Group(name, name, tuple(games)))
    return groups, notes


def decade_groups(player: str, games: Sequence[PlayerGame], minimum: int) -> tuple[list[Group], list[str]]:
    """One group per decade of the games' dates with at least ``minimum`` games; notes on the rest."""
    by_decade: dict[str, list[PlayerGame]] = {}
    undated = 0
    for game in games:
        year = game.date[:4]
        if year.isdigit():
            by_decade.setdefault(f"{year[:3]}0s", []).append(game)
        else:
            undated += 1
    notes = [f"{player}: {undated} undated games left out"] if undated else []
    groups = []
    for decade in sorted(by_decade):
        found = by_decade[decade]
        if len(found) >= minimum and any(g.split == "test" for g in found):
            groups.append(Group(f"{player} {decade}", player, tuple(found)))
        else:
            notes.append(f"{player} {decade}: {len(found)} games, fewer than {minimum} (left out)")
    return groups, notes


def split_group(
    group: Group, settings: CandidateSettings, rng: np.random.Generator, *, max_test_games: int | None = None
) -> dict[str, list[PlayerGame]]:
    """The group's fitting, development and test games (development and test capped by seeded samples).

    The test games are sampled too (after the development games, from the same ``rng``), so a run that
    reads no test game draws the same development samples as one that does.
    """
    fitting = fitting_games(group.games)
    if settings.train_games is not None:
        fitting = fitting[: settings.train_games]
    return {
        "fitting": fitting,
        "development": sample_games(development_games(group.games), settings.max_dev_games, rng),
        "test": sample_games(test_games(group.games), max_test_games, rng),
    }


def sample_games(games: list[PlayerGame], cap: int | None, rng: np.random.Generator) -> list[PlayerGame]:
    """At most ``cap`` of the games, a seeded sample kept in their order (all of them when ``cap`` is None)."""
    if cap is None or len(games) <= cap:
        return games
    chosen = np.sort(rng.choice(len(games), size=cap, replace=False))
    return [games[i] for i in chosen.tolist()]


def fit_candidates(
    predictor: str, groups: Sequence[Group], fitting: Sequence[Sequence[PlayerGame]], settings: CandidateSettings
) -> list:
    """One fitted model of kind ``predictor`` per group, from the group's fitting games."""
    if predictor == "iam":
        return [
            OpponentModel(player=g.player, random_state=settings.seed).fit(games) for g, games in zip(groups, fitting)
        ]
    if predictor not in ("ranker", "ranker+engine"):
        raise ValueError(f"a candidate model is one of {', '.join(CANDIDATE_PREDICTORS)}, not {predictor!r}")
    rankers = settings.rankers
    options: dict[str, Any] = dict(  # keyword arguments of MoveRanker, of several types
        max_positions=rankers.train_positions,
        prior_strength=rankers.prior_strength,
        search_depth=rankers.search_depth,
        random_state=settings.seed,
    )
    families = rankers.families
    if predictor == "ranker+engine":
        if not settings.runtime.engine:
            raise ValueError("the ranker+engine predictor needs an engine")
        options["engine_depth"] = rankers.engine_depth
        families = with_engine(families)
    return [
        MoveRanker(families=families, **options).fit(games, player=g.player, runtime=settings.runtime)
        for g, games in zip(groups, fitting)
    ]


def game_matrix(
    scorer, games: list[PlayerGame], settings: CandidateSettings, progress: Callable | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Summed log-likelihood of each game under each of the scorer's models, and the moves scored per game."""
    per_game = scorer.games(
        games,
        cap=settings.scoring.positions_per_game,
        random_state=settings.seed,
        progress=progress,
    )
    sums = np.array([scores.sum(axis=0) for scores in per_game]).reshape(len(games), len(scorer.models))
    return sums, np.array([len(scores) for scores in per_game])


def sample_sums(
    matrix: np.ndarray, owner: np.ndarray, k: int, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Summed rows of ``samples`` seeded samples of k games per group (without replacement within a sample).

    ``matrix`` has one row per game and ``owner`` the group of each row; groups with
    fewer than k games are left out. Returns (sums: samples x columns, true group per sample).
    """
    sums, truth = [], []
    for group in np.unique(owner).tolist():
        rows = np.flatnonzero(owner == group)
        if len(rows) < k:
            continue
        chosen = np.argsort(rng.random((samples, len(rows))), axis=1)[:, :k]
        sums.append(matrix[rows[chosen]].sum(axis=1))
        truth.append(np.full(samples, group))
    if not sums:
        return np.zeros((0, matrix.shape[1])), np.zeros(0, dtype=np.int64)
    return np.concatenate(sums), np.concatenate(truth)


def deal_sums(
    matrix: np.ndarray, owner: np.ndarray, k: int, samples: int, seed: Sequence[int], deals: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sample_sums` under each deal's models (``matrix``: their columns deal after deal), stacked.

    Every deal sees the same samples of games (drawn with ``seed``), so the deals differ
    only in their models.
    """
    width = matrix.shape[1] // deals
    found = [
        sample_sums(matrix[:, d * width : (d + 1) * width], owner, k, samples, np.random.default_rng(seed))
        for d in range(deals)
    ]
    return np.concatenate([sums for sums, _ in found]), np.concatenate([truth for _, truth in found])


def development_temperature(
    matrix: np.ndarray, owner: np.ndarray, ks: Sequence[int], seed: Sequence[int], deals: int = 1
) -> float:
    """The temperature fitted on samples of development games of every size k that fits."""
    sums, truth = [], []
    for k in ks:
        found, owners = deal_sums(matrix, owner, k, _DEV_SAMPLES, [*seed, k], deals)
        sums.append(found)
        truth.append(owners)
    return fit_temperature(np.concatenate(sums), np.concatenate(truth).astype(np.int64))


def trained_candidates(
    predictor: str, players: Sequence[tuple[str, str]], settings: CandidateSettings
) -> tuple[list[str], list, float]:
    """Candidate models of (name, PGN path) players, fitted now, and their temperature from development games.

    What ``iam identify --players`` uses: each player's model from his fitting games,
    the temperature from samples of his development games (never his test games).
    """
    groups, _ = load_groups(players, settings.games_filter)
    rng = np.random.default_rng(settings.seed)
    splits = [split_group(group, settings, rng) for group in groups]
    for group, split in zip(groups, splits):
        if not split["fitting"] or not split["development"]:
            raise ValueError(
                f"{group.label} needs fitting and development games"
                f" (has {len(split['fitting'])} and {len(split['development'])})"
            )
    models = fit_candidates(predictor, groups, [split["fitting"] for split in splits], settings)
    development = [game for split in splits for game in split["development"]]
    owner = np.array([number for number, split in enumerate(splits) for _ in split["development"]], dtype=np.int64)
    scoring = settings.scoring
    scorer = LikelihoodScorer(
        models, repertoire=scoring.repertoire, model_weight=scoring.model_weight, runtime=settings.runtime
    )
    matrix, _ = game_matrix(scorer, development, settings)
    temperature = development_temperature(matrix, owner, settings.ks, [settings.seed, 0])
    return [group.label for group in groups], models, temperature
