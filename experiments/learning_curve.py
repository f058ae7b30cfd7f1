"""Learning curve: how prediction improves with the number of training games.

One model per training size (default 5, 12, 22, 40, 80, 160, 320 and all training
games, the first N in file order as the held-out protocol says), each scored on the
same test positions: coverage, top-1 and top-3 accuracy, log loss of the move played
and ECE, with 95% bootstrap intervals over test games (one set of resamples for all
sizes, :mod:`iam.measure.bootstrap`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.common import ExperimentResult
from experiments.predictions import (
    PredictionConfig,
    PredictionRuns,
    describe,
    interval_columns,
    interval_table,
    run_predictions,
    run_rows,
)
from iam.measure.bootstrap import CONFIDENCE

NAME = "learning-curve"
HELP = "top-1, top-3, coverage, log loss and ECE against the number of training games"

__all__ = ["NAME", "HELP", "LearningCurveConfig", "run"]

FIGURES = {"coverage": "coverage", "top1": "top-1", "top3": "top-3", "log_loss": "log loss", "ece": "ECE"}
"""The curve's figures and their labels."""


@dataclass(frozen=True)
class LearningCurveConfig(PredictionConfig):
    """The learning curve: training sizes from 5 games to all of them."""

    train_games: tuple[int | None, ...] = (5, 12, 22, 40, 80, 160, 320, None)


def run(config: LearningCurveConfig) -> ExperimentResult:
    """Table ``learning_curve`` (one row per predictor and size, figures with intervals), a payload, a summary, a plot.

    The move ranker is shown with its control, the ranker without its population prior.

    >>> from experiments.common import GameSource
    >>> from iam.games.bundled import bundled_pgn
    >>> config = LearningCurveConfig(source=GameSource(pgn=str(bundled_pgn("botvinnik.pgn")), player="Botvinnik"),
    ...                              train_games=(5, 12), max_positions=40, belief="rules", resamples=50)
    >>> run(config).tables["learning_curve"]["train_games"].tolist()
    [5, 12]
    """
    runs = run_predictions(config, controls=("ranker-no-prior",))
    rows = run_rows(runs)
    data = {**runs.header(NAME), "runs": rows}
    curve = interval_columns(rows)
    return ExperimentResult(
        name=NAME,
        tables={"learning_curve": curve},
        payload=data,
        markdown=markdown(runs, rows),
        figures={"learning_curve": figure(curve)},
    )


def markdown(runs: PredictionRuns, rows: list[dict]) -> str:
    """One line per training size, every figure with its interval."""
    table = interval_table(rows, FIGURES)
    return "\n".join(
        [
            f"# {runs.heldout.player}: learning curve",
            "",
            describe(runs),
            "",
            table.to_markdown(index=False, disable_numparse=True),
            "",
            f"Intervals: {CONFIDENCE:.0%} percentile bootstrap over test games. Log loss: of the move played, "
            "its belief floored at 1e-4; ECE: the top prediction of positions with a prediction.",
        ]
    )


def figure(curve: pd.DataFrame):
    """Coverage and accuracies (left), log loss (middle) and ECE (right) against training games, log x."""
    fig = Figure(figsize=(14, 4.2))
    axes = fig.subplots(1, 3)
    panels = (("coverage", "top1", "top3"), ("log_loss",), ("ece",))
    groups = list(curve.groupby("predictor", sort=False)) if "predictor" in curve else [("", curve)]
    for ax, keys in zip(axes, panels):
        for (predictor, rows), style in zip(groups, ("-", "--", ":", "-.")):
            sizes = rows["train_games"].to_numpy(dtype=np.float64)
            for key in keys:
                label = f"{predictor}: {FIGURES[key]}" if len(groups) > 1 else FIGURES[key]
                ax.plot(sizes, rows[key], marker="o", linestyle=style, label=label)
                ax.fill_between(sizes, rows[f"{key}_lo"], rows[f"{key}_hi"], alpha=0.2)
        sizes = np.unique(curve["train_games"].to_numpy(dtype=np.float64))
        ax.set_xscale("log")
        ax.set_xticks(sizes, [str(int(size)) for size in sizes])
        ax.minorticks_off()
        ax.set_xlabel("training games")
        ax.grid(True, alpha=0.3)
        ax.set_title(", ".join(FIGURES[key] for key in keys))
    axes[0].set_ylim(0, 1)
    axes[0].set_ylabel("share of test positions")
    axes[0].legend(fontsize=8)
    axes[2].set_ylim(bottom=0)
    fig.suptitle(f"Learning curve ({CONFIDENCE:.0%} bootstrap intervals over test games)")
    fig.tight_layout()
    return fig
