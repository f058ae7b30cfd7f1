"""The fitted state of a move ranker: one record of what it learned.

:class:`~iam.ranker.estimator.MoveRanker` learns a :class:`RankerState`; its fitted attributes
ending in ``_`` read from it (:class:`~iam.models.base.Fitted`), as the IAM model's read its
:class:`~iam.chunks.fitted.FittedState`. :mod:`iam.ranker.persistence` writes the record to a
model file and reads it back. This module does not know the estimator, so the estimator can
depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from iam.chunks.model import OpponentModel
from iam.games.digest import TrainingGames
from iam.priors.logit import MoveTable
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.population import PopulationBook
from iam.priors.trees import ResidualTrees
from iam.ranker.calibration import TopLabelCalibration
from search.chess.imitation import BLUNDER_LOSS
from search.chess.replies import ReplyPolicy

__all__ = ["RankerState", "RankerTraining", "RankerScoring", "RankerMemories", "blunder_rate"]


@dataclass(frozen=True)
class RankerTraining:
    """What the ranker learned from: its games and positions, and its log-loss on those positions."""

    n_games: int
    n_positions: int
    training_log_loss: float
    """Mean negative log-likelihood of the played moves (NaN without a training position)."""
    training_games: TrainingGames | None = None
    """Which games it was fitted on (None in a file that does not record them)."""
    blunder_rate: float | None = None
    """His share of training moves losing two pawns or more (:data:`~search.chess.imitation.BLUNDER_LOSS`) by
    the ranker's search (:func:`blunder_rate`), or by the imitation's deeper check of a move when
    ``blunder_check_depth`` is set; None without the search family, or in a file that does not record it."""
    blunder_check_depth: int | None = None
    """The depth of the :func:`~search.chess.imitation.deep_check` that measured ``blunder_rate`` on a sample of
    his training positions (None: the ranker's own search scores measured it, as older files record)."""


@dataclass(frozen=True)
class RankerScoring:
    """How the ranker scores a move: its features and their weights, the population's trees, the calibration."""

    families: tuple[str, ...]
    feature_names: tuple[str, ...]
    coef: np.ndarray
    """Weight per feature, divided by the temperature."""
    prior_weights: np.ndarray
    """The weights the fit was pulled towards (zeros without a prior)."""
    scale: np.ndarray
    """Each feature's spread, the unit of the pull."""
    temperature: float
    top_calibration: TopLabelCalibration
    trees: ResidualTrees | None = None
    """The population's residual trees added to the linear score (None: a linear score only)."""


@dataclass(frozen=True)
class RankerMemories:
    """What the ranker remembers of players, and the networks it read (by their records)."""

    book: PopulationBook
    """The population's opening book, every master of the player's name left out."""
    population_patterns: MovePatterns
    own_patterns: PatternCounts | None
    """The player's own move patterns (with the habits family)."""
    iam: OpponentModel | None
    """His IAM model (with the habits family)."""
    value_net: str | None
    """The fingerprint of the value network read (with the value family)."""
    policy_net: dict | None
    """Whom the policy network read left out, and its fingerprint (with the policy family)."""
    reply_policy: ReplyPolicy | None
    """The cheap reply policy a search reads at his interior nodes (None: none fitted)."""


@dataclass(frozen=True)
class RankerState:
    """Everything a fitted move ranker predicts from, and how it was trained."""

    params: dict[str, Any]
    """The parameters as its model file records them (``player``: the name given to ``fit``, None if inferred)."""
    player: str
    training: RankerTraining
    scoring: RankerScoring
    memories: RankerMemories


def blunder_rate(table: MoveTable, columns: Sequence[str]) -> float | None:
    """The share of the table's played moves that lose :data:`~search.chess.imitation.BLUNDER_LOSS` centipawns or
    more against the best by the search's scores (its ``search_loss`` column, in pawns); None without that column
    or without a position."""
    if "search_loss" not in columns or not table.positions:
        return None
    loss = table.features[table.played, list(columns).index("search_loss")]
    return float(np.mean(loss >= BLUNDER_LOSS / 100.0 - 1e-9))
