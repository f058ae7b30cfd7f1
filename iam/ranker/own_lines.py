"""His lines weighed as his: where his games have been, his own choices outweigh the model.

A model of a player learns how he weighs evidence over all his positions; in the opening,
where he has been to the same position in several games, his games say directly what he
plays there. The ranker's beliefs at such a position are the mean of a Dirichlet posterior:
his choices counted in games, plus the model's beliefs as a prior worth
:data:`OWN_LINES_STRENGTH` games,

    belief(move) = (games(move) + strength * model(move)) / (games + strength),

so the model decides where he has been once or twice and fades as his games accumulate.
A sideline he chose in at least :data:`SIDELINE_SHARE` of his games at a position is never
believed below :data:`SIDELINE_FLOOR` of that share: preparation is about exactly these lines.
The strength was chosen on development games (``python scripts/choose_own_lines.py``,
``docs/results/ranker.md``, "His own lines").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import chess
import numpy as np

__all__ = ["OWN_LINES_STRENGTH", "SIDELINE_SHARE", "SIDELINE_FLOOR", "weigh_own_lines", "own_counts"]

OWN_LINES_STRENGTH = 16.0
"""Games the model's beliefs count for against his own choices at a position (see the module)."""
SIDELINE_SHARE = 0.10
"""A move he chose in at least this share of his games at a position is one of his lines."""
SIDELINE_FLOOR = 0.5
"""His lines are believed at least this fraction of their share of his games."""


def own_counts(moves: Sequence[chess.Move], choices: Mapping[str, int]) -> np.ndarray:
    """Games in which he chose each of ``moves`` (UCI move -> games in ``choices``)."""
    return np.array([choices.get(move.uci(), 0) for move in moves], dtype=np.float64)


def weigh_own_lines(probs: np.ndarray, games: np.ndarray, strength: float = OWN_LINES_STRENGTH) -> np.ndarray:
    """The model's beliefs ``probs`` over a position's moves weighed with his ``games`` per move.

    ``strength`` is the model's worth in games (``inf``: the model alone). The result sums to one;
    with no games it is ``probs`` unchanged.
    """
    if strength < 0:
        raise ValueError(f"strength must be at least 0, got {strength}")
    total = float(games.sum())
    if total <= 0.0 or np.isinf(strength):
        return probs
    blended = (games + strength * probs) / (total + strength)
    share = games / total
    floor = np.where(share >= SIDELINE_SHARE, SIDELINE_FLOOR * share, 0.0)
    # Lift his lines to their floor and take the difference from the other moves in proportion;
    # a move scaled down below its own floor is lifted in the next pass (the floors sum to at
    # most SIDELINE_FLOOR, so some move always keeps more than its floor).
    lifted = np.zeros(len(blended), dtype=bool)
    out = blended
    while (below := (out < floor) & ~lifted).any():
        lifted |= below
        room = 1.0 - floor[lifted].sum()
        out = np.where(lifted, floor, blended * (room / blended[~lifted].sum()))
    return out
