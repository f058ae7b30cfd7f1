"""Bootstrap intervals over test games for the figures of :mod:`iam.measure.evaluation`.

Positions of one game are not independent (one opening, one plan, one opponent), so
the unit of resampling is the test game: a resample draws as many games as there are,
with replacement, and every figure is recomputed from the per-position records of the
games drawn (a game drawn twice counts twice). The interval is the percentile interval
of the resampled figures (2.5th and 97.5th percentiles for 95%).

Every figure of the evaluation is a ratio of sums over positions (top-1 is hits over
positions, a band's rate is its hits over its predictions, ECE is a sum of per-bin
gaps over predictions), so a resample needs only how often each game was drawn: the
per-game sums of a handful of per-position quantities, times a (resamples x games)
matrix of draw counts, give all resamples at once, without re-running pandas.

A figure whose denominator is empty in a resample (a band no drawn game reaches) is
undefined there; the interval is taken over the resamples where it is defined, and
is missing when it never is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from iam.measure.evaluation import BANDS, ECE_BINS

__all__ = [
    "RESAMPLES",
    "CONFIDENCE",
    "SUMMARY_FIGURES",
    "GameResamples",
    "resample_games",
    "summary_figures",
    "band_rates",
    "reliability_bins",
    "resampled_means",
    "interval",
]

RESAMPLES = 1000
"""Bootstrap resamples of the test games (the default of every experiment)."""

CONFIDENCE = 0.95
"""Coverage of the percentile intervals."""

SUMMARY_FIGURES = ("coverage", "top1", "top3", "ece", "brier", "log_loss")
"""The figures of :func:`iam.measure.evaluation.summarise` that get an interval."""

_LOG_FLOOR = 1e-4  # as in iam.measure.evaluation.summarise


@dataclass(frozen=True)
class GameResamples:
    """Which test games each bootstrap resample drew, and how often."""

    games: np.ndarray
    """The test games' protocol numbers, sorted (one column of ``counts`` each)."""
    counts: np.ndarray
    """``(resamples, games)``: how often each game was drawn in each resample."""

    @property
    def resamples(self) -> int:
        return self.counts.shape[0]

    def unit(self) -> GameResamples:
        """The sample itself as a single 'resample' (every game once): point estimates."""
        return GameResamples(self.games, np.ones((1, len(self.games)), dtype=np.int64))


def resample_games(
    games: Sequence[int] | np.ndarray, *, resamples: int = RESAMPLES, seed: int | np.random.SeedSequence = 0
) -> GameResamples:
    """Draw ``resamples`` bootstrap samples of the test games ``games`` (their protocol numbers).

    Seeded, so the same games and seed give the same resamples; share one
    ``GameResamples`` between training sizes to compare them on the same draws.
    """
    unique = np.unique(np.asarray(games, dtype=np.int64))
    if len(unique) == 0:
        raise ValueError("no test games to resample")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(len(unique), np.full(len(unique), 1.0 / len(unique)), size=resamples)
    return GameResamples(unique, counts)


