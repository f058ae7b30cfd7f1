"""How deep a search's tree really reaches: a probe that watches the search, never steers it.

An iterative-deepening search reports the depth of its last completed iteration, its
*nominal* depth. A guided search extends some moves and reduces others, so its tree
no longer ends at that depth: some lines stop earlier, others go further. Counting
plies honestly needs two more figures per completed iteration, which a
:class:`DepthProbe` records while the search runs:

* the *horizon*: the plies from the root at which the iteration handed positions to
  the evaluation (or to quiescence), as counts per ply; a plain search's horizon is
  its nominal depth everywhere;
* the *line depth*: given a line of play from the root (say, the moves the game
  actually continued with), the ply at which the search would hand that line to the
  evaluation: at the deepest position of the line the iteration entered, its ply
  plus the plies the search still had to go there. A plain search's line depth is its
  nominal depth; a guided search's is that plus every extension and minus every
  reduction the line received, so it is deeper along a line the player chose when
  the model expected that line. (Also recorded: how many of the line's plies the
  iteration entered at all, which cutoffs and move order limit.)

The probe recognises the line's positions by their transposition keys at the matching
ply, so a transposition into the line counts as the line. The search calls
:meth:`DepthProbe.begin` once per iteration and :meth:`DepthProbe.visit` at every
node of the main search (not quiescence); with no probe, nothing is recorded and
nothing changes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from search.game import Action, Cursor, Game, State
from search.result import MAX_PLY

__all__ = ["DepthProbe", "IterationShape"]

_PLIES = MAX_PLY + 1  # every ply a search path can reach, the root included


@dataclass(frozen=True)
class IterationShape:
    """What one completed iteration's tree looked like."""

    depth: float
    """The iteration's nominal depth (``math.inf`` for a search to the end of the game)."""
    horizon: np.ndarray = field(repr=False)
    """``horizon[p]``: nodes at ply ``p`` handed to the evaluation or quiescence."""
    line_entered: int
    """Plies of the watched line the iteration entered (0 without a line)."""
    line_depth: float
    """Ply at which the iteration would hand the watched line to the evaluation."""

    @property
    def horizon_nodes(self) -> int:
        return int(self.horizon.sum())

    @property
    def horizon_mean(self) -> float:
        """Mean ply of the horizon nodes (NaN if the iteration had none)."""
        total = self.horizon.sum()
        return float(np.arange(len(self.horizon)) @ self.horizon / total) if total else float("nan")

    @property
    def horizon_range(self) -> tuple[int, int]:
        """Shallowest and deepest horizon ply (``(0, 0)`` if there was none)."""
        plies = np.flatnonzero(self.horizon)
        return (int(plies[0]), int(plies[-1])) if len(plies) else (0, 0)


class DepthProbe:
    """Records the horizon and the reach along ``line`` of every iteration of a search.

    ``line`` is a sequence of actions from ``state`` (the search's root); it is
    followed while its actions stay legal and the game goes on. Use one probe per
    search: :meth:`shape` answers for the iteration of a given nominal depth.
    """

    def __init__(self, game: Game, state: State, line: Sequence[Action] = ()) -> None:
        cursor = game.cursor(state)
        keys: list[Hashable] = [cursor.key()]
        for action in line:
            if cursor.is_terminal() or action not in cursor.actions():
                break
            cursor.push(action)
            keys.append(cursor.key())
        self._line_keys = keys
        self.line_length = len(keys) - 1
        """Plies of ``line`` that could be followed from the root."""
        self._shapes: dict[float, IterationShape] = {}
        self._depth: float = 0
        self._horizon = np.zeros(_PLIES, dtype=np.int64)
        self._entered = 0

    def begin(self, depth: float) -> None:
        """A new iteration of nominal ``depth`` starts (the previous one, if any, is kept)."""
        self._depth = depth
        self._horizon = np.zeros(_PLIES, dtype=np.int64)
        self._entered = 0
        self._shapes[depth] = IterationShape(depth, self._horizon, 0, depth)

    def visit(self, cursor: Cursor, ply: int, depth: float) -> None:
        """The main search entered ``cursor``'s position at ``ply`` with ``depth`` plies to go."""
        if depth <= 0:
            self._horizon[ply] += 1
        if 0 < ply <= self.line_length and ply >= self._entered and cursor.key() == self._line_keys[ply]:
            line_depth = ply + max(depth, 0)
            current = self._shapes[self._depth]
            if ply == self._entered:
                line_depth = max(line_depth, current.line_depth)
            self._entered = ply
            self._shapes[self._depth] = IterationShape(self._depth, self._horizon, ply, line_depth)

    def shape(self, depth: int) -> IterationShape | None:
        """The shape of the iteration of nominal ``depth`` (``None`` if it never started)."""
        return self._shapes.get(depth)
