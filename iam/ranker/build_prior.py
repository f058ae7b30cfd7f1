"""Fitting the population prior from several masters' training games.

For every master, a seeded sample of positions from his *training* games (the
held-out protocol's test games never enter, nor a training game that is another
master's test game: :func:`~iam.games.player_games.population_games`) is described by
every family of evidence, his habits out-of-fold as in :mod:`iam.ranker.training`, the
policy network that never saw him, and the population book and move patterns without
him. Then one ranker is fitted on all masters together, and one per master without him
(whose book columns also leave him out), for each
combination of families, so that an ablation finds a prior that matches it. On top of
the rankers of the full sets of families (with and without an engine), residual trees
are boosted on the same positions (:mod:`iam.priors.trees`). The
result is a :class:`~iam.priors.population.PopulationPrior` and a table of the fits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from iam._install import __version__
from iam.errors import DataError
from iam.evidence.evidence import Evidence, EvidenceSources, player_evidence
from iam.evidence.registry import DEFAULT_FAMILIES, FAMILIES, family_columns, without_engine
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.games.pgn import PlayerGame
from iam.games.player_games import population_games
from iam.priors.artefacts import feature_code_digest
from iam.priors.logit import MoveTable, feature_scale, fit_conditional_logit, position_log_likelihood
from iam.priors.patterns import MovePatterns, count_patterns
from iam.priors.population import (
    PopulationBook,
    PopulationPrior,
    PriorWeights,
    book_counts,
    load_prior,
    merge_priors,
    update_prior,
)
from iam.priors.positions import PlayerPosition
from iam.priors.trees import TreeSettings, fit_residual_trees
from iam.ranker.training import move_table
from iam.runtime import Runtime, map_in_order

__all__ = ["PriorSettings", "build_population_prior", "build_prior", "fits_file"]


@dataclass(frozen=True)
class PriorSettings:
    """How the population prior is built."""

    families: tuple[str, ...] = DEFAULT_FAMILIES
    positions_per_master: int = 1500
    search_depth: int = DEFAULT_SEARCH_DEPTH
    engine_depth: int = 8
    """Depth of the engine family's analyses (with an engine in ``runtime``)."""
    prior_strength: float = 1.0
    """A light pull towards zero: the population has thousands of positions."""
    min_games: int = 2
    random_state: int = 0
    runtime: Runtime = Runtime()
    """The engine, the caches (the search scores' for a rebuild) and where the masters are described."""
    trees: TreeSettings | None = TreeSettings()
    """How the residual trees are boosted; None fits none (and needs no LightGBM)."""
    leave_each_out: bool = True
    """Also fit the population without each master (what a ranker of one of them is pulled towards);
    False fits the whole population only (for many players)."""


@dataclass
class _MasterRows:
    positions: list[PlayerPosition]
    table: MoveTable
    columns: tuple[str, ...]


def build_population_prior(
    masters: Mapping[str, Sequence[PlayerGame]],
    settings: PriorSettings,
    *,
    progress: Callable | None = None,
) -> tuple[PopulationPrior, pd.DataFrame]:
    """The prior of ``masters`` (name -> his games, all splits) and one row per fitted ranker.

    Each master's positions are described where ``settings.runtime`` says, one task a
    master; the result is the same whichever runs it.
    """
    training, dropped = population_games(masters)
    book = PopulationBook({name: book_counts(games, min_games=settings.min_games) for name, games in training.items()})
    patterns = MovePatterns({name: count_patterns(games) for name, games in training.items()})
    rows = _described(training, patterns, settings, progress)
    fitted, report = [], []
    for without in (None, *masters) if settings.leave_each_out else (None,):
        included = [name for name in masters if name != without]
        pooled = {
            name: _with_population(
                rows[name],
                book.without(name).without(without),
                patterns.without(name).without(without),
                settings.families,
            )
            for name in included
        }
        games = np.array(
            [f"{name}/{position.game}" for name in included for position in rows[name].positions if position.moves]
        )
        for families in _family_sets(settings.families):
            weights, row = _fit_families(families, without, [pooled[name] for name in included], games, settings)
            fitted.append(weights)
            report.append(row)
    info = _prior_info(training, dropped, settings)
    return PopulationPrior(book=book, rankers=tuple(fitted), settings=info, patterns=patterns), pd.DataFrame(report)


def _described(
    training: Mapping[str, Sequence[PlayerGame]],
    patterns: MovePatterns,
    settings: PriorSettings,
    progress: Callable | None,
) -> dict[str, _MasterRows]:
    """Each master's positions described by every family but the population's, one task a master."""
    static = tuple(family for family in settings.families if family != "population")
    tasks = [(name, games, static, patterns, settings) for name, games in training.items()]
    described = map_in_order(_master_rows, tasks, settings.runtime)
    return dict(zip(training, progress(described, total=len(tasks)) if progress else described))


