"""Small pieces every subcommand shares: progress bars, JSON output, output folders."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

__all__ = ["add_quiet", "progress", "print_json", "output_dir"]

T = TypeVar("T")


def add_quiet(parser: Any) -> None:
    """Add ``--quiet`` (no progress bars, no summary chatter on stderr)."""
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars on stderr")


def progress(items: Iterable[T], *, quiet: bool = False, **tqdm_options: Any) -> Iterator[T]:
    """Wrap ``items`` in a progress bar on stderr, off when quiet or not a terminal."""
    disable = quiet or not sys.stderr.isatty()
    return iter(tqdm(items, disable=disable, file=sys.stderr, leave=False, **tqdm_options))


def print_json(payload: Any) -> None:
    """Write ``payload`` as indented JSON on stdout (NaN is written as null)."""
    print(json.dumps(_finite(payload), indent=2))


def output_dir(path: str | Path) -> Path:
    """Create (if needed) and return an output folder."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _finite(value: Any) -> Any:
    """Replace float NaN/inf (invalid in JSON) by None, recursively."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
