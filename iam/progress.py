"""Progress bars for long work: on stderr when it is a terminal, never in the way of output.

Library functions take a ``quiet`` flag and wrap their loops in :func:`progress`;
the command line sets the flag from ``--quiet``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from tqdm import tqdm

__all__ = ["progress"]

T = TypeVar("T")


def progress(items: Iterable[T], *, quiet: bool = False, **tqdm_options: Any) -> Iterator[T]:
    """Wrap ``items`` in a progress bar on stderr, off when quiet or not a terminal."""
    disable = quiet or not sys.stderr.isatty()
    return iter(tqdm(items, disable=disable, file=sys.stderr, leave=False, **tqdm_options))