def _fit_families(
    families: tuple[str, ...],
    without: str | None,
    pooled: list[tuple[np.ndarray, tuple[str, ...], MoveTable]],
    games: np.ndarray,
    settings: PriorSettings,
) -> tuple[PriorWeights, dict[str, Any]]:
    """One ranker of the population (less ``without``) on the columns of ``families``, and its row of the report.

    ``pooled`` holds each included master's rows with every column; residual trees are
    boosted on top when ``families`` is one of the full sets.
    """
    columns = tuple(column for family in FAMILIES if family in families for column in family_columns(family))
    table = _stack([_select(rows, columns) for rows in pooled])
    weights = fit_conditional_logit(table, penalty=settings.prior_strength, scale=feature_scale(table))
    trees = None
    if settings.trees is not None and families in _bases(settings.families):
        trees = fit_residual_trees(table, table.features @ weights, columns, games, settings.trees)
    fitted = PriorWeights(
        families=families,
        without=without,
        weights=dict(zip(columns, weights.tolist())),
        positions=table.positions,
        search_depth=settings.search_depth if "search" in families else None,
        trees=trees,
    )
    row = {
        "without": without or "",
        "families": "+".join(families),
        "search_depth": settings.search_depth if "search" in families else None,
        "positions": table.positions,
        "log_loss": float(-position_log_likelihood(table, weights).mean()),
        "top1": _top1(table, weights),
        "trees": trees.trees if trees is not None else 0,
    }
    return fitted, row


def _prior_info(
    training: Mapping[str, Sequence[PlayerGame]], dropped: dict[str, int], settings: PriorSettings
) -> dict[str, Any]:
    """The prior's record of how it was built: the masters' game counts and the settings that shape it."""
    return {
        "masters": {name: len(games) for name, games in training.items()},
        "dropped_test_games_of_others": dropped,
        "positions_per_master": settings.positions_per_master,
        "search_depth": settings.search_depth,
        "engine": (
            None if not settings.runtime.engine else {"path": settings.runtime.engine, "depth": settings.engine_depth}
        ),
        "random_state": settings.random_state,
        "leave_each_out": settings.leave_each_out,
    }


def _master_rows(
    name: str, games: Sequence[PlayerGame], static: tuple[str, ...], patterns: MovePatterns, settings: PriorSettings
) -> _MasterRows:
    """One master's sampled positions described by every family but the population's (one task)."""
    evidence = player_evidence(
        name,
        static,
        PopulationPrior(book=PopulationBook(), patterns=patterns),
        search_depth=settings.search_depth,
        engine=settings.runtime.engine_settings(settings.engine_depth),
        search_cache=settings.runtime.search_cache,
    )
    table, positions = move_table(
        games,
        evidence,
        max_positions=settings.positions_per_master,
        iam_params={"min_games": settings.min_games, "random_state": settings.random_state, "player": name},
        random_state=settings.random_state,
    )
    return _MasterRows(positions, table, evidence.columns)


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
    evidence = Evidence(families=("population",), sources=EvidenceSources(book=book, patterns=patterns))
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


def build_prior(
    masters: Mapping[str, Sequence[PlayerGame]],
    settings: PriorSettings,
    depths: Sequence[int],
    *,
    source: Mapping[str, Any],
    update: str | Path | None = None,
    progress: Callable | None = None,
) -> tuple[PopulationPrior, pd.DataFrame]:
    """The prior of ``masters`` fitted at each search depth of ``depths``, with its provenance.

    ``source`` says where the games came from (the files, the filters, the game counts);
    it is kept in the prior's settings with the toolkit's version and the digest of the
    feature code the fits depend on. ``update``: a prior file whose fits of the same
    families, left-out master and depth this build replaces (its other fits are kept,
    and so are the other rows of its table of fits).
    """
    if not depths:
        raise ValueError("at least one search depth is needed")
    base = load_prior(update) if update is not None else None  # a damaged or foreign file is refused before the work
    if base is not None and set(base.book.masters) != set(masters):
        raise DataError(
            f"{update} was built from other players' games ({', '.join(sorted(base.book.masters)) or 'none'}): "
            "a prior is updated from the same games"
        )
    priors: list[PopulationPrior] = []
    fits: list[pd.DataFrame] = []
    for depth in depths:
        prior, fitted = build_population_prior(
            masters, replace(settings, search_depth=depth), progress=progress
        )
        priors.append(prior)
        fits.append(fitted if not fits else fitted[fitted["search_depth"].notna()])
    prior, table = merge_priors(priors), pd.concat(fits, ignore_index=True)
    if base is not None and update is not None:
        prior = update_prior(base, prior)
        table = _updated_fits(fits_file(update), table)
    provenance = {"source": dict(source), "toolkit": __version__, "feature_code": feature_code_digest()}
    return replace(prior, settings={**prior.settings, **provenance}), table


def fits_file(prior_file: str | Path) -> Path:
    """The table of a prior file's fits, beside it: ``population_prior.json.gz`` -> ``population_prior_fits.csv``."""
    path = Path(prior_file)
    stem = path.name.removesuffix(".gz").removesuffix(".json")
    return path.with_name(f"{stem}_fits.csv")


def _updated_fits(old_file: Path, fits: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``old_file`` that ``fits`` does not refit, then ``fits``."""
    if not old_file.is_file():
        return fits
    old = pd.read_csv(old_file, keep_default_na=False, na_values={"search_depth": [""]})
    key = ["without", "families", "search_depth"]
    fits = fits.assign(without=fits["without"].fillna(""), search_depth=fits["search_depth"].astype(float))
    kept = old.assign(search_depth=old["search_depth"].astype(float)).merge(
        fits[key].drop_duplicates(), on=key, how="left", indicator=True
    )
    return pd.concat([kept[kept["_merge"] == "left_only"].drop(columns="_merge"), fits], ignore_index=True)
