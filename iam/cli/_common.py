"""Small pieces every subcommand shares: progress bars, JSON output, output folders."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

__all__ = [
    "add_quiet",
    "progress",
    "print_json",
    "output_dir",
    "finite",
    "read_games",
    "bundled_or_given",
    "check_seed",
    "usable_jobs",
    "check_not_input",
    "MAX_SEED",
]

MAX_SEED = 2**32 - 1
"""Largest ``--seed`` (numpy's and scikit-learn's seeds are 32-bit)."""

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
    print(json.dumps(finite(payload), indent=2))


def output_dir(path: str | Path) -> Path:
    """Create (if needed) and return an output folder; IAMError if it cannot be one.

    Commands call it before any long work, so a bad ``--out`` fails at once.
    """
    from iam.errors import IAMError

    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise IAMError(f"cannot write to {folder}: it is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IAMError(f"cannot create folder {folder}: {exc.strerror or exc}") from None
    return folder


def finite(value: Any) -> Any:
    """JSON-safe copy: NaN and infinities become ``None``, numpy scalars plain numbers."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def check_seed(seed: int) -> int:
    """``seed`` if it is a valid ``--seed`` (0 to :data:`MAX_SEED`); IAMError otherwise."""
    from iam.errors import IAMError

    if not 0 <= seed <= MAX_SEED:
        raise IAMError(f"--seed must be between 0 and {MAX_SEED}, not {seed}")
    return seed


def usable_jobs(jobs: int) -> int:
    """``--jobs`` capped at the number of CPUs (more processes only contend); IAMError below 1."""
    import os

    from iam.errors import IAMError

    if jobs < 1:
        raise IAMError("--jobs must be at least 1")
    return min(jobs, os.cpu_count() or 1)


def check_not_input(output: str | Path, inputs: Iterable[str | Path], option: str) -> None:
    """IAMError if the file ``output`` would be written over one of ``inputs``."""
    import os

    from iam.errors import IAMError

    target = Path(output)
    for given in inputs:
        source = Path(given)
        try:
            same = os.path.samefile(target, source) if target.exists() and source.exists() else False
        except OSError:
            same = False
        if same or target.resolve() == source.resolve():
            raise IAMError(f"{option} {target} is an input file; it would be overwritten")


def read_games(paths, *, player: str, quiet: bool = False, **options):
    """The player's games from ``paths`` with a progress bar; returns ``(games, report)``."""
    from iam.pgn import IngestReport, iter_player_games

    report = IngestReport()
    stream = iter_player_games(paths, player=player, report=report, **options)
    games = list(progress(stream, quiet=quiet, desc="reading games", unit=" games"))
    return games, report


def bundled_or_given(pgn: str | None, player: str | None) -> tuple[list[str], str]:
    """The PGN paths and player when a command may fall back on the bundled data.

    Without a PGN file: the bundled file of ``player`` when the manifest has one
    (``--player Capablanca``), else the default file (Botvinnik's games, in which
    his opponents can be modelled too).
    """
    from iam.bundled import bundled_pgn, default_pgn, manifest
    from iam.errors import DataError
    from iam.pgn import name_matches

    if pgn is None:
        if not player:
            return [str(default_pgn())], manifest()[0].player
        for entry in manifest():
            if name_matches(player, entry.player) or name_matches(entry.player, player):
                return [str(bundled_pgn(entry.file))], player
        return [str(default_pgn())], player
    if not player:
        raise DataError("--player is required with a PGN file (whose games should be modelled?)")
    return [pgn], player
