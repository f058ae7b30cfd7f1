"""Held-out prediction runs shared by the belief-bands and learning-curve experiments.

Each experiment fits one model per training size on the first N training games and
scores the player's moves in the test games (:func:`iam.measure.evaluation.evaluate`, runs in
parallel with ``jobs``), then resamples the test games for bootstrap intervals
(:mod:`iam.measure.bootstrap`), one set of resamples shared by all training sizes.

A cap on the test positions (``max_positions``) keeps the protocol intact and only scores fewer test
positions: the test games are shuffled with ``seed`` and taken whole, in that
order, until they hold N positions where the player is to move; the last one taken
is cut after its N-th such position. Training is untouched.

Seeds: ``seed`` is the model's ``random_state`` (as in ``iam evaluate``) and the
root of two independent streams, one for the test-game sample, one for the bootstrap.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.common import HeldOutConfig, load_games
from iam.errors import DataError
from iam.games.heldout import sample_test_games, training_sizes
from iam.games.player_games import HeldOut
from iam.measure.bootstrap import (
    CONFIDENCE,
    RESAMPLES,
    SUMMARY_FIGURES,
    GameResamples,
    interval,
    resample_games,
    summary_figures,
)
from iam.measure.evaluation import EvaluationReport, EvaluationRun, evaluate
from iam.measure.predictors import PredictorSettings
from iam.progress import progress

__all__ = [
    "MAX_RESAMPLES",
    "PredictionConfig",
    "PredictionRuns",
    "run_predictions",
    "summary_with_intervals",
    "run_rows",
    "interval_columns",
    "with_interval",
    "interval_table",
    "describe",
]

MAX_RESAMPLES = 20_000
"""Most bootstrap resamples accepted (the draw matrix is resamples x test games)."""


@dataclass(frozen=True)
class PredictionConfig(HeldOutConfig):
    """Held-out prediction runs: one model per training size, scored on the same test positions."""

    train_games: tuple[int | None, ...] = (12, 22, 80, None)
    """Training sizes, the first N training games (None: all); sizes above the games become all."""
    belief: str = "learned"
    """IAM's belief: ``learned`` or ``rules``."""
    predictor: str = "iam"
    """``iam`` (the source notes' chunks) or ``ranker`` (the move ranker)."""
    resamples: int = RESAMPLES
    """Bootstrap resamples of the test games (at most :data:`MAX_RESAMPLES`)."""


@dataclass(frozen=True)
class PredictionRuns:
    """The held-out runs of one experiment and the bootstrap resamples of its test games."""

    heldout: HeldOut
    report: EvaluationReport
    resamples: GameResamples
    max_positions: int | None
    seed: int
    seconds: float

    @property
    def test_positions(self) -> int:
        return len(self.report.runs[0].records)

    def header(self, experiment: str) -> dict:
        """The fields every prediction experiment's JSON starts with (its ``runs`` follow)."""
        return {
            "experiment": experiment,
            "player": self.heldout.player,
            "test_games": self.report.test_games,
            "test_positions": self.test_positions,
            "training_games_available": len(self.heldout.training),
            "max_positions": self.max_positions,
            "seed": self.seed,
            "resamples": self.resamples.resamples,
            "confidence": CONFIDENCE,
        }


def run_predictions(config: PredictionConfig, *, controls: Sequence[str] = ()) -> PredictionRuns:
    """Load the games, sample the test positions, fit and score every training size, resample."""
    if not config.train_games or any(size is not None and size < 1 for size in config.train_games):
        raise DataError(f"train_games must be one or more sizes of at least 1 (None for all), not {config.train_games}")
    if not 1 <= config.resamples <= MAX_RESAMPLES:
        raise DataError(f"resamples must be between 1 and {MAX_RESAMPLES:,}, not {config.resamples}")
    heldout = load_games(config)
    sample_seed, bootstrap_seed = np.random.SeedSequence(config.seed).spawn(2)
    test = sample_test_games(heldout.test, config.max_positions, seed=sample_seed)
    if not any(game.player_moves for game in test):
        raise DataError(f"{heldout.player} has no moves in the test games")
    started = time.perf_counter()
    sizes = training_sizes(config.train_games, len(heldout.training))
    predictors = [config.predictor, *(controls if config.predictor == "ranker" else ())]
    settings = PredictorSettings(
        iam={"belief": config.belief, "random_state": config.seed}, ranker={"random_state": config.seed}
    )
    report = evaluate(
        heldout.training + test,
        player=heldout.player,
        train_sizes=sizes,
        predictors=predictors,
        settings=settings,
        runtime=config.runtime,
        progress=lambda runs: progress(
            runs, quiet=config.quiet, total=len(sizes) * len(predictors), desc="runs", unit=" runs"
        ),
    )
    draws = resample_games([game.index for game in test], resamples=config.resamples, seed=bootstrap_seed)
    return PredictionRuns(heldout, report, draws, config.max_positions, config.seed, time.perf_counter() - started)


def summary_with_intervals(run: EvaluationRun, draws: GameResamples) -> dict:
    """``run``'s summary figures (as ``iam evaluate``), each of SUMMARY_FIGURES with ``<name>_ci``."""
    summary: dict[str, object] = dict(run.summary)
    figures = summary_figures(run.records, draws)
    for name in SUMMARY_FIGURES:
        summary[f"{name}_ci"] = list(interval(figures[name]))
    return summary


def run_rows(runs: PredictionRuns) -> list[dict]:
    """One JSON row per run: ``predictor``, ``train_games``, the summary figures and their ``_ci``."""
    return [
        {"predictor": run.predictor, "train_games": run.train_games, **summary_with_intervals(run, runs.resamples)}
        for run in runs.report.runs
    ]


def interval_columns(rows: list[dict]) -> pd.DataFrame:
    """``rows`` as a table, each ``<name>_ci`` pair split into ``<name>_lo`` and ``<name>_hi``."""
    flat = []
    for row in rows:
        cells = {}
        for key, value in row.items():
            if key.endswith("_ci"):
                cells[f"{key[:-3]}_lo"], cells[f"{key[:-3]}_hi"] = value
            elif not isinstance(value, list):
                cells[key] = value
        flat.append(cells)
    return pd.DataFrame(flat)


def with_interval(value: float, ci: Sequence[float], spec: str = ".3f") -> str:
    """``0.150 (0.139-0.161)``: a figure and its interval for a markdown cell."""
    if value != value:
        return "-"
    low, high = ci
    if low != low:
        return format(value, spec)
    return f"{value:{spec}} ({low:{spec}}-{high:{spec}})"


def interval_table(rows: list[dict], figures: dict[str, str]) -> pd.DataFrame:
    """For markdown: ``train games`` and each of ``figures`` (key -> column label) with its interval."""
    return pd.DataFrame(
        [
            {
                "predictor": row["predictor"],
                "train games": row["train_games"],
                **{label: with_interval(row[key], row[f"{key}_ci"]) for key, label in figures.items()},
            }
            for row in rows
        ]
    )


def describe(runs: PredictionRuns) -> str:
    """The line under a report's title: data, sample, resamples and time."""
    ingest = runs.heldout.report
    cap = f"a sample capped by --max-positions {runs.max_positions}, seed {runs.seed}; " if runs.max_positions else ""
    return (
        f"{runs.report.test_games} test games, {runs.test_positions} test positions "
        f"({cap}games read: {ingest.used}, skipped: {ingest.skipped_total}); "
        f"{CONFIDENCE:.0%} intervals from {runs.resamples.resamples} bootstrap resamples of the test games; "
        f"{runs.seconds:.0f} s"
    )
