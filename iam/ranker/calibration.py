"""Top-label calibration: the belief in a position's most believed move, corrected.

One temperature calibrates the beliefs as a whole (it minimises their log loss), yet the
most believed move stays over-confident: when search, the policy network and the
player's habits agree on a move, a linear score counts their agreement more than once
(measured in ``docs/results/ranker.md``, *Calibration*). A logistic map of that one belief (its
log-odds times a slope, plus an offset), fitted on the same out-of-fold scores as the
temperature, moves it to the rate at which such moves were played; the other moves share
the rest in their old proportions. The most believed move stays the most believed, so
rankings, top-1 and top-3 never change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from iam.priors.logit import MoveTable, one_thread_optimiser, softmax_by_position

__all__ = ["TopLabelCalibration", "calibrate_top", "fit_top_label"]

_EDGE = 1e-9


@dataclass(frozen=True)
class TopLabelCalibration:
    """``top' = sigmoid(slope * logit(top) + offset)``; slope 1 and offset 0 leave beliefs alone."""

    slope: float = 1.0
    offset: float = 0.0

    @property
    def identity(self) -> bool:
        return self.slope == 1.0 and self.offset == 0.0

    def to_list(self) -> list[float]:
        return [self.slope, self.offset]


def calibrate_top(probs: np.ndarray, slope: np.ndarray | float, offset: np.ndarray | float) -> np.ndarray:
    """Beliefs of one position with the top belief of each column recalibrated.

    ``probs`` is (moves,) or (moves, models), each column summing to 1; ``slope`` and
    ``offset`` are scalars or one per column. The new top belief is never set as low as
    the level at which the second move would tie with it (top-1 never changes).
    """
    single = probs.ndim == 1
    p = probs.reshape(len(probs), -1).astype(np.float64)
    if len(p) < 2:
        return probs.copy()
    order = np.argsort(-p, axis=0, kind="stable")
    columns = np.arange(p.shape[1])
    top, second = p[order[0], columns], p[order[1], columns]
    odds = np.log(np.clip(top, _EDGE, 1 - _EDGE)) - np.log(np.clip(1 - top, _EDGE, 1 - _EDGE))
    wanted = 1.0 / (1.0 + np.exp(-(np.asarray(slope) * odds + np.asarray(offset))))
    # at ``floor`` the second move would tie with the top one; a hair above it keeps the order
    floor = second / np.maximum(1.0 - top + second, _EDGE) * (1.0 + 1e-6)
    new_top = np.where(top >= 1 - _EDGE, top, np.clip(wanted, floor, 1.0))
    rest = np.where(top < 1, (1.0 - new_top) / np.maximum(1.0 - top, _EDGE), 0.0)
    out = p * rest
    out[order[0], columns] = new_top
    return out[:, 0] if single else out


def fit_top_label(table: MoveTable, scores: np.ndarray) -> TopLabelCalibration:
    """The map fitted on whether each position's top move was played.

    It is a two-parameter logistic regression (exact likelihood, L-BFGS).

    ``scores`` are out-of-fold scores already divided by the temperature. With too few
    positions, or when the top move was always or never played, the map is the identity.
    """
    if table.positions < 20:
        return TopLabelCalibration()
    probs = softmax_by_position(scores, table.starts)
    heads, sizes = table.starts[:-1], np.diff(table.starts)
    top = np.maximum.reduceat(probs, heads)
    is_top = probs == np.repeat(top, sizes)
    hit = is_top[table.played] & (sizes > 1)
    usable = (sizes > 1) & (top < 1 - _EDGE)
    if usable.sum() < 20 or hit[usable].all() or not hit[usable].any():
        return TopLabelCalibration()
    odds = np.log(top[usable]) - np.log(1 - top[usable])
    played = hit[usable].astype(np.float64)

    def loss(weights: np.ndarray) -> tuple[float, np.ndarray]:
        z = weights[0] * odds + weights[1]
        error = expit(z) - played
        return float(np.mean(np.logaddexp(0.0, z) - played * z)), np.array([np.mean(error * odds), np.mean(error)])

    with one_thread_optimiser():
        slope, offset = minimize(loss, np.array([1.0, 0.0]), jac=True, method="L-BFGS-B").x
    if not slope > 0:  # a belief that falls as the evidence rises: no map rather than a reversal
        return TopLabelCalibration()
    return TopLabelCalibration(float(slope), float(offset))
