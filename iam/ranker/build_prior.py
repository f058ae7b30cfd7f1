"""Fitting the population prior from several masters' training games.

For every master, a seeded sample of positions from his *training* games (the
held-out protocol's test games never enter, nor a training game that is another
master's test game: :func:`~iam.player_games.population_games`) is described by every family of
evidence, his habits out-of-fold as in :mod:`iam.ranker.training`, the policy
network that never saw him, and the population book and move patterns without him. Then one ranker is fitted on all masters together,
and one per master without him (whose book columns also leave him out), for each
combination of families, so that an ablation finds a prior that matches it. On top of
the rankers of the full sets of families (with and without an engine), residual trees
are boosted on the same positions (:mod:`iam.ranker.trees`). The
result is a :class:`~iam.ranker.population.PopulationPrior` and a table of the fits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from iam.pgn import PlayerGame
from iam.player_games import population_games
from iam.ranker.evidence import (
    DEFAULT_FAMILIES,
    DEFAULT_SEARCH_DEPTH,
    FAMILIES,
    EngineSettings,
    Evidence,
    family_columns,
    player_evidence,
    without_engine,
)
from iam.ranker.logit import MoveTable, feature_scale, fit_conditional_logit, position_log_likelihood
from iam.ranker.patterns import MovePatterns, count_patterns
from iam.ranker.population import PopulationBook, PopulationPrior, PriorWeights, book_counts
from iam.ranker.positions import Position
from iam.ranker.training import move_table
from iam.ranker.trees import TreeSettings, fit_residual_trees

__all__ = ["PriorSettings", "build_population_prior"]


@dataclass(frozen=True)
class PriorSettings:
    """How the population prior is built."""

    families: tuple[str, ...] = DEFAULT_FAMILIES
    positions_per_master: int = 1500
    search_depth: int = DEFAULT_SEARCH_DEPTH
    engine: EngineSettings | None = None
    search_cache: str | None = None
    """SQLite file keeping the search family's scores for a rebuild (:mod:`iam.ranker.search_cache`)."""
    prior_strength: float = 1.0
    """A light pull towards zero: the population has thousands of positions."""
    min_games: int = 2
    random_state: int = 0
    jobs: int = 1
    trees: TreeSettings | None = TreeSettings()
    """How the residual trees are boosted; None fits none (and needs no LightGBM)."""


@dataclass
class _MasterRows:
    positions: list[Position]
    table: MoveTable
    columns: tuple[str, ...]


def build_population_prior(
    masters: Mapping[str, Sequence[PlayerGame]], settings: PriorSettings, *, progress: Callable | None = None
) -> tuple[PopulationPrior, pd.DataFrame]:
    """The prior of ``masters`` (name -> his games, all splits) and one row per fitted ranker."""
    training, dropped = population_games(masters)
    book = PopulationBook({name: book_counts(games, min_games=settings.min_games) for name, games in training.items()})
    patterns = MovePatterns({name: count_patterns(games) for name, games in training.items()})
    static = tuple(family for family in settings.families if family != "population")
    rows = {}
    for name, games in (progress(training.items()) if progress else training.items()):
        evidence = player_evidence(
            name,
            static,
            PopulationPrior(book=PopulationBook(), patterns=patterns),
            search_depth=settings.search_depth,
            engine=settings.engine,
            search_cache=settings.search_cache,
        )
        table, positions = move_table(
            games,
            evidence,
            max_positions=settings.positions_per_master,
            iam_params={"min_games": settings.min_games, "random_state": settings.random_state, "player": name},
            random_state=settings.random_state,
            jobs=settings.jobs,
        )
        rows[name] = _MasterRows(positions, table, evidence.columns)
    fitted, report = [], []
    for without in (None, *masters):
        included = [name for name in masters if name != without]
        pooled = {
            name: _with_population(rows[name], book.without(name).without(without), patterns.without(name).without(without), settings.families)
            for name in included
        }
        games = np.array([f"{name}/{position.game}" for name in included for position in rows[name].positions if position.moves])
        for families in _family_sets(settings.families):
            columns = tuple(column for family in FAMILIES if family in families for column in family_columns(family))
            table = _stack([_select(pooled[name], columns) for name in included])
            weights = fit_conditional_logit(table, penalty=settings.prior_strength, scale=feature_scale(table))
            trees = None
            if settings.trees is not None and families in _bases(settings.families):
                trees = fit_residual_trees(table, table.features @ weights, columns, games, settings.trees)
            fitted.append(
                PriorWeights(
                    families=families,
                    without=without,
                    weights=dict(zip(columns, weights.tolist())),
                    positions=table.positions,
                    search_depth=settings.search_depth if "search" in families else None,
                    trees=trees,
                )
            )
            report.append(
                {
                    "without": without or "",
                    "families": "+".join(families),
                    "search_depth": settings.search_depth if "search" in families else None,
                    "positions": table.positions,
                    "log_loss": float(-position_log_likelihood(table, weights).mean()),
                    "top1": _top1(table, weights),
                    "trees": trees.trees if trees is not None else 0,
                }
            )
    info = {
        "masters": {name: len(games) for name, games in training.items()},
        "dropped_test_games_of_others": dropped,
        "positions_per_master": settings.positions_per_master,
        "search_depth": settings.search_depth,
        "engine": None if settings.engine is None else {"path": settings.engine.path, "depth": settings.engine.depth},
        "random_state": settings.random_state,
    }
    return PopulationPrior(book=book, rankers=tuple(fitted), settings=info, patterns=patterns), pd.DataFrame(report)


