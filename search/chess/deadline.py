"""Predictions under a deadline: a move predictor's call that cannot finish in time gives no beliefs.

A search that asks a model of the opponent for beliefs must keep to its clock, but a
prediction (a move ranker's scoring, say) can cost more than the move's whole budget.
:class:`BoundedPredictor` runs each call in a worker thread and waits for it until the
deadline; a call expected to overrun (by the last call's cost) is not started, and one
that does overrun is abandoned (a Python thread cannot be interrupted: it finishes in the
background, and the predictor is not asked again until it has). The guided, imitating and
exploiting engines share one :class:`PredictionClock` per engine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

import chess

from search.opponent.predictor import MovePredictor

__all__ = ["PredictionClock", "BoundedPredictor"]


class PredictionClock:
    """What an engine knows of its predictor's cost: the last call's seconds (``None``
    before the first), and a call left running past its deadline."""

    def __init__(self) -> None:
        self.cost: float | None = None
        self.running: threading.Thread | None = None

    def busy(self) -> bool:
        """Whether an abandoned call still runs (the predictor must not be asked meanwhile)."""
        return self.running is not None and self.running.is_alive()


class BoundedPredictor:
    """A move predictor whose calls end by ``deadline`` (``time.perf_counter`` seconds).

    A call gives no beliefs (and counts in :attr:`skipped`) when the deadline has passed,
    when the last call's cost is more than the time left, when an abandoned call still
    runs, or when it does not finish by the deadline. ``deadline`` ``None``: calls run
    unbounded, in the caller's thread.
    """

    def __init__(self, predictor: MovePredictor, deadline: float | None, clock: PredictionClock) -> None:
        self.predictor = predictor
        self.deadline = deadline
        self.clock = clock
        self.skipped = 0
        """Calls given no beliefs for lack of time."""

    def predict_proba(self, board: chess.Board) -> Mapping[chess.Move, float]:
        if self.deadline is None:
            return self._timed(board)
        left = self.deadline - time.perf_counter()
        if left <= 0 or (self.clock.cost or 0.0) > left or self.clock.busy():
            self.skipped += 1
            return {}
        box: list[Mapping[chess.Move, float] | BaseException] = []  # the call's beliefs or error
        own = board.copy()  # the caller's board moves on if this call is abandoned

        def work() -> None:
            try:
                box.append(self._timed(own))
            except BaseException as exc:  # handed to the caller below
                box.append(exc)

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(max(0.0, self.deadline - time.perf_counter()))
        if worker.is_alive():
            self.clock.running = worker
            self.skipped += 1
            return {}
        outcome = box[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _timed(self, board: chess.Board) -> Mapping[chess.Move, float]:
        started = time.perf_counter()
        try:
            return self.predictor.predict_proba(board)
        finally:
            self.clock.cost = time.perf_counter() - started
