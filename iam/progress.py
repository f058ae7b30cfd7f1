"""Progress of long work on stderr, never in the way of output: a bar on a terminal, a line a phase elsewhere.

Library functions take a ``quiet`` flag and wrap their loops in :func:`progress`, named by
their phase (``desc``: "reading games", "scoring positions" ...); a step without a loop is
announced by :func:`phase`. On a terminal a loop draws a bar; elsewhere (a log file, a
pipe, a notebook) the phase is said once on a line of its own, ``iam: scoring positions
...``, so that long work is never silent. The command line sets ``quiet`` from ``--quiet``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from tqdm import tqdm

__all__ = ["phase", "progress"]

T = TypeVar("T")


def progress(items: Iterable[T], *, quiet: bool = False, **tqdm_options: Any) -> Iterator[T]:
    """Wrap ``items`` in a progress bar on stderr (a terminal), else say its phase (``desc``) when it starts."""
    if quiet:
        return iter(items)
    if not sys.stderr.isatty():
        desc = tqdm_options.get("desc")
        return _announced(items, desc) if desc else iter(items)
    return iter(tqdm(items, file=sys.stderr, leave=False, **tqdm_options))


def phase(name: str, *, quiet: bool = False) -> None:
    """Say on stderr that a phase of the work begins (``iam: fitting ...``), unless quiet."""
    if not quiet:
        print(f"iam: {name} ...", file=sys.stderr, flush=True)


def _announced(items: Iterable[T], name: str) -> Iterator[T]:
    """``items``, the phase said when the first one is asked for."""
    phase(name)
    yield from items
