"""Belief bands (source note 001, "Results"): how often a top prediction of a given belief is right.

For each training size (the source notes' 12, 22 and 80 games, and all training games) the
model predicts every held-out move of the player; each test position's top prediction
falls in one of the source notes' bands (<25%, 25-30%, 30-40%, 40-50%, >50%), and the table
counts predictions and hits per band, with coverage, top-1, top-3, ECE and Brier as in
``iam evaluate`` (the same JSON), plus 95% bootstrap intervals over test games
(:mod:`iam.measure.bootstrap`). A reliability diagram shows mean belief against hit
rate in ten equal-width belief bins: a calibrated model lies on the diagonal.
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
from iam.measure.bootstrap import CONFIDENCE, band_rates, interval, reliability_bins
from iam.measure.evaluation import BANDS, ECE_BINS

NAME = "belief-bands"
HELP = "the source notes' belief-band table with bootstrap intervals, and a reliability diagram"

__all__ = ["NAME", "HELP", "BeliefBandsConfig", "run", "band_frame", "reliability_frame"]

FIGURES = {
    "coverage": "coverage", "top1": "top-1", "top3": "top-3", "ece": "ECE", "brier": "Brier", "log_loss": "log loss"
}
"""The summary figures and their labels."""


@dataclass(frozen=True)
class BeliefBandsConfig(PredictionConfig):
    """The belief-band experiment: the source notes' training sizes (12, 22, 80 games) and all."""

    train_games: tuple[int | None, ...] = (12, 22, 80, None)


def band_frame(runs: PredictionRuns) -> pd.DataFrame:
    """One row per (training size, band): predictions, hits, rate, its interval, mean belief."""
    frames = []
    for run in runs.report.runs:
        bands = run.bands
        rates = band_rates(run.records, runs.resamples)
        bounds = np.array([interval(rates[label]) for label in bands["band"]])
        frames.append(bands.assign(train_games=run.train_games, rate_lo=bounds[:, 0], rate_hi=bounds[:, 1]))
    columns = ["train_games", "band", "predictions", "hits", "rate", "rate_lo", "rate_hi", "mean_belief"]
    return pd.concat(frames, ignore_index=True)[columns]


