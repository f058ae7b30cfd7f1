"""Progress of long work on stderr, never in the way of output: a bar on a terminal, a line a phase elsewhere.

Library functions take a ``quiet`` flag and wrap their loops in :func:`progress`, named by
their phase (``desc``: "reading games", "scoring positions" ...); a step without a loop is
announced by :func:`phase`. On a terminal a loop draws a bar; elsewhere (a log file, a
pipe, a notebook) the phase is said once on a line of its own, ``iam: scoring positions
...``, so that long work is never silent. A phase is said only once it has lasted
:data:`ANNOUNCE_AFTER` seconds: work that ends (or fails on bad input) sooner says nothing,
so an error stays the one line on stderr; :func:`withdraw` drops a phase not yet said. The
command line sets ``quiet`` from ``--quiet``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from tqdm import tqdm

__all__ = ["ANNOUNCE_AFTER", "phase", "progress", "withdraw"]

T = TypeVar("T")

ANNOUNCE_AFTER = 1.0
"""Seconds a phase lasts before it is said (0: at once)."""
_pending: list[threading.Timer] = []
_lock = threading.Lock()


def progress(items: Iterable[T], *, quiet: bool = False, **tqdm_options: Any) -> Iterator[T]:
    """Wrap ``items`` in a progress bar on stderr (a terminal), else say its phase (``desc``) when it starts."""
    if quiet:
        return iter(items)
    if not sys.stderr.isatty():
        desc = tqdm_options.get("desc")
        return _announced(items, desc) if desc else iter(items)
    return iter(tqdm(items, file=sys.stderr, leave=False, **tqdm_options))


def phase(name: str, *, quiet: bool = False) -> None:
    """Say on stderr that a phase of the work begins (``iam: fitting ...``) once it has lasted
    :data:`ANNOUNCE_AFTER` seconds, unless quiet; a phase not yet said gives way to this one."""
    if quiet:
        return
    line = f"iam: {name} ..."
    stream = sys.stderr
    withdraw()
    if ANNOUNCE_AFTER <= 0:
        print(line, file=stream, flush=True)
        return
    timer = threading.Timer(ANNOUNCE_AFTER, _say, args=(line, stream))
    timer.daemon = True
    with _lock:
        _pending.append(timer)
    timer.start()


def withdraw() -> None:
    """Drop the phase not yet said (before an error message, which must stand alone)."""
    with _lock:
        while _pending:
            _pending.pop().cancel()


def _say(line: str, stream: Any) -> None:
    with _lock:
        if not any(timer is threading.current_thread() for timer in _pending):
            return  # withdrawn while the timer fired
        _pending.clear()
        print(line, file=stream, flush=True)


def _announced(items: Iterable[T], name: str) -> Iterator[T]:
    """``items``, the phase said when the first one is asked for."""
    phase(name)
    yield from items
