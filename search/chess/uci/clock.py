"""Time management: how long the engine thinks for a ``go`` command.

The budget is a function of the ``go`` parameters and the side to move only: ``movetime``
as sent; with clocks, a share of the mover's clock (a fortieth, or the moves to go) plus
most of the increment, less a safety margin; fixed bounds for a ``go`` whose clock words
leave out the mover's clock or that names no limit at all. Here too is whether a search
sends its ``bestmove`` only after ``stop``. The engine asks these functions and keeps no
clock state of its own beyond a pondering ``go``.
"""

from __future__ import annotations

import chess

from search.chess.uci.protocol import GoCommand

FALLBACK_SECONDS = 1.0
"""Thinking time for a ``go`` whose clock words leave out the side to move's clock."""
UNTIMED_SECONDS = 10.0
"""Thinking time bound of a ``go`` that names no time (not ``infinite`` or ``ponder``)."""
_SAFETY = 0.030  # seconds kept back for unwinding, printing and pipe latency


def clock_problem(go: GoCommand, turn: chess.Color) -> str | None:
    """Why ``go`` cannot be timed for the side ``turn`` to move, or ``None``."""
    if go.infinite or go.movetime is not None or not go.has_clock:
        return None
    if (go.clock.wtime if turn == chess.WHITE else go.clock.btime) is None:
        missing = "wtime" if turn == chess.WHITE else "btime"
        return f"go without {missing} for the side to move; searching {FALLBACK_SECONDS:g} s"
    return None


def allotted_time(go: GoCommand, turn: chess.Color) -> float | None:
    """Seconds from ``go`` to ``bestmove`` the engine means to take; ``None``: no limit.

    ``movetime`` as sent; with a clock, a share of the mover's remaining time (a
    fortieth, or the moves to go) plus most of the increment, never more than the clock
    minus a safety margin; with clock words but no clock for the mover,
    :data:`FALLBACK_SECONDS`; with no time, depth or node word (a bare ``go``, a
    ``go mate``), :data:`UNTIMED_SECONDS`. Pondering, ``infinite`` and a depth or node
    limit alone have no time limit.
    """
    if go.infinite or go.ponder:
        return None
    if go.movetime is not None:
        return go.movetime / 1000
    remaining = go.clock.wtime if turn == chess.WHITE else go.clock.btime
    if remaining is None:
        if go.has_clock:
            return FALLBACK_SECONDS
        return UNTIMED_SECONDS if go.depth is None and go.nodes is None else None
    increment = (go.clock.winc if turn == chess.WHITE else go.clock.binc) / 1000
    clock = remaining / 1000
    share = clock / (go.clock.movestogo or 40) + 0.8 * increment
    return max(0.0, min(share, clock - _SAFETY))


def time_budget(go: GoCommand, turn: chess.Color) -> float | None:
    """Seconds the search itself may run for ``go``: :func:`allotted_time` less a
    safety margin for unwinding and answering; ``None`` for no time limit."""
    allotted = allotted_time(go, turn)
    return None if allotted is None else max(0.0, allotted - _SAFETY)


def _waits_for_stop(go: GoCommand, seconds: float | None) -> bool:
    """Whether a search for ``go`` sends ``bestmove`` only after ``stop``."""
    return go.infinite or (seconds is None and go.depth is None and go.nodes is None and go.mate is None)