def reliability_frame(runs: PredictionRuns) -> pd.DataFrame:
    """One row per (training size, equal-width belief bin): predictions, mean belief, hit rate and interval."""
    frames = []
    for run in runs.report.runs:
        point = reliability_bins(run.records, runs.resamples.unit())
        resampled = reliability_bins(run.records, runs.resamples)["rate"]
        bounds = np.array([interval(resampled[edge]) for edge in resampled.columns])
        edges = point["rate"].columns.to_numpy(dtype=np.float64)
        frames.append(
            pd.DataFrame(
                {
                    "train_games": run.train_games,
                    "bin_low": edges,
                    "bin_high": edges + 1.0 / ECE_BINS,
                    "predictions": point["predictions"].iloc[0].to_numpy().astype(int),
                    "mean_belief": point["mean_belief"].iloc[0].to_numpy(),
                    "rate": point["rate"].iloc[0].to_numpy(),
                    "rate_lo": bounds[:, 0],
                    "rate_hi": bounds[:, 1],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def payload(runs: PredictionRuns, bands: pd.DataFrame, reliability: pd.DataFrame) -> dict:
    """``iam evaluate``'s JSON plus ``<figure>_ci`` per run, ``rate_ci`` per band and the reliability bins."""
    rows = []
    for row in run_rows(runs):
        size = row["train_games"]
        own = bands[bands["train_games"] == size]
        row["bands"] = [
            {
                "band": band.band,
                "predictions": int(band.predictions),
                "hits": int(band.hits),
                "rate": band.rate,
                "rate_ci": [band.rate_lo, band.rate_hi],
                "mean_belief": band.mean_belief,
            }
            for band in own.itertuples()
        ]
        row["reliability"] = [
            {
                "bin": [cell.bin_low, cell.bin_high],
                "predictions": int(cell.predictions),
                "mean_belief": cell.mean_belief,
                "rate": cell.rate,
                "rate_ci": [cell.rate_lo, cell.rate_hi],
            }
            for cell in reliability[reliability["train_games"] == size].itertuples()
        ]
        rows.append(row)
    return {**runs.header(NAME), "runs": rows}


def run(config: BeliefBandsConfig) -> ExperimentResult:
    """Tables ``summary``, ``bands``, ``reliability`` and ``positions``, a payload, a summary and two plots.

    >>> from experiments.common import GameSource
    >>> from iam.games.bundled import bundled_pgn
    >>> config = BeliefBandsConfig(source=GameSource(pgn=str(bundled_pgn("botvinnik.pgn")), player="Botvinnik"),
    ...                            train_games=(12,), max_positions=40, belief="rules", resamples=50)
    >>> result = run(config)
    >>> result.tables["bands"][["band", "predictions"]].shape
    (5, 2)
    """
    runs = run_predictions(config)
    bands = band_frame(runs)
    reliability = reliability_frame(runs)
    data = payload(runs, bands, reliability)
    summary = interval_columns(data["runs"])
    return ExperimentResult(
        name=NAME,
        tables={
            "summary": summary,
            "bands": bands,
            "reliability": reliability,
            "positions": runs.report.position_frame(),
        },
        payload=data,
        markdown=markdown(runs, data, bands),
        figures={"band_rates": band_figure(bands), "reliability": reliability_figure(reliability)},
    )


def markdown(runs: PredictionRuns, data: dict, bands: pd.DataFrame) -> str:
    """Summary figures and the source notes' band table, each with its interval."""
    summary = interval_table(data["runs"], FIGURES)
    cells = bands.assign(
        cell=[
            f"{row.hits}/{row.predictions} ({row.rate:.0%}, {row.rate_lo:.0%}-{row.rate_hi:.0%})"
            if row.predictions
            else "0/0"
            for row in bands.itertuples()
        ]
    )
    order = list(dict.fromkeys(bands["band"]))
    table = cells.pivot(index="train_games", columns="band", values="cell")[order].reset_index()
    return "\n".join(
        [
            f"# {runs.heldout.player}: belief bands",
            "",
            describe(runs),
            "",
            summary.to_markdown(index=False, disable_numparse=True),
            "",
            "Belief bands: hits/predictions (hit rate, interval) of each test position's top prediction",
            "",
            table.rename(columns={"train_games": "train games"}).to_markdown(index=False),
            "",
            f"Intervals: {CONFIDENCE:.0%} percentile bootstrap over test games, a band's rate over the resamples "
            "that reach the band (a band of a few predictions from one or two games gets a narrow interval "
            "that means little). ECE and Brier concern the top prediction of positions with a prediction, "
            "accuracies all test positions.",
        ]
    )


def band_figure(bands: pd.DataFrame):
    """Hit rate per band, one series per training size, with intervals; shaded: the band's beliefs."""
    labels = list(dict.fromkeys(bands["band"]))
    sizes = list(dict.fromkeys(bands["train_games"]))
    fig = Figure(figsize=(8, 4.5))
    ax = fig.subplots()
    positions = np.arange(len(labels))
    for centre, (low, high) in zip(positions, _band_limits(labels)):
        ax.fill_between([centre - 0.4, centre + 0.4], low, high, color="0.9", zorder=0)
    width = 0.8 / max(1, len(sizes))
    for i, size in enumerate(sizes):
        own = bands[bands["train_games"] == size].set_index("band").reindex(labels)
        x = positions - 0.4 + width * (i + 0.5)
        rate = own["rate"].to_numpy(dtype=np.float64)
        errors = np.vstack([rate - own["rate_lo"], own["rate_hi"] - rate])
        ax.errorbar(x, rate, yerr=np.nan_to_num(errors), fmt="o", capsize=3, label=f"{size} games")
    ax.set_xticks(positions, labels)
    ax.set_xlabel("belief of the top prediction")
    ax.set_ylabel("hit rate")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"Hit rate per belief band ({CONFIDENCE:.0%} bootstrap intervals; grey: the band's beliefs)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(title="training", fontsize=8)
    fig.tight_layout()
    return fig


def _band_limits(labels: list[str]) -> list[tuple[float, float]]:
    limits = {label: (low, min(high, 1.0)) for label, low, high in BANDS}
    return [limits[label] for label in labels]


def reliability_figure(reliability: pd.DataFrame):
    """Mean belief against hit rate per equal-width bin and training size, the diagonal drawn;
    below, how many top predictions each bin holds."""
    fig = Figure(figsize=(6, 7))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    top.plot([0, 1], [0, 1], color="0.5", linestyle="--", label="calibrated")
    sizes = list(dict.fromkeys(reliability["train_games"]))
    width = 1.0 / ECE_BINS / max(1, len(sizes))
    for i, size in enumerate(sizes):
        own = reliability[(reliability["train_games"] == size) & (reliability["predictions"] > 0)]
        rate = own["rate"].to_numpy(dtype=np.float64)
        errors = np.vstack([rate - own["rate_lo"], own["rate_hi"] - rate])
        top.errorbar(own["mean_belief"], rate, yerr=np.nan_to_num(errors), fmt="o-", capsize=3, label=f"{size} games")
        bottom.bar(own["bin_low"] + width * i, own["predictions"], width=width, align="edge", label=f"{size} games")
    top.set_xlim(0, 1)
    top.set_ylim(0, 1)
    top.set_ylabel("hit rate of the top prediction")
    top.set_title(f"Reliability ({ECE_BINS} equal-width bins, {CONFIDENCE:.0%} bootstrap intervals)")
    top.grid(True, alpha=0.3)
    top.legend(fontsize=8)
    if (reliability["predictions"] > 0).any():  # a log scale needs something to show
        bottom.set_yscale("log")
    bottom.set_xlabel("belief of the top prediction (mean per bin above)")
    bottom.set_ylabel("predictions")
    bottom.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
