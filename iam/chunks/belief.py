"""Belief: a number in [0, 1] for each candidate move, meant as the chance it is played.

Two beliefs share the candidate rows of :mod:`iam.chunks.features`:

* :class:`RuleWeights` is source note 001's heuristic move selection. A chunk's belief
  starts at its frequency (share of training games it occurs in) and named rules
  add to it: large patterns, major pieces, temporal similarity, winning patterns;
  a pattern the player just dissolved is eliminated. A move's belief combines all
  chunks proposing it (noisy-OR) and the rote memory's share; a position's beliefs
  are scaled down if they sum past 1.
* :class:`LearnedBelief` goes beyond IAM: a logistic regression (scikit-learn)
  weighs every feature, its outputs are normalised per position, and an isotonic
  regression fitted on out-of-fold predictions calibrates them, so that a belief
  of 0.4 is right about 40% of the time on the training games.

Both are plain numbers at prediction time (no scikit-learn objects are kept), so
a model file is JSON and safe to load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import cast

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from iam.chunks.features import FEATURES, RULE_FEATURES

__all__ = ["RuleWeights", "LearnedBelief", "rule_beliefs", "normalise", "learn_belief"]

_SIZE_SPAN = 6.0  # a chunk has 2..8 pieces in practice: size bonus is (size - 2) / 6
MAX_WEIGHT = 1e6
"""Largest magnitude of a weight, mean or scale read from a model file (fitted ones are below 10)."""
_MIN_SCALE = 1e-200
"""Smallest belief scale read from a model file: standardised values stay far from overflowing."""


@dataclass(frozen=True)
class RuleWeights:
    """Weights of source note 001's belief heuristics (added to a chunk's frequency)."""

    large_patterns: float = 0.15
    """Added in full for an eight-piece chunk, pro rata from two pieces upwards."""
    major_pieces: float = 0.05
    """Added when the chunk holds a rook or a queen."""
    temporal_similarity: float = 0.10
    """Times the share of the chunk's occurrences at this stage of the game (move bin)."""
    winning_patterns: float = 0.05
    """Times (won - lost) / games of the games the chunk occurred in."""
    eliminate_dissolved: bool = True
    """A pattern the player's previous move broke gets belief 0."""

    def contributions(self, quantities: np.ndarray) -> dict[str, np.ndarray]:
        """Each rule's share of a chunk's belief, for ``quantities`` in RULE_FEATURES order."""
        q = {name: quantities[:, i] for i, name in enumerate(RULE_FEATURES)}
        return {
            "frequency": q["frequency"],
            "large_patterns": self.large_patterns * np.clip((q["size"] - 2.0) / _SIZE_SPAN, 0.0, 1.0),
            "major_pieces": self.major_pieces * q["major"],
            "temporal_similarity": self.temporal_similarity * q["temporal"],
            "winning_patterns": self.winning_patterns * q["winning"],
        }

    def chunk_belief(self, quantities: np.ndarray) -> np.ndarray:
        """The belief of each proposing chunk, in [0, 1]."""
        belief = _unit(cast(np.ndarray, sum(self.contributions(quantities).values())))
        if self.eliminate_dissolved:
            belief = np.where(quantities[:, RULE_FEATURES.index("dissolved")] > 0, 0.0, belief)
        return belief

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RuleWeights:
        """Weights from :meth:`to_dict`'s shape (ValueError for unknown names, wrong types, NaN)."""
        if not isinstance(data, dict):
            raise ValueError("rule weights must be an object")
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown rule weights {sorted(unknown)}")
        for f in fields(cls):
            if f.name not in data:
                continue
            if isinstance(f.default, bool):
                if not isinstance(data[f.name], bool):
                    raise ValueError(f"rule weight {f.name} must be true or false, not {data[f.name]!r}")
            else:
                bounded_number(data[f.name], f"rule weight {f.name}")
        return cls(**data)


def finite_number(value, what: str) -> float:
    """``value`` as a float if it is a finite int or float (not a bool or text); ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{what} must be a number, not {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{what} must be finite, not {value!r}")
    return float(value)


def bounded_number(value, what: str) -> float:
    """:func:`finite_number` within +-:data:`MAX_WEIGHT` (ValueError otherwise)."""
    number = finite_number(value, what)
    if abs(number) > MAX_WEIGHT:
        raise ValueError(f"{what} is {value!r}, beyond the accepted +-{MAX_WEIGHT:g}")
    return number


def _finite_list(values, what: str) -> np.ndarray:
    """A list of numbers within +-:data:`MAX_WEIGHT` as a float64 array (ValueError otherwise)."""
    if not isinstance(values, list):
        raise ValueError(f"{what} must be a list of numbers")
    return np.array([bounded_number(value, what) for value in values], dtype=np.float64)


def _unit(values: np.ndarray) -> np.ndarray:
    """``values`` clipped to [0, 1], NaN as 0 (whatever the weights, a belief stays a probability)."""
    return np.clip(np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0), 0.0, 1.0)


def normalise(beliefs: np.ndarray) -> np.ndarray:
    """One position's beliefs in [0, 1], scaled down so that they sum to at most 1."""
    beliefs = _unit(beliefs)
    total = float(beliefs.sum())
    return beliefs / total if total > 1.0 else beliefs


def rule_beliefs(rows: np.ndarray) -> np.ndarray:
    """Source note 001's belief for one position's candidate rows: chunks and rote memory combined."""
    chunk = rows[:, FEATURES.index("iam_score")]
    rote = rows[:, FEATURES.index("rote_share")]
    return normalise(1.0 - (1.0 - chunk) * (1.0 - rote))


