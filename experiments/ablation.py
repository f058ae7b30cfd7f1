"""Ablation: what each family of evidence adds to the move ranker.

The ranker is fitted with every family, then refitted with each family removed
(and with each family alone), all on the same training and test positions: the
features are computed once, and each variant selects its columns and is pulled
towards the population prior fitted for exactly its families. The variants are linear
scores; one more row adds the population's residual trees (:mod:`iam.priors.trees`)
to the full ranker, as a fitted ranker does. Reported per variant:
top-1, top-3, log loss and ECE on the test positions, with 95% bootstrap intervals
over test games; and on each row without a family, what that family adds on top of every
other (the gain in top-1 and in log loss, with intervals paired over the same resampled games).
In particular it says what the source notes' chunks (the ``habits`` family) add on top of
everything else.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from experiments.common import ExperimentConfig, ExperimentResult, GameSource, HeldOutConfig, load_games
from iam.chunks.model import OpponentModel
from iam.evidence.evidence import player_evidence
from iam.evidence.registry import DEFAULT_FAMILIES, FAMILIES, family_columns
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.games.heldout import first_training_games, sample_test_games, test_games
from iam.games.pgn import PlayerGame
from iam.measure.bootstrap import (
    CONFIDENCE,
    RESAMPLES,
    GameResamples,
    interval,
    resample_games,
    summary_figures,
)
from iam.measure.evaluation import RECORD_COLUMNS, position_record
from iam.priors.logit import MoveTable, feature_scale, fit_conditional_logit, softmax_by_position
from iam.priors.patterns import count_patterns
from iam.priors.population import PopulationPrior, bundled_prior
from iam.priors.positions import PlayerPosition, player_positions
from iam.priors.trees import ResidualTrees
from iam.ranker.estimator import prior_penalty
from iam.ranker.training import move_table, stack_table

NAME = "ablation"
HELP = "top-1 and log loss of the move ranker with each family of evidence removed (and alone)"

__all__ = [
    "AblationConfig",
    "AblatedRanker",
    "AblationTables",
    "ablation",
    "ablation_tables",
    "ablation_variants",
    "NAME",
    "HELP",
    "run",
    "variants",
]


@dataclass(frozen=True)
class AblatedRanker:
    """The ranker whose families are ablated: its families, the depths of their searches, its training positions
    and its prior."""

    families: tuple[str, ...] = DEFAULT_FAMILIES
    search_depth: int = DEFAULT_SEARCH_DEPTH
    engine_depth: int = 8
    """Depth of the engine family's analyses (with an engine in the config's ``runtime``)."""
    train_positions: int = 4000
    prior: str = "population"
    prior_strength: float | None = None
    """L2 pull of each fit (None: the ranker's default for ``prior``)."""
    min_games: int = 2


@dataclass(frozen=True)
class AblationConfig(ExperimentConfig):
    """One ablation: whose games, which families, how much data, how the ranker is fitted.

    ``runtime`` holds the engine (with its cache) and the processes computing the training features.
    """

    source: GameSource = GameSource()
    """Whose games :func:`run` reads (by default the bundled Botvinnik's)."""
    ranker: AblatedRanker = AblatedRanker()
    train_games: int | None = None
    """The first N training games (None: all)."""
    test_positions: int | None = 2000
    """Test positions scored (whole test games sampled with ``seed``); None: all."""
    resamples: int = RESAMPLES


def variants(families: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(label, families) of the full ranker, each family removed, and each family alone."""
    ordered = tuple(family for family in FAMILIES if family in families)
    rows = [("all families", ordered)]
    rows += [(f"without {family}", tuple(f for f in ordered if f != family)) for family in ordered if len(ordered) > 1]
    rows += [(f"{family} alone", (family,)) for family in ordered if len(ordered) > 1]
    return rows


@dataclass(frozen=True)
class AblationTables:
    """What every variant of one ablation is fitted and scored on (:func:`ablation_tables`): the features of the
    training and test moves for every family, the scored test positions and the resampled test games. The
    variants select their columns from these tables; only their fits read the ranker's prior strength."""

    config: AblationConfig
    columns: tuple[str, ...]
    """The tables' columns: every feature of every family of the config's ranker."""
    train: MoveTable
    test: MoveTable
    positions: list[PlayerPosition]
    """The test positions with legal moves, in the order of the test table's rows."""
    draws: GameResamples
    population: PopulationPrior | None
    player: str

    def with_prior_strength(self, strength: float | None) -> AblationTables:
        """The same tables, their variants fitted with the L2 pull ``strength`` (None: the ranker's default)."""
        ranker = replace(self.config.ranker, prior_strength=strength)
        return replace(self, config=replace(self.config, ranker=ranker))


def ablation(
    games: Sequence[PlayerGame], player: str, config: AblationConfig, *, prior: PopulationPrior | None = None
) -> pd.DataFrame:
    """One row per variant: its families, test positions, and figures with their intervals.

    ``games`` are the player's games with their protocol numbers (all splits).
    ``prior`` defaults to the bundled population prior (when ``config.ranker.prior`` is
    ``"population"``); the player himself is always left out of it.
    """
    return ablation_variants(ablation_tables(games, player, config, prior=prior))


def ablation_tables(
    games: Sequence[PlayerGame], player: str, config: AblationConfig, *, prior: PopulationPrior | None = None
) -> AblationTables:
    """The features every variant of :func:`ablation` is fitted and scored on, computed once (same arguments)."""
    ranker = config.ranker
    families = tuple(family for family in FAMILIES if family in ranker.families)
    training = first_training_games(games, config.train_games)
    test = sample_test_games(test_games(games), config.test_positions, seed=config.seed)
    population = (prior or bundled_prior()) if ranker.prior == "population" else None
    iam_params: dict[str, Any] = {"min_games": ranker.min_games, "random_state": config.seed, "player": player}
    engine = config.runtime.engine_settings(ranker.engine_depth)
    evidence = player_evidence(player, families, population, search_depth=ranker.search_depth, engine=engine)
    train_table, _ = move_table(
        training,
        evidence,
        max_positions=ranker.train_positions,
        iam_params=iam_params,
        random_state=config.seed,
        runtime=config.runtime,
    )
    test_positions = player_positions(test)
    iam = OpponentModel(**iam_params).fit(training) if "habits" in families else None
    own = count_patterns(training) if "habits" in families else None
    scorer = player_evidence(
        player, families, population, search_depth=ranker.search_depth, engine=engine, iam=iam, own_patterns=own
    )
    try:
        test_table = stack_table(scorer.matrices(test_positions), test_positions)
    finally:
        scorer.close()
    kept = [p for p in test_positions if p.moves]
    draws = resample_games([p.game for p in kept], resamples=config.resamples, seed=config.seed)
    return AblationTables(config, tuple(evidence.columns), train_table, test_table, kept, draws, population, player)


def ablation_variants(tables: AblationTables) -> pd.DataFrame:
    """:func:`ablation`'s rows, each variant fitted and scored on ``tables``."""
    ranker, population, player = tables.config.ranker, tables.population, tables.player
    families = tuple(family for family in FAMILIES if family in ranker.families)
    train_table, test_table, kept, draws = tables.train, tables.test, tables.positions, tables.draws
    depth = ranker.search_depth
    trees = population.trees_for(families, player, depth) if population is not None else None
    rows, resampled = [], {}
    boosted_variant = [("all families + residual trees", families)] if trees is not None else []
    for label, subset in variants(families) + boosted_variant:
        columns = [tables.columns.index(name) for family in subset for name in family_columns(family)]
        names = [tables.columns[i] for i in columns]
        prior_weights = population.weights_for(subset, player, depth) if population is not None else {}
        start = np.array([prior_weights.get(n, 0.0) for n in names])
        exact = population is not None and population.fitted_for(subset, player, depth)
        boosted = trees is not None and label.endswith("residual trees")
        offsets = [
            _tree_scores(trees, t.features, names) if trees is not None and boosted else 0.0
            for t in (train_table, test_table)
        ]
        train_part, test_part = _select(train_table, columns), _select(test_table, columns)
        weights = _fit(train_part, start, prior_penalty(ranker.prior, ranker.prior_strength, exact=exact), offsets[0])
        records = _records(test_part, weights, kept, offsets[1])
        figures = summary_figures(records, draws)
        point = summary_figures(records, draws.unit()).iloc[0]
        kind, family = _kind(label)
        row = {
            "variant": label,
            "kind": kind,
            "family": family,
            "families": "+".join(subset),
            "test_positions": len(records),
        }
        for figure in ("top1", "top3", "log_loss", "ece"):
            low, high = interval(figures[figure])
            row.update({figure: float(point[figure]), f"{figure}_lo": low, f"{figure}_hi": high})
        resampled[label] = figures
        rows.append(row)
    return _with_gains(pd.DataFrame(rows), resampled)


def _kind(label: str) -> tuple[str, str]:
    """A variant's kind (``all``, ``without``, ``alone``, ``trees``) and the family it names ('' for none)."""
    if label.startswith("without "):
        return "without", label.removeprefix("without ")
    if label.endswith(" alone"):
        return "alone", label.removesuffix(" alone")
    return ("trees" if label.endswith("residual trees") else "all"), ""


def _with_gains(table: pd.DataFrame, resampled: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """What each family adds on top of every other family, on the rows that remove one.

    ``top1_gain`` is the full ranker's top-1 minus the row's, ``log_loss_gain`` the row's log loss minus the
    full ranker's (both positive when the family helps), with 95% intervals paired over the same resampled
    games. The residual trees' row gets what the trees add to the full linear ranker; other rows NaN.
    """
    points = table.set_index("variant")
    gains: dict[str, list[float]] = {f"{f}_gain{s}": [] for f in ("top1", "log_loss") for s in ("", "_lo", "_hi")}
    for variant, kind in zip(table["variant"], table["kind"]):
        # (better, worse): the ranker with the family (or the trees) and the ranker without it.
        pair = {"without": ("all families", variant), "trees": (variant, "all families")}.get(kind)
        for figure, sign in (("top1", 1.0), ("log_loss", -1.0)):
            if pair is None:
                values = (np.nan, np.nan, np.nan)
            else:
                better, worse = pair
                point = sign * (points.at[better, figure] - points.at[worse, figure])
                values = (point, *interval(sign * (resampled[better][figure] - resampled[worse][figure])))
            for suffix, value in zip(("", "_lo", "_hi"), values):
                gains[f"{figure}_gain{suffix}"].append(float(value))
    return table.assign(**gains)


def _select(table: MoveTable, columns: list[int]) -> MoveTable:
    return MoveTable(table.features[:, columns], table.starts, table.played)


def _fit(table: MoveTable, prior: np.ndarray, strength: float, offset: np.ndarray | float = 0.0) -> np.ndarray:
    return fit_conditional_logit(table, prior=prior, penalty=strength, scale=feature_scale(table), offset=offset)


def _tree_scores(trees: ResidualTrees, features: np.ndarray, names: list[str]) -> np.ndarray:
    return trees.score(features[:, [names.index(name) for name in trees.columns]])


def _records(table: MoveTable, weights: np.ndarray, positions, offset: np.ndarray | float = 0.0) -> pd.DataFrame:
    probs = softmax_by_position(table.features @ weights + offset, table.starts)
    rows = []
    for number, position in enumerate(positions):
        mine = probs[table.starts[number] : table.starts[number + 1]]
        order = np.argsort(-mine, kind="stable")
        beliefs = {position.moves[i]: float(mine[i]) for i in order.tolist()}
        rows.append(position_record(position.game, position.ply, position.played_move, beliefs))
    return pd.DataFrame.from_records(rows, columns=RECORD_COLUMNS)


def run(config: AblationConfig) -> ExperimentResult:
    """Table ``ablation`` (one row per variant, :func:`ablation`), a payload and a summary, on the config's games.

    >>> from iam.games.bundled import bundled_pgn
    >>> config = AblationConfig(source=GameSource(pgn=str(bundled_pgn("botvinnik.pgn")), player="Botvinnik"),
    ...                         ranker=AblatedRanker(families=("move",), train_positions=60, prior="none"),
    ...                         train_games=5, test_positions=30, resamples=20)
    >>> run(config).tables["ablation"][["variant", "test_positions"]].values.tolist()
    [['all families', 30]]
    """
    heldout = load_games(HeldOutConfig(source=config.source, max_positions=config.test_positions, quiet=config.quiet))
    started = time.perf_counter()
    table = ablation(heldout.games, heldout.player, config)
    seconds = time.perf_counter() - started
    payload = {
        "experiment": NAME,
        "player": heldout.player,
        "families": list(config.ranker.families),
        "train_games": config.train_games or len(heldout.training),
        "seed": config.seed,
        "confidence": CONFIDENCE,
        "rows": table.to_dict(orient="records"),
    }
    shown = table.assign(
        **{
            name: [
                f"{v:.3f} ({lo:.3f}-{hi:.3f})"
                for v, lo, hi in zip(table[name], table[f"{name}_lo"], table[f"{name}_hi"])
            ]
            for name in ("top1", "top3", "log_loss", "ece")
        },
        **{
            f"{name}_gain": [
                "" if np.isnan(v) else f"{v:+.3f} ({lo:+.3f} to {hi:+.3f})"
                for v, lo, hi in zip(table[f"{name}_gain"], table[f"{name}_gain_lo"], table[f"{name}_gain_hi"])
            ]
            for name in ("top1", "log_loss")
        },
    )[["variant", "families", "test_positions", "top1", "top3", "log_loss", "ece", "top1_gain", "log_loss_gain"]]
    markdown = "\n".join(
        [
            f"# {heldout.player}: ablation of the move ranker",
            "",
            f"{payload['train_games']} training games ({config.ranker.train_positions} positions sampled), "
            f"{int(table['test_positions'].iloc[0])} test positions; {CONFIDENCE:.0%} intervals over test games; "
            f"{seconds:.0f} s",
            "",
            shown.to_markdown(index=False),
        ]
    )
    return ExperimentResult(name=NAME, tables={"ablation": table}, payload=payload, markdown=markdown + "\n")
