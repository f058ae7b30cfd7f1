"""Small pieces every subcommand shares: options, checks of their values, JSON output, output folders."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iam.cli._games import add_filter_arguments, add_header_filter_arguments, filter_from_args
from iam.errors import DataError, IAMError, ParameterError
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.games.player_games import bundled_or_given, read_games
from iam.jsonsafe import finite
from iam.progress import progress
from iam.runtime import MAX_ENGINE_DEPTH, Runtime, runtime_from

if TYPE_CHECKING:
    from iam.priors.population import PopulationPrior

# The model's libraries (scikit-learn, SciPy) load only in the functions of the commands that fit or score models
# (imported there), so that a command that needs none of them (``iam match``) starts without them.

__all__ = [
    "check_engine_depth",
    "PARAMETER_FLAGS",
    "error_message",
    "add_filter_arguments",
    "add_header_filter_arguments",
    "filter_from_args",
    "add_quiet",
    "progress",
    "print_json",
    "output_dir",
    "finite",
    "read_games",
    "bundled_or_given",
    "add_ranker_arguments",
    "parse_families",
    "ranker_params",
    "command_runtime",
    "add_engine_arguments",
    "check_seed",
    "usable_jobs",
    "add_scheduler_argument",
    "SCHEDULER_HELP",
    "check_not_input",
    "check_output_file",
    "check_distinct_players",
    "MAX_SEED",
]

MAX_SEED = 2**32 - 1
"""Largest ``--seed`` (numpy's and scikit-learn's seeds are 32-bit)."""

PARAMETER_FLAGS: dict[str, str] = {
    "player": "--player",
    "aliases": "--alias",
    "partial_names": "--partial-names",
    "since": "--since",
    "until": "--until",
    "time_control": "--time-control",
    "rating": "--rating",
    "min_plies": "--min-plies",
    "side": "--side",
    "train_sizes": "--train-games",
    "min_games": "--min-games",
    "half_life_years": "--half-life",
    "jobs": "--jobs",
    "scheduler": "--scheduler",
    "engine_depth": "--engine-depth",
    "habit_loss": "--habit-loss",
    "search_depth": "--search-depth",
}
"""The option of each API parameter whose :class:`~iam.errors.ParameterError` the commands report."""


def error_message(exc: IAMError) -> str:
    """The one line the command line prints for ``exc``: a ParameterError names the option, not the parameter."""
    if isinstance(exc, ParameterError):
        return exc.worded(PARAMETER_FLAGS)
    return str(exc)


def add_quiet(parser: Any) -> None:
    """Add ``--quiet`` (no progress bars, no summary chatter on stderr)."""
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars on stderr")


def print_json(payload: Any) -> None:
    """Write ``payload`` as indented JSON on stdout (NaN is written as null)."""
    print(json.dumps(finite(payload), indent=2))


def output_dir(path: str | Path) -> Path:
    """Create (if needed) and return an output folder; IAMError if it cannot be one.

    Commands call it before any long work, so a bad ``--out`` fails at once.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise IAMError(f"cannot write to {folder}: it is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IAMError(f"cannot create folder {folder}: {exc.strerror or exc}") from None
    return folder


def check_seed(seed: int) -> int:
    """``seed`` if it is a valid ``--seed`` (0 to :data:`MAX_SEED`); IAMError otherwise."""
    if not 0 <= seed <= MAX_SEED:
        raise IAMError(f"--seed must be between 0 and {MAX_SEED}, not {seed}")
    return seed


SCHEDULER_HELP = "Dask scheduler to run on, e.g. tcp://127.0.0.1:8786 (default: $IAM_SCHEDULER, else local processes)"


def add_scheduler_argument(parser: Any) -> None:
    """Add ``--scheduler ADDRESS``: the independent work goes to a Dask cluster (:mod:`iam.runtime`)."""
    parser.add_argument("--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP.replace("%", "%%"))


def usable_jobs(jobs: int) -> int:
    """``--jobs`` capped at the number of CPUs (more processes only contend); IAMError below 1."""
    if jobs < 1:
        raise IAMError("--jobs must be at least 1")
    return min(jobs, os.cpu_count() or 1)


def check_not_input(output: str | Path, inputs: Iterable[str | Path | None], option: str) -> None:
    """IAMError if the file ``output`` would be written over one of ``inputs`` (its input files and caches)."""
    target = Path(output)
    for given in inputs:
        if given is None:
            continue
        source = Path(given)
        try:
            same = os.path.samefile(target, source) if target.exists() and source.exists() else False
        except OSError:
            same = False
        try:
            same = same or target.resolve() == source.resolve()
        except (OSError, RuntimeError):  # a symbolic-link loop: never the same file as a readable one
            pass
        if same:
            raise IAMError(f"{option} {target} is an input file or cache of this command; it would be overwritten")


def check_output_file(output: str | Path, option: str, *, inputs: Iterable[str | Path | None] = ()) -> Path:
    """``output`` as a Path if it may be written: a new path or a regular file, none of ``inputs``; IAMError otherwise.

    A device, pipe, socket, folder or symbolic link is never replaced by a regular
    file (writing is atomic: a new file is renamed over the path), and an input file
    or cache of the same command is never overwritten.
    """
    path = Path(output)
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # a new path, or one the writer's own checks will name the problem of
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        kind = (
            "a symbolic link" if stat.S_ISLNK(mode)
            else "a folder" if stat.S_ISDIR(mode)
            else "not a regular file (a device, pipe or socket)"
        )
        raise IAMError(f"{option} {path}: it is {kind}; give a regular file or a new path")
    check_not_input(path, inputs, option)
    return path


def check_distinct_players(names: Iterable[str], option: str = "--players") -> None:
    """DataError if two of ``names`` name the same player (case and punctuation aside), before any work."""
    seen: dict[tuple[str, ...], str] = {}
    for name in names:
        key = tuple(re.findall(r"\w+", name.lower()))
        if key in seen:
            raise DataError(f"{option} names the same player twice ({seen[key]!r} and {name!r})")
        seen[key] = name


def add_scoring_arguments(parser: Any) -> None:
    """How the candidates' likelihoods are scored (``iam identify``, ``iam experiment stylometry``)."""
    from iam.measure.repertoire import MODEL_WEIGHT

    parser.add_argument(
        "--no-repertoire", action="store_true",
        help="score every position by the models, the openings too (default: positions a candidate remembers by the "
        "candidates' repertoires)",
    )
    parser.add_argument(
        "--model-weight", type=float, default=MODEL_WEIGHT, metavar="W",
        help="weight of the models' log-likelihoods where no candidate remembers the position (default "
        f"{MODEL_WEIGHT}; 1: plain likelihood)",
    )


def check_model_weight(args: Any) -> None:
    """``--model-weight`` is a finite number of at least 0 (DataError otherwise)."""
    if not 0 <= args.model_weight < float("inf"):
        raise DataError("--model-weight must be a number of at least 0")


def add_engine_arguments(parser: Any) -> None:
    """``--engine --engine-depth --engine-cache``: a UCI engine's evidence, cached on disk.

    ``--search-cache``: the search's, likewise.
    """
    parser.add_argument(
        "--engine", metavar="PATH",
        help="UCI engine (e.g. /usr/games/stockfish) whose scores of every move become evidence",
    )
    parser.add_argument(
        "--engine-depth", type=int, default=8, metavar="D", help="fixed depth of the engine's analyses (default 8)"
    )
    parser.add_argument(
        "--engine-timeout",
        type=float,
        metavar="SECONDS",
        help="the longest one position's analysis may take before the engine counts as hung and the run stops "
        "with an error (default: 30 s up to depth 8, doubling every 3 plies beyond)",
    )
    parser.add_argument(
        "--engine-cache",
        default="iam-engine-cache.sqlite",
        metavar="FILE",
        help="SQLite file keeping the engine's analyses for reuse (default iam-engine-cache.sqlite)",
    )
    parser.add_argument(
        "--search-cache",
        metavar="FILE",
        help="SQLite file keeping the ranker's search scores of every move for reuse (default: none, searched afresh; "
        "may be the engine cache's file)",
    )


def check_engine_timeout(args: Any) -> None:
    """Refuse an ``--engine-timeout`` that is not a positive, finite number of seconds (DataError)."""
    timeout = getattr(args, "engine_timeout", None)
    if timeout is not None and not 0 < timeout < float("inf"):
        raise DataError("--engine-timeout must be a positive number of seconds")


def add_ranker_arguments(parser: Any) -> None:
    """The move ranker's options (``--families``, ``--search-depth``, the engine, the prior ...)."""
    from iam.evidence.registry import DEFAULT_FAMILIES, ENGINE_FAMILIES, FAMILIES, without_engine

    parser.add_argument(
        "--families",
        metavar="LIST",
        help=f"ranker: evidence families, some of {','.join(without_engine(FAMILIES))} "
        f"(default: {','.join(DEFAULT_FAMILIES)}; "
        f"--engine adds {' and '.join(ENGINE_FAMILIES)})",
    )
    parser.add_argument(
        "--search-depth", type=int, default=DEFAULT_SEARCH_DEPTH, metavar="D",
        help=f"ranker: depth of the search scoring every move (default {DEFAULT_SEARCH_DEPTH})",
    )
    parser.add_argument(
        "--train-positions", dest="ranker_positions", type=int, default=2000, metavar="N",
        help="ranker: training positions sampled (default 2000)",
    )
    parser.add_argument(
        "--prior",
        default="population",
        metavar="population|none|FILE",
        help="ranker: pull towards the bundled population (default), no population, or the prior FILE that "
        "`iam prior build` wrote",
    )
    parser.add_argument(
        "--prior-strength", type=float, default=None, metavar="L",
        help="ranker: strength of that pull (default: the ranker's)",
    )
    parser.add_argument(
        "--no-trees", action="store_true",
        help="ranker: leave out the population's residual trees (a linear score only)",
    )
    parser.add_argument(
        "--reply-positions", type=int, default=0, metavar="N",
        help="ranker: also fit the cheap reply policy that `iam uci --exploit-reduce` reads, on N of the player's "
        "positions (default 0: none; its cost is measured in docs/results/exploitation.md)",
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    add_engine_arguments(parser)


def parse_families(text: str | None, engine: str | None) -> tuple[str, ...]:
    """``--families`` (None: the default) with the engine families ``--engine`` adds (DataError when wrong)."""
    from iam.evidence.registry import DEFAULT_FAMILIES, ENGINE_FAMILIES, FAMILIES, with_engine

    families = tuple(DEFAULT_FAMILIES) if text is None else tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = [family for family in families if family not in FAMILIES]
    if unknown or not families:
        raise DataError(f"--families takes some of {','.join(FAMILIES)}, not {text!r}")
    if engine:
        return with_engine(families)
    needing = [family for family in ENGINE_FAMILIES if family in families]
    if needing:
        raise DataError(f"the {needing[0]} family needs --engine PATH")
    return families


def check_engine_depth(option: str, depth: int) -> None:
    """DataError for an engine depth so deep that the command would look hung (:data:`MAX_ENGINE_DEPTH`)."""
    if depth > MAX_ENGINE_DEPTH:
        raise DataError(f"{option} must be at most {MAX_ENGINE_DEPTH} (each ply costs about twice the one before)")


def ranker_params(args: Any) -> dict[str, Any]:
    """``MoveRanker`` parameters from the options of :func:`add_ranker_arguments` (DataError when wrong)."""
    families = parse_families(args.families, args.engine)
    if not 1 <= args.search_depth <= 6:
        raise DataError("--search-depth must be from 1 to 6")
    checks = {
        "--search-depth": (args.search_depth, 1),
        "--train-positions": (args.ranker_positions, 1),
        "--reply-positions": (args.reply_positions, 0),
        "--jobs": (args.jobs, 1),
        "--engine-depth": (args.engine_depth, 1),
    }
    for option, (value, lowest) in checks.items():
        if value < lowest:
            raise DataError(f"{option} must be at least {lowest}")
    check_engine_depth("--engine-depth", args.engine_depth)
    check_engine_timeout(args)
    if args.prior_strength is not None and not (0 <= args.prior_strength < float("inf")):
        raise DataError("--prior-strength must be a finite number >= 0")
    params: dict[str, Any] = {
        "families": families,
        "search_depth": args.search_depth,
        "max_positions": args.ranker_positions,
        "prior": _prior(args.prior, trees=not args.no_trees),
        "reply_positions": args.reply_positions,
    }
    if args.prior_strength is not None:
        params["prior_strength"] = args.prior_strength
    if args.engine:
        params["engine_depth"] = args.engine_depth
    return params


def _prior(name: str, *, trees: bool) -> str | PopulationPrior:
    """``MoveRanker``'s ``prior`` from ``--prior`` (a name or a file) and ``--no-trees``."""
    from iam.priors.population import load_prior

    if name == "none":
        return name
    if name == "population":
        return name if trees else "population-linear"
    prior = load_prior(name)
    return prior if trees else replace(prior, rankers=tuple(replace(weights, trees=None) for weights in prior.rankers))


def command_runtime(args: Any) -> Runtime:
    """What a command runs on, from the engine options, ``--search-cache``, ``--jobs`` and ``--scheduler`` where it
    has them; with ``--scheduler`` the address (else ``$IAM_SCHEDULER``) is checked here, before any work."""
    engine = getattr(args, "engine", None)
    runtime = Runtime(
        engine=engine,
        engine_cache=getattr(args, "engine_cache", None) if engine else None,
        engine_timeout=getattr(args, "engine_timeout", None),
        search_cache=getattr(args, "search_cache", None),
        jobs=usable_jobs(getattr(args, "jobs", 1)),
        scheduler=getattr(args, "scheduler", None),
    )
    return runtime_from(runtime) if hasattr(args, "scheduler") else runtime
