"""The conditional logit: a softmax over each position's legal moves.

A move's score is ``x @ w``; its belief is the softmax of the scores over the legal
moves of its position, so the beliefs of a position sum to one and every legal
move gets one (coverage 100%). The weights maximise the likelihood of the moves
played, with an L2 penalty pulling them towards prior weights (the population's):
with few games of a player his model stays near the population, with many it
follows him. The fit is one smooth convex problem, solved with scipy's L-BFGS.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from threadpoolctl import ThreadpoolController

__all__ = [
    "MoveTable",
    "fit_conditional_logit",
    "feature_scale",
    "softmax_by_position",
    "position_log_likelihood",
    "take_positions",
    "one_thread_optimiser",
    "position_rows",
    "fit_temperature",
]


@dataclass(frozen=True)
class MoveTable:
    """Feature rows of many positions' legal moves, grouped by position.

    ``features[starts[i]:starts[i + 1]]`` are the moves of position ``i``;
    ``played[i]`` is the row (within the whole table) of the move played there.
    """

    features: np.ndarray
    starts: np.ndarray
    played: np.ndarray

    def __post_init__(self) -> None:
        if self.features.ndim != 2 or len(self.starts) != len(self.played) + 1:
            raise ValueError("a move table needs a 2-D feature matrix and one start per position plus the end")

    @property
    def positions(self) -> int:
        return len(self.played)

    @property
    def group(self) -> np.ndarray:
        """Position number of every row."""
        return np.repeat(np.arange(self.positions), np.diff(self.starts))


def softmax_by_position(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of ``scores`` within each position's rows (``starts`` as in :class:`MoveTable`)."""
    if len(scores) == 0:
        return scores.astype(np.float64)
    heads = starts[:-1]
    sizes = np.diff(starts)
    peak = np.repeat(np.maximum.reduceat(scores, heads), sizes)
    exp = np.exp(scores - peak)
    return exp / np.repeat(np.add.reduceat(exp, heads), sizes)


def position_log_likelihood(table: MoveTable, weights: np.ndarray, offset: np.ndarray | float = 0.0) -> np.ndarray:
    """Log-probability of the move played in each position (scores ``features @ weights + offset``)."""
    scores = table.features @ weights + offset
    heads = table.starts[:-1]
    sizes = np.diff(table.starts)
    peak = np.maximum.reduceat(scores, heads)
    log_norm = peak + np.log(np.add.reduceat(np.exp(scores - np.repeat(peak, sizes)), heads))
    return scores[table.played] - log_norm


def feature_scale(table: MoveTable) -> np.ndarray:
    """Each feature's spread over the table's rows (1 where it does not vary): the penalty's units."""
    if len(table.features) == 0:
        return np.ones(table.features.shape[1])
    spread = table.features.std(axis=0)
    return np.where(spread > 1e-9, spread, 1.0)


