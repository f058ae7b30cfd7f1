"""The player's habits as ranker features: the source notes' chunks and his opening memory.

The IAM model of the player (:class:`~iam.chunks.model.OpponentModel`) proposes moves that
complete his stored chunks or follow his remembered openings, with a belief. Its
belief of each legal move, whether it is IAM's first choice, and the share of the
move in his opening memory here are three columns; a move IAM does not propose
gets zeros. When the ranker is fitted, these columns come from IAM models fitted
on the *other* folds of the training games (out-of-fold), so a training position
never sees its own move echoed back by a memory that learned it.
"""

from __future__ import annotations

import numpy as np

from iam.chunks.model import OpponentModel
from iam.priors.positions import PlayerPosition

__all__ = ["HABIT_FEATURES", "habit_features"]

_LOG_FLOOR = 0.01

HABIT_FEATURES: tuple[str, ...] = ("iam_belief", "iam_log_belief", "iam_top", "rote_share", "rote_top")
"""Columns of :func:`habit_features`."""


def habit_features(model: OpponentModel, position: PlayerPosition) -> dict[str, np.ndarray]:
    """Column name -> value per legal move of ``position``, from one IAM model."""
    beliefs = model.predict_proba(position.board)
    belief = np.array([beliefs.get(move, 0.0) for move in position.moves], dtype=np.float64)
    top = next(iter(beliefs), None)
    entry = model.rote_.lookup(position.board)
    shares = entry.shares() if entry is not None else {}
    share = np.array([shares.get(move.uci(), 0.0) for move in position.moves], dtype=np.float64)
    favourite = max(shares, key=lambda uci: shares[uci]) if shares else None
    return {
        "iam_belief": belief,
        "iam_log_belief": np.log(belief + _LOG_FLOOR) - np.log(_LOG_FLOOR),
        "iam_top": np.array([move == top for move in position.moves], dtype=np.float64),
        "rote_share": share,
        "rote_top": np.array([move.uci() == favourite for move in position.moves], dtype=np.float64),
    }
