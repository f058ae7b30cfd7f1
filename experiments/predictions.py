"""Held-out prediction runs shared by the belief-bands and learning-curve experiments.

Each experiment fits one model per training size on the first N training games and
scores the player's moves in the test games (:func:`iam.evaluation.evaluate`, runs in
parallel with ``--jobs``), then resamples the test games for bootstrap intervals
(:mod:`experiments.bootstrap`), one set of resamples shared by all training sizes.

``--max-positions N`` keeps the protocol intact and only scores fewer test
positions: the test games are shuffled with ``--seed`` and taken whole, in that
order, until they hold N positions where the player is to move; the last one taken
is cut after its N-th such position. Training is untouched.

Seeds: ``--seed`` is the model's ``random_state`` (as in ``iam evaluate``) and the
root of two independent streams, one for the test-game sample, one for the bootstrap.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.bootstrap import CONFIDENCE, RESAMPLES, SUMMARY_FIGURES, GameResamples, interval, resample_games, summary_figures
from experiments.heldout import HeldOut, add_heldout_arguments, load_heldout
from iam.evaluation import EvaluationReport, EvaluationRun, sample_test_games
from iam.predictors import PredictorSettings

__all__ = [
    "add_prediction_arguments",
    "sample_test_games",
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


def add_prediction_arguments(parser: argparse.ArgumentParser, *, train_games: str) -> None:
    """``--pgn --player --max-positions --train-games --belief --resamples``."""
    add_heldout_arguments(parser)
    parser.add_argument(
        "--train-games",
        default=train_games,
        metavar="LIST",
        help=f"training sizes, e.g. 12,80,all (default {train_games}); sizes above the "
        "number of training games become all of them",
    )
    parser.add_argument("--belief", choices=("learned", "rules"), default="learned", help="iam: the belief to evaluate")
    parser.add_argument(
        "--predictor",
        choices=("iam", "ranker"),
        default="iam",
        help="iam: the seed's chunks (default); ranker: the move ranker (pure Python; the learning curve adds it "
        "without its population prior, as a control)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=RESAMPLES,
        metavar="B",
        help=f"bootstrap resamples of the test games (default {RESAMPLES}, at most {MAX_RESAMPLES:,})",
    )


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


def _training_sizes(requested: Sequence[int | None], available: int) -> list[int]:
    """Requested sizes as game counts (``None``: all) capped at ``available``, ascending, without repeats."""
    return sorted({available if size is None else min(size, available) for size in requested})


def run_predictions(args: argparse.Namespace, *, controls: Sequence[str] = ()) -> PredictionRuns:
    """Load the games, sample the test positions, fit and score every training size, resample."""
    from iam.heldout import parse_sizes
    from iam.progress import progress
    from iam.errors import DataError
    from iam.evaluation import evaluate

    requested = parse_sizes(args.train_games)
    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise DataError(f"--resamples must be between 1 and {MAX_RESAMPLES:,}")
    heldout = load_heldout(args)
    sample_seed, bootstrap_seed = np.random.SeedSequence(args.seed).spawn(2)
    test = sample_test_games(heldout.test, args.max_positions, seed=sample_seed)
    if not any(game.player_moves for game in test):
        raise DataError(f"{heldout.player} has no moves in the test games")
    started = time.perf_counter()
    sizes = _training_sizes(requested, len(heldout.training))
    predictors = [args.predictor, *(controls if args.predictor == "ranker" else ())]
    settings = PredictorSettings(
        iam={"belief": args.belief, "random_state": args.seed}, ranker={"random_state": args.seed}
    )
    report = evaluate(
        heldout.training + test,
        player=heldout.player,
        train_sizes=sizes,
        predictors=predictors,
        settings=settings,
        jobs=args.jobs,
        progress=lambda runs: progress(runs, quiet=args.quiet, total=len(sizes) * len(predictors), desc="runs", unit=" runs"),
    )
    draws = resample_games([game.index for game in test], resamples=args.resamples, seed=bootstrap_seed)
    return PredictionRuns(heldout, report, draws, args.max_positions, args.seed, time.perf_counter() - started)


def summary_with_intervals(run: EvaluationRun, draws: GameResamples) -> dict:
    """``run``'s summary figures (as ``iam evaluate``), each of SUMMARY_FIGURES with ``<name>_ci``."""
    summary = dict(run.summary)
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
