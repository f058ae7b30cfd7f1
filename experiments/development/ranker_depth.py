"""Ranker depth: the move ranker's search depth measured on development games.

For each master, rankers that differ only in their search depth (and prior) are fitted on
his fitting games (training games that are not development games) and scored on the
positions of his development games (:mod:`iam.games.heldout`; his test games are never
read): top-1, top-3, log loss and ECE, the time to fit and the median time to predict a
position. The population prior holds residual trees only for its own depth, so depths are
compared fairly without trees (``prior="population-linear"``); the default ranker (with
the trees) is one more row. Each variant's log loss is compared with :attr:`RankerDepthConfig.baseline`'s
on the same positions: the gain and its paired standard error.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.common import ExperimentConfig, ExperimentResult
from iam.errors import DataError
from iam.games.bundled import bundled_pgn, manifest
from iam.games.heldout import development_games, fitting_games, sample_test_games
from iam.games.pgn import PlayerGame, load_player_games
from iam.measure.evaluation import RECORD_COLUMNS, position_record, summarise
from iam.ranker import MoveRanker

NAME = "ranker-depth"
HELP = "the move ranker at several search depths on development games: top-1, log loss, ECE and cost"

__all__ = ["NAME", "HELP", "RankerVariant", "RankerDepthConfig", "VARIANTS", "variant_records", "ranker_depth", "run"]


@dataclass(frozen=True)
class RankerVariant:
    """One ranker: its search depth, its prior (``"population"`` adds the residual trees of its own depth) and
    the prior's pull (None: the ranker's default, strong towards weights fitted at the ranker's own depth and
    light towards those of another depth)."""

    search_depth: int
    prior: str = "population-linear"
    prior_strength: float | None = None

    @property
    def label(self) -> str:
        pull = "" if self.prior_strength is None else f", pull {self.prior_strength:g}"
        return f"depth {self.search_depth}, {self.prior}{pull}"


VARIANTS = (RankerVariant(3, "population"), RankerVariant(3), RankerVariant(4), RankerVariant(5))
"""The default ranker, then depths 3 to 5 without the trees."""


@dataclass(frozen=True)
class RankerDepthConfig(ExperimentConfig):
    """Whose games, which rankers, how many positions to fit on and to score."""

    players: tuple[str, ...] = ()
    """Bundled masters (empty: all of them)."""
    variants: tuple[RankerVariant, ...] = VARIANTS
    baseline: RankerVariant = RankerVariant(3)
    """The variant every other's log loss is compared with."""
    fit_positions: int = 2000
    dev_positions: int = 400
    """Development positions scored per master (whole games sampled with ``seed``)."""


def variant_records(
    fitting: Sequence[PlayerGame],
    development: Sequence[PlayerGame],
    player: str,
    variant: RankerVariant,
    *,
    fit_positions: int,
    seed: int,
) -> tuple[pd.DataFrame, float]:
    """One record per development position (:data:`~iam.measure.evaluation.RECORD_COLUMNS` and the CPU
    seconds of its prediction, ``predict_seconds``) of the ranker fitted on ``fitting``; and the CPU seconds of
    the fit. CPU time, as the machine may be shared."""
    ranker = MoveRanker(
        search_depth=variant.search_depth, prior=variant.prior, prior_strength=variant.prior_strength,
        max_positions=fit_positions, random_state=seed,
    )
    started = time.process_time()
    ranker.fit(fitting, player=player)
    fit_seconds = time.process_time() - started
    records, seconds = [], []
    for game in development:
        board = game.board()
        for ply, move in enumerate(game.moves):
            if board.turn == game.color:
                started = time.process_time()
                beliefs = ranker.predict_proba(board)
                seconds.append(time.process_time() - started)
                records.append(position_record(game.index, ply, move, beliefs))
            board.push(move)
    ranker.close()
    table = pd.DataFrame.from_records(records, columns=RECORD_COLUMNS)
    return table.assign(predict_seconds=seconds), fit_seconds


def _position_log_loss(records: pd.DataFrame) -> np.ndarray:
    """Each position's log loss, as :func:`~iam.measure.evaluation.summarise` averages it."""
    return -np.log(np.maximum(records["played_belief"].to_numpy(dtype=np.float64), 1e-4))


def _row(player: str, variant: RankerVariant, records: pd.DataFrame, fit_seconds: float,
         baseline: pd.DataFrame | None) -> dict:
    figures = summarise(records)
    gain, error = math.nan, math.nan
    if baseline is not None:
        difference = _position_log_loss(baseline) - _position_log_loss(records)
        gain, error = float(difference.mean()), float(difference.std(ddof=1) / math.sqrt(len(difference)))
    return {
        "player": player, "variant": variant.label, "search_depth": variant.search_depth, "prior": variant.prior,
        "prior_strength": variant.prior_strength,
        "positions": len(records), "top1": figures["top1"], "top3": figures["top3"],
        "log_loss": figures["log_loss"], "ece": figures["ece"], "fit_seconds": fit_seconds,
        "predict_ms": 1000 * float(records["predict_seconds"].median()),
        "log_loss_gain": gain, "gain_se": error,
    }


def ranker_depth(config: RankerDepthConfig) -> pd.DataFrame:
    """One row per master and variant: positions, top-1, top-3, log loss, ECE, CPU seconds of the fit,
    median CPU milliseconds of a prediction, and the log loss gained over the baseline (its log loss less the
    variant's, positive when the variant is better) with its paired standard error over positions."""
    if config.baseline not in config.variants:
        raise DataError(f"the baseline ({config.baseline.label}) must be one of the variants")
    rows = []
    for player in config.players or tuple(entry.player for entry in manifest()):
        games, _ = load_player_games([bundled_pgn(player)], player=player)
        development = sample_test_games(development_games(games), config.dev_positions, seed=config.seed)
        measured = {
            variant: variant_records(
                fitting_games(games), development, player, variant,
                fit_positions=config.fit_positions, seed=config.seed,
            )
            for variant in config.variants
        }
        baseline = measured[config.baseline][0]
        for variant, (records, fit_seconds) in measured.items():
            rows.append(_row(player, variant, records, fit_seconds, None if variant == config.baseline else baseline))
    return pd.DataFrame(rows)


def run(config: RankerDepthConfig) -> ExperimentResult:
    """Table ``ranker_depth`` (:func:`ranker_depth`), a payload and a summary."""
    table = ranker_depth(config)
    payload = {
        "experiment": NAME,
        "baseline": config.baseline.label,
        "fit_positions": config.fit_positions,
        "dev_positions": config.dev_positions,
        "seed": config.seed,
        "rows": table.to_dict(orient="records"),
    }
    markdown = "\n".join(
        [
            "# The move ranker's search depth on development games",
            "",
            f"Fitted on {config.fit_positions} positions of the fitting games, scored on up to "
            f"{config.dev_positions} development positions per master; gains over {config.baseline.label}.",
            "",
            table.to_markdown(index=False, floatfmt=".3f"),
        ]
    )
    return ExperimentResult(name=NAME, tables={"ranker_depth": table}, payload=payload, markdown=markdown + "\n")
