"""The life of the engine's one search thread, and the one ``bestmove`` every ``go`` ends with.

A :class:`SearchSession` owns the search thread from its start to its answer: it starts
the thread of a ``go``, lets its answer out at once or on ``stop`` / ``ponderhit``
(``go infinite`` and ``go ponder`` answer only then), stops it (``stop``, ``quit``, a new
``go`` or any command that changes the engine's state), and sends its ``bestmove``
exactly once, whatever happens in between: a search that ends before its thread is
recorded, one that raises, a ``stop`` racing the search's own end, a thread that
cannot be started, or one that overruns its time.

The thread's work (:data:`Play`) returns the answer's text (``e2e4 ponder e7e5``) and
may offer a provisional answer at each completed depth. An answer is sent by whoever
comes first: the thread when it ends, the session when the thread has not answered
:data:`LATE_ANSWER` seconds after its time ran out (a timed ``go``) or after ``stop``.
Then the provisional answer is played (or the fallback move computed when the search
started), and whatever the thread still writes is dropped: no ``info`` after its
``bestmove``. A command that changes the engine's state waits for the thread to end
before it does, so a thread that answered late never searches on new state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["LATE_ANSWER", "Play", "SearchRun", "SearchSession"]

LATE_ANSWER = 0.02
"""Seconds past its time (or past ``stop``) the session waits for a search thread's answer
before it answers for the thread with the deepest move found so far. Short, because a
thread busy in a prediction cannot be stopped and the answer's own way out (the lock,
the pipe, the scheduler of a busy machine) needs what is left of a GUI's patience: at a
load of 38 on 2 cores, ``stop`` to ``bestmove`` took 79 ms (median) with 0.05 s here and
Python's default thread switch interval, 26 ms with 0.02 s and the engine's 1 ms
(:data:`~search.chess.uci.startup.SWITCH_INTERVAL`)."""


class SearchRun:
    """One ``go``: its stop and release events and its answer, sent at most once.

    ``stop`` ends the search's iterations; ``release`` lets the answer out (set at once,
    or by ``stop`` / ``ponderhit`` for an infinite or pondering search).
    """

    def __init__(self, send: Callable[[str], None], fallback: str) -> None:
        self.stop = threading.Event()
        self.release = threading.Event()
        self._send = send
        self._lock = threading.Lock()
        self._answered = False
        self._provisional = fallback

    @property
    def answered(self) -> bool:
        return self._answered

    def send(self, line: str) -> None:
        """Write a line of the search (``info ...``), unless its ``bestmove`` is out already."""
        with self._lock:
            if not self._answered:
                self._send(line)

    def offer(self, answer: str) -> None:
        """The answer to play if the search must be answered for now (its deepest completed move)."""
        self._provisional = answer

    def answer(self, answer: str | None = None) -> bool:
        """Send ``bestmove`` with ``answer`` (None: the provisional one); ``False`` if it was sent already."""
        with self._lock:
            if self._answered:
                return False
            self._answered = True
            self._send(f"bestmove {answer if answer is not None else self._provisional}")
            return True


Play = Callable[[SearchRun], str]
"""The work of a search thread: the answer's text, ``info`` lines through the run meanwhile."""


class SearchSession:
    """Starts, stops and answers the engine's one search thread (see the module docstring)."""

    def __init__(self, send: Callable[[str], None], late: float = LATE_ANSWER) -> None:
        self._send = send
        self.late = late
        self._run: SearchRun | None = None
        self._thread: threading.Thread | None = None
        self._timers: list[threading.Timer] = []

    @property
    def thread(self) -> threading.Thread | None:
        """The search thread of the last ``go`` until it is stopped (it may have ended)."""
        return self._thread

    @property
    def current(self) -> SearchRun | None:
        """The run of the last ``go`` until it is stopped."""
        return self._run

    def start(self, play: Play, fallback: str, *, released: bool, seconds: float | None) -> SearchRun:
        """Stop any search, then run ``play`` in a new thread.

        ``fallback`` is the answer when nothing better is found (a legal move, ``0000``
        when there is none); ``released`` lets the answer out as soon as it is found
        (else only after :meth:`release` or :meth:`stop`); ``seconds`` is the search's
        time, after which (and :attr:`late` more) the session answers for a thread that
        has not.
        """
        self.stop()
        run = SearchRun(self._send, fallback)
        if released:
            run.release.set()
        self._run = run
        thread = threading.Thread(target=self._work, args=(play, run), name="uci-search", daemon=True)
        self._thread = thread
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: answer at once, as the protocol needs
            self._thread = None
            run.send(f"info string search not started: {exc}")
            run.release.wait()
            run.answer()
            return run
        if released and seconds is not None:
            self._answer_by(run, seconds)
        return run

    def release(self, seconds: float | None = None, *, wait_for_stop: bool = False) -> None:
        """``ponderhit``: the search runs on for ``seconds`` (None: no limit), then answers
        (after ``stop`` only, if ``wait_for_stop``)."""
        run = self._run
        if run is None:
            return
        if seconds is not None:
            timer = threading.Timer(seconds, run.stop.set)
            timer.daemon = True
            self._timers.append(timer)
            timer.start()
        if not wait_for_stop:
            run.release.set()
            if seconds is not None:
                self._answer_by(run, seconds)

    def finish(self, timeout: float) -> None:
        """Let a search whose answer is released end on its own, for at most ``timeout`` seconds."""
        run, thread = self._run, self._thread
        if run is not None and thread is not None and run.release.is_set():
            thread.join(timeout)

    def stop(self) -> None:
        """Stop the search, send its answer (within :attr:`late` seconds), and wait for its thread to end."""
        run, thread = self._run, self._thread
        for timer in self._timers:
            timer.cancel()
        self._timers = []
        if run is None:
            return
        run.stop.set()
        run.release.set()
        if thread is not None:
            thread.join(self.late)
            if thread.is_alive():
                run.answer()
                thread.join()
        run.answer()  # a thread that died without answering (it cannot, but the protocol needs one)
        self._run = self._thread = None

    def _answer_by(self, run: SearchRun, seconds: float) -> None:
        """Answer for ``run``'s thread if it has not answered :attr:`late` seconds after ``seconds``."""

        def overdue() -> None:
            run.stop.set()
            run.answer()

        timer = threading.Timer(seconds + self.late, overdue)
        timer.daemon = True
        self._timers.append(timer)
        timer.start()

    def _work(self, play: Play, run: SearchRun) -> None:
        """The search thread: ``play``, then its answer (the provisional one if it raised)."""
        answer: str | None = None
        try:
            answer = play(run)
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            run.send(f"info string search error: {type(exc).__name__}: {exc}")
        finally:
            run.release.wait()
            run.answer(answer)