def _weighted_sums(records: pd.DataFrame, draws: GameResamples, quantities: np.ndarray) -> np.ndarray:
    """``(resamples, K)`` sums of the ``(positions, K)`` per-position ``quantities`` in each resample."""
    games = records["game"].to_numpy(dtype=np.int64)
    column = np.searchsorted(draws.games, games)
    if len(games) and (column.max() >= len(draws.games) or np.any(draws.games[column] != games)):
        raise ValueError("records hold positions of games that were not resampled")
    per_game = np.zeros((len(draws.games), quantities.shape[1]))
    np.add.at(per_game, column, quantities)
    return draws.counts @ per_game


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def _columns(records: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per position: whether it has a prediction, the top belief (0 without), whether it was a hit."""
    predicted = records["candidates"].to_numpy() > 0
    confidence = np.where(predicted, records["top_belief"].to_numpy(dtype=np.float64), 0.0)
    hit = records["hit"].to_numpy(dtype=np.float64)
    return predicted.astype(np.float64), confidence, hit


def _bin_quantities(predicted: np.ndarray, confidence: np.ndarray, hit: np.ndarray) -> np.ndarray:
    """Per position and equal-width belief bin: [in bin | belief in bin | hit in bin] (3 x ECE_BINS columns)."""
    bins = np.minimum((confidence * ECE_BINS).astype(int), ECE_BINS - 1)
    inside = (bins[:, None] == np.arange(ECE_BINS)) * predicted[:, None]
    return np.hstack([inside, inside * confidence[:, None], inside * hit[:, None]])


def summary_figures(records: pd.DataFrame, draws: GameResamples) -> pd.DataFrame:
    """Coverage, top-1, top-3, ECE, Brier and log loss in every resample (one row each).

    Definitions as in :func:`iam.measure.evaluation.summarise`; with ``draws.unit()`` the
    single row equals its figures.
    """
    predicted, confidence, hit = _columns(records)
    played = records["played_belief"].to_numpy(dtype=np.float64)
    quantities = np.column_stack(
        [
            np.ones(len(records)),
            predicted,
            hit,
            records["top3"].to_numpy(dtype=np.float64),
            predicted * (confidence - hit) ** 2,
            -np.log(np.maximum(played, _LOG_FLOOR)),
            _bin_quantities(predicted, confidence, hit),
        ]
    )
    sums = _weighted_sums(records, draws, quantities)
    positions, predictions, hits, top3, squared_error, surprise = sums[:, :6].T
    bin_beliefs = sums[:, 6 + ECE_BINS : 6 + 2 * ECE_BINS]
    bin_hits = sums[:, 6 + 2 * ECE_BINS :]
    return pd.DataFrame(
        {
            "coverage": _ratio(predictions, positions),
            "top1": _ratio(hits, positions),
            "top3": _ratio(top3, positions),
            "ece": _ratio(np.abs(bin_hits - bin_beliefs).sum(axis=1), predictions),
            "brier": _ratio(squared_error, predictions),
            "log_loss": _ratio(surprise, positions),
        }
    )


def band_rates(records: pd.DataFrame, draws: GameResamples) -> pd.DataFrame:
    """The hit rate of each of the source notes' belief bands in every resample (one column per band)."""
    predicted, confidence, hit = _columns(records)
    inside = np.column_stack(
        [(predicted > 0) & (confidence >= low) & (confidence < high) for _, low, high in BANDS]
    ).astype(np.float64)
    sums = _weighted_sums(records, draws, np.hstack([inside, inside * hit[:, None]]))
    rates = _ratio(sums[:, len(BANDS) :], sums[:, : len(BANDS)])
    return pd.DataFrame(rates, columns=[label for label, _, _ in BANDS])


def reliability_bins(records: pd.DataFrame, draws: GameResamples) -> dict[str, pd.DataFrame]:
    """Per equal-width belief bin (the ECE's bins): predictions, mean top belief and hit rate.

    Returns three ``(resamples, ECE_BINS)`` frames keyed ``predictions``,
    ``mean_belief`` and ``rate``; columns are the bins' lower edges.
    """
    predicted, confidence, hit = _columns(records)
    sums = _weighted_sums(records, draws, _bin_quantities(predicted, confidence, hit))
    counts, beliefs, hits = np.split(sums, 3, axis=1)
    edges = np.arange(ECE_BINS) / ECE_BINS
    return {
        "predictions": pd.DataFrame(counts, columns=edges),
        "mean_belief": pd.DataFrame(_ratio(beliefs, counts), columns=edges),
        "rate": pd.DataFrame(_ratio(hits, counts), columns=edges),
    }


def resampled_means(records: pd.DataFrame, draws: GameResamples, values: np.ndarray) -> np.ndarray:
    """``(resamples, K)`` means of per-position ``values`` (``(positions, K)``) in each resample.

    ``records`` names each position's game (column ``game``). A NaN value leaves its
    position out of that column's mean, so a figure undefined for some positions is
    the mean over those where it is defined.
    """
    values = np.asarray(values, dtype=np.float64).reshape(len(records), -1)
    defined = ~np.isnan(values)
    sums = _weighted_sums(records, draws, np.where(defined, values, 0.0))
    counts = _weighted_sums(records, draws, defined.astype(np.float64))
    return _ratio(sums, counts)


def interval(values: pd.Series | np.ndarray, *, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of one figure's resampled values (NaN resamples left out)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return (np.nan, np.nan)
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return (float(low), float(high))
