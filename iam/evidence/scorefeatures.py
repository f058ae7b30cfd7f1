"""Features from a search's scores of every legal move (our own search or a UCI engine).

Given a value per legal move (centipawns, from the mover's point of view), a move
is described by how much it loses against the best move, in raw and in bands (a
master rarely plays a move that drops a pawn, but among moves within 0.3 pawns of
the best he has his own taste), its rank, and two facts about the position that
only matter for the best move: how far ahead of the second best it is (an "only
move") and how many moves are about as good (a quiet position, where the score
says little). Scores are clipped at 10 pawns; mates count as 10 pawns.
"""

from __future__ import annotations

from collections.abc import Mapping

import chess
import numpy as np

__all__ = ["SCORE_FEATURES", "score_features", "CLIP_PAWNS"]

CLIP_PAWNS = 10.0
"""Scores and losses beyond this many pawns (mates included) are this many pawns."""

SCORE_FEATURES: tuple[str, ...] = (
    "best",
    "loss",
    "log_loss",
    "loss_under_30cp",
    "loss_under_100cp",
    "loss_over_300cp",
    "rank",
    "best_gap",
    "near_best_share",
)
"""Columns of :func:`score_features` (each prefixed by its source, e.g. ``search_loss``)."""


def score_features(
    scores: Mapping[chess.Move, float], moves: tuple[chess.Move, ...], prefix: str
) -> dict[str, np.ndarray]:
    """Column name (``prefix + "_" + feature``) -> value per move of ``moves``.

    ``scores`` holds a value per move (centipawns, mover's view). A search that
    declares the game over (a draw by repetition or the fifty-move rule the player
    may still play on from) scores no move: every move then counts as equal, 0.
    """
    missing = min(scores.values(), default=0)
    raw = np.array([scores.get(move, missing) for move in moves], dtype=np.float64)
    values = np.clip(raw / 100.0, -CLIP_PAWNS, CLIP_PAWNS)
    if len(values) == 0:
        return {f"{prefix}_{name}": np.zeros(0) for name in SCORE_FEATURES}
    best = values.max()
    loss = best - values
    is_best = loss <= 1e-9
    ordered = np.sort(values)[::-1]
    gap = ordered[0] - ordered[1] if len(ordered) > 1 else CLIP_PAWNS
    near = loss <= 0.5
    rank = (values[None, :] > values[:, None]).sum(axis=1)  # moves strictly better than this one
    columns = {
        "best": is_best.astype(np.float64),
        "loss": loss,
        "log_loss": np.log1p(loss),
        "loss_under_30cp": (loss < 0.3).astype(np.float64),
        "loss_under_100cp": (loss < 1.0).astype(np.float64),
        "loss_over_300cp": (loss > 3.0).astype(np.float64),
        "rank": np.log1p(rank),
        "best_gap": is_best * min(gap, 3.0),
        "near_best_share": near / near.sum(),
    }
    return {f"{prefix}_{name}": column for name, column in columns.items()}