def _family_sets(families: Sequence[str]) -> list[tuple[str, ...]]:
    """The combinations a ranker or an ablation asks for, in canonical order.

    For the given families and for them without the engine (the pure-Python ranker):
    all of them, each one left out, and each one alone.
    """
    wanted: list[tuple[str, ...]] = []
    for base in _bases(families):
        wanted.append(base)
        wanted += [tuple(f for f in base if f != left_out) for left_out in base if len(base) > 1]
        wanted += [(family,) for family in base]
    return list(dict.fromkeys(wanted))


def _bases(families: Sequence[str]) -> list[tuple[str, ...]]:
    """The full sets of families a ranker uses: all of them, and all but the engine's."""
    ordered = tuple(family for family in FAMILIES if family in families)
    pure = without_engine(ordered)
    return [ordered] + ([pure] if pure and pure != ordered else [])


def _with_population(
    rows: _MasterRows, book: PopulationBook, patterns: MovePatterns, families: Sequence[str]
) -> tuple[np.ndarray, tuple[str, ...], MoveTable]:
    """The master's rows with the population family's columns (from ``book`` and ``patterns``) appended."""
    if "population" not in families:
        return rows.table.features, rows.columns, rows.table
    columns = family_columns("population")
    evidence = Evidence(families=("population",), book=book, patterns=patterns)
    extra = np.concatenate([evidence.matrix(position) for position in rows.positions if position.moves])
    columns = rows.columns + columns
    return np.hstack([rows.table.features, extra]), columns, rows.table


def _select(pooled: tuple[np.ndarray, tuple[str, ...], MoveTable], columns: tuple[str, ...]) -> MoveTable:
    features, names, table = pooled
    index = [names.index(column) for column in columns]
    return replace(table, features=features[:, index])


def _stack(tables: list[MoveTable]) -> MoveTable:
    offsets = np.cumsum([0] + [len(t.features) for t in tables])
    starts = np.concatenate([t.starts[:-1] + offset for t, offset in zip(tables, offsets)] + [[offsets[-1]]])
    played = np.concatenate([t.played + offset for t, offset in zip(tables, offsets)])
    return MoveTable(np.concatenate([t.features for t in tables]), starts.astype(np.int64), played.astype(np.int64))


def _top1(table: MoveTable, weights: np.ndarray) -> float:
    """Share of positions whose played move scores highest (a tie of n moves counts 1/n)."""
    scores = table.features @ weights
    heads, sizes = table.starts[:-1], np.diff(table.starts)
    best = np.maximum.reduceat(scores, heads)
    ties = np.add.reduceat((scores == np.repeat(best, sizes)).astype(np.float64), heads)
    return float(np.mean((scores[table.played] >= best) / ties))