@dataclass(frozen=True)
class LearnedBelief:
    """A fitted logistic regression on candidate rows plus an isotonic calibration map."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    calibration_x: np.ndarray
    calibration_y: np.ndarray

    def raw(self, rows: np.ndarray) -> np.ndarray:
        """Uncalibrated probability that each candidate is the move played."""
        with np.errstate(all="ignore"):  # extreme (but finite) weights: NaN and inf are clipped later
            z = (rows - self.mean) / self.scale @ self.coef + self.intercept
            return 1.0 / (1.0 + np.exp(-z))

    def beliefs(self, rows: np.ndarray) -> np.ndarray:
        """Calibrated beliefs of one position's candidates (sum at most 1)."""
        if len(rows) == 0:
            return np.zeros(0)
        calibrated = np.interp(normalise(self.raw(rows)), self.calibration_x, self.calibration_y)
        return normalise(calibrated)

    def contributions(self, row: np.ndarray) -> dict[str, float]:
        """How much each feature moved one candidate's log-odds (standardised value x weight)."""
        terms = (row - self.mean) / self.scale * self.coef
        return {name: float(value) for name, value in zip(self.features, terms)}

    def to_dict(self) -> dict:
        return {
            "features": list(self.features),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": float(self.intercept),
            "calibration": {"x": self.calibration_x.tolist(), "y": self.calibration_y.tolist()},
        }

    @classmethod
    def from_dict(cls, data: dict) -> LearnedBelief:
        """A belief from :meth:`to_dict`'s shape (ValueError for any wrong shape, type or non-finite number)."""
        features = tuple(data["features"])
        if features != FEATURES:
            raise ValueError(f"belief features {list(features)} differ from this toolkit's {list(FEATURES)}")
        arrays = [_finite_list(data[key], f"belief {key}") for key in ("mean", "scale", "coef")]
        if any(array.shape != (len(features),) for array in arrays):
            raise ValueError("belief weights do not have one value per feature")
        if np.any(arrays[1] < _MIN_SCALE):
            raise ValueError(f"belief scales must be at least {_MIN_SCALE:g} (a smaller one overflows the scores)")
        intercept = bounded_number(data["intercept"], "belief intercept")
        x = _finite_list(data["calibration"]["x"], "belief calibration x")
        y = _finite_list(data["calibration"]["y"], "belief calibration y")
        if x.shape != y.shape or len(x) < 2 or np.any(np.diff(x) < 0):
            raise ValueError("belief calibration must be two equal, increasing lists of at least 2 values")
        if np.any((y < 0) | (y > 1)):
            raise ValueError("belief calibration values must lie in [0, 1]")
        mean, scale, coef = arrays
        return cls(features, mean, scale, coef, intercept, x, y)


def learn_belief(
    rows: np.ndarray,
    played: np.ndarray,
    position: np.ndarray,
    game: np.ndarray,
    *,
    random_state: int = 0,
    folds: int = 5,
) -> LearnedBelief:
    """Fit the learned belief on candidate rows of training positions.

    ``played`` marks the candidate that was the move played; ``position`` and
    ``game`` group the rows. Calibration is fitted on out-of-fold predictions
    (folds by game), the final weights on all rows. Raises ValueError when the
    rows cannot support a fit (no or only played candidates).
    """
    # Small problems: threaded BLAS only adds contention (worst on a busy machine with few cores).
    with threadpool_limits(limits=1):
        return _learn_belief(rows, played, position, game, random_state=random_state, folds=folds)


def _learn_belief(
    rows: np.ndarray, played: np.ndarray, position: np.ndarray, game: np.ndarray, *, random_state: int, folds: int
) -> LearnedBelief:
    played = np.asarray(played, dtype=bool)
    if played.all() or not played.any():
        raise ValueError("the training positions give no contrast between played and other moves")

    def fit(x: np.ndarray, y: np.ndarray) -> tuple[StandardScaler, LogisticRegression]:
        scaler = StandardScaler().fit(x)
        regression = LogisticRegression(C=1.0, solver="newton-cholesky", max_iter=200, random_state=random_state)
        return scaler, regression.fit(scaler.transform(x), y)

    out_of_fold = np.zeros(len(rows))
    splits = min(folds, len(np.unique(game)))
    if splits >= 2:
        for train, test in GroupKFold(n_splits=splits).split(rows, played, game):
            if played[train].all() or not played[train].any():
                continue
            scaler, regression = fit(rows[train], played[train])
            out_of_fold[test] = regression.predict_proba(scaler.transform(rows[test]))[:, 1]
    scaler, regression = fit(rows, played)
    if splits < 2:
        out_of_fold = regression.predict_proba(scaler.transform(rows))[:, 1]

    normalised = _normalise_groups(out_of_fold, position)
    isotonic = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(normalised, played)
    x, y = isotonic.X_thresholds_, isotonic.y_thresholds_
    if len(x) < 2:  # a constant map still needs two points for interpolation
        x, y = np.array([0.0, 1.0]), np.array([float(y[0])] * 2)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    return LearnedBelief(
        features=FEATURES,
        mean=scaler.mean_.astype(np.float64),
        scale=scale.astype(np.float64),
        coef=regression.coef_[0].astype(np.float64),
        intercept=float(regression.intercept_[0]),
        calibration_x=np.asarray(x, dtype=np.float64),
        calibration_y=np.asarray(y, dtype=np.float64),
    )


def _normalise_groups(values: np.ndarray, group: Sequence[int] | np.ndarray) -> np.ndarray:
    """Per group, scale values down so that they sum to at most 1."""
    group = np.asarray(group)
    _, inverse = np.unique(group, return_inverse=True)
    totals = np.bincount(inverse, weights=values)
    return values / np.maximum(totals[inverse], 1.0)
