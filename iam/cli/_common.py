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
    "add_ranker_arguments",
    "ranker_params",
    "add_engine_arguments",
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


def add_engine_arguments(parser: Any) -> None:
    """``--engine --engine-depth --engine-cache``: a UCI engine's evidence, cached on disk."""
    parser.add_argument("--engine", metavar="PATH", help="UCI engine (e.g. /usr/games/stockfish) whose scores of every move become evidence")
    parser.add_argument("--engine-depth", type=int, default=8, metavar="D", help="fixed depth of the engine's analyses (default 8)")
    parser.add_argument(
        "--engine-cache",
        default="iam-engine-cache.sqlite",
        metavar="FILE",
        help="SQLite file keeping the engine's analyses for reuse (default iam-engine-cache.sqlite)",
    )


def add_ranker_arguments(parser: Any) -> None:
    """The move ranker's options (``--families``, ``--search-depth``, the engine, the prior ...)."""
    parser.add_argument(
        "--families",
        metavar="LIST",
        help="ranker: evidence families, some of move,search,habits,population (default: the ranker's default; "
        "--engine adds engine)",
    )
    parser.add_argument("--search-depth", type=int, default=1, metavar="D", help="ranker: depth of the search scoring every move (default 1)")
    parser.add_argument("--train-positions", dest="ranker_positions", type=int, default=2000, metavar="N", help="ranker: training positions sampled (default 2000)")
    parser.add_argument("--prior", choices=("population", "none"), default="population", help="ranker: pull towards the bundled population (default) or not")
    parser.add_argument("--prior-strength", type=float, default=None, metavar="L", help="ranker: strength of that pull (default: the ranker's)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    add_engine_arguments(parser)


def ranker_params(args: Any) -> dict[str, Any]:
    """``MoveRanker`` parameters from the options of :func:`add_ranker_arguments` (DataError when wrong)."""
    from iam.errors import DataError
    from iam.ranker import DEFAULT_FAMILIES, FAMILIES

    families = tuple(DEFAULT_FAMILIES) if args.families is None else tuple(f.strip() for f in args.families.split(",") if f.strip())
    unknown = [family for family in families if family not in FAMILIES]
    if unknown or not families:
        raise DataError(f"--families takes some of {','.join(FAMILIES)}, not {args.families!r}")
    if args.engine and "engine" not in families:
        families = (*families, "engine")
    if "engine" in families and not args.engine:
        raise DataError("the engine family needs --engine PATH")
    if not 1 <= args.search_depth <= 6:
        raise DataError("--search-depth must be from 1 to 6")
    checks = {"--search-depth": (args.search_depth, 1), "--train-positions": (args.ranker_positions, 1), "--jobs": (args.jobs, 1), "--engine-depth": (args.engine_depth, 1)}
    for option, (value, lowest) in checks.items():
        if value < lowest:
            raise DataError(f"{option} must be at least {lowest}")
    if args.prior_strength is not None and not (0 <= args.prior_strength < float("inf")):
        raise DataError("--prior-strength must be a finite number >= 0")
    params: dict[str, Any] = {
        "families": families,
        "search_depth": args.search_depth,
        "max_positions": args.ranker_positions,
        "prior": args.prior,
        "jobs": usable_jobs(args.jobs),
    }
    if args.prior_strength is not None:
        params["prior_strength"] = args.prior_strength
    if args.engine:
        params.update(engine=args.engine, engine_depth=args.engine_depth, engine_cache=args.engine_cache)
    return params