def fit_conditional_logit(
    table: MoveTable,
    *,
    prior: np.ndarray | None = None,
    penalty: float = 1.0,
    scale: np.ndarray | None = None,
    offset: np.ndarray | float = 0.0,
    max_iter: int = 500,
    targets: np.ndarray | None = None,
) -> np.ndarray:
    """Weights maximising the likelihood of the played moves, L2-penalised towards ``prior``.

    The objective is ``-sum(log p(played)) + penalty / 2 * |(w - prior) * scale|^2``:
    ``scale`` (a typical size of each feature, default 1) makes the penalty fair to
    features measured in different units. ``prior`` defaults to zero weights. A move's
    score is ``x @ w + offset``: ``offset`` (per row) is a fixed part of it, such as the
    population's residual trees (:mod:`iam.priors.trees`).

    ``targets`` (one per row, summing to 1 over each position's rows) replaces the
    played moves by a distribution over each position's moves: the objective's
    likelihood term becomes the cross-entropy ``-sum(targets * log p)``, as when a
    cheaper model is fitted to a richer model's beliefs (distillation).
    """
    k = table.features.shape[1]
    prior = np.zeros(k) if prior is None else np.asarray(prior, dtype=np.float64)
    scale = np.ones(k) if scale is None else np.asarray(scale, dtype=np.float64)
    if table.positions == 0:
        return prior.copy()
    weight_of_penalty = penalty * scale**2
    if targets is None:
        onehot = np.zeros(table.features.shape[0])
        onehot[table.played] = 1.0
    else:
        onehot = np.asarray(targets, dtype=np.float64)
        if onehot.shape != (table.features.shape[0],) or not np.all(np.isfinite(onehot)) or np.any(onehot < 0):
            raise ValueError("targets need one finite non-negative value per row")
    observed = table.features.T @ onehot
    heads, sizes = table.starts[:-1], np.diff(table.starts)

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        # the scores, their softmax and its normaliser once per step: the values of softmax_by_position,
        # position_log_likelihood and _log_softmax_by_position, computed as they compute them
        scores = table.features @ w + offset
        peak = np.maximum.reduceat(scores, heads)
        exp = np.exp(scores - np.repeat(peak, sizes))
        total = np.add.reduceat(exp, heads)
        probs = exp / np.repeat(total, sizes)
        log_norm = peak + np.log(total)
        if targets is None:
            loglik = (scores[table.played] - log_norm).sum()
        else:
            loglik = float(onehot @ (scores - np.repeat(log_norm, sizes)))
        expected = table.features.T @ probs
        gap = w - prior
        value = -loglik + 0.5 * float(np.sum(weight_of_penalty * gap**2))
        gradient = -(observed - expected) + weight_of_penalty * gap
        return value, gradient

    with one_thread_optimiser():
        result = minimize(objective, prior.copy(), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    return result.x


@cache
def _optimiser_blas() -> ThreadpoolController | None:
    """The BLAS library scipy's wheel brings apart from numpy's (None when scipy has none of its own)."""
    controller = ThreadpoolController()
    found = [lib.filepath for lib in controller.lib_controllers if Path(lib.filepath).parent.name == "scipy.libs"]
    return controller.select(filepath=found) if found else None


def one_thread_optimiser() -> AbstractContextManager:
    """Run scipy's L-BFGS-B steps (its own BLAS library) on one thread, numpy's products as they are.

    The optimiser's steps are vectors of one value per weight: a second BLAS thread only waits for work,
    spinning on a core the other processes need, and costs several times the CPU on a busy machine with few
    cores. numpy's library, which computes the objective, is left alone, so every figure is unchanged; where
    scipy has no BLAS library of its own (it shares numpy's), nothing is limited.
    """
    blas = _optimiser_blas()
    return nullcontext() if blas is None else blas.limit(limits=1)


def _log_softmax_by_position(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Log of :func:`softmax_by_position`, computed without underflow."""
    heads, sizes = starts[:-1], np.diff(starts)
    peak = np.maximum.reduceat(scores, heads)
    norm = peak + np.log(np.add.reduceat(np.exp(scores - np.repeat(peak, sizes)), heads))
    return scores - np.repeat(norm, sizes)


def take_positions(table: MoveTable, chosen: np.ndarray) -> MoveTable:
    """The sub-table of the positions whose numbers are ``chosen`` (sorted), rows renumbered."""
    sizes = np.diff(table.starts)[chosen]
    rows = position_rows(table, chosen)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    played = starts[:-1] + (table.played[chosen] - table.starts[chosen])
    return MoveTable(table.features[rows], starts, played)


def position_rows(table: MoveTable, chosen: np.ndarray) -> np.ndarray:
    """The rows (within the whole table) of the positions whose numbers are ``chosen``, in that order."""
    if not len(chosen):
        return np.zeros(0, np.int64)
    return np.concatenate([np.arange(table.starts[i], table.starts[i + 1]) for i in chosen])


def fit_temperature(table: MoveTable, scores: np.ndarray) -> float:
    """The temperature T minimising the log loss of ``softmax(scores / T)`` per position.

    Fitted on scores a model gave to positions it was not fitted on, it corrects the
    model's over- (T > 1) or under-confidence (T < 1) without changing any ranking.
    """
    if table.positions == 0:
        return 1.0
    heads, sizes = table.starts[:-1], np.diff(table.starts)

    def loss(log_t: float) -> float:
        scaled = scores / np.exp(log_t)
        peak = np.maximum.reduceat(scaled, heads)
        norm = peak + np.log(np.add.reduceat(np.exp(scaled - np.repeat(peak, sizes)), heads))
        return float(-(scaled[table.played] - norm).mean())

    found = minimize_scalar(loss, bounds=(-2.0, 2.0), method="bounded")
    return float(np.exp(found.x))
