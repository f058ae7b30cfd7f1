"""``iam prior build``: a population prior from the bundled masters or from any game collection.

A ranker is pulled towards a population's weights and reads its book and move patterns;
the shipped population is six world champions. A user modelling a club player builds one
from games of players like him (``--rating 1800-2000 --time-control classical --since
2024``): the collection is read in chunks (:mod:`iam.games.collection`), its most frequent
players (or those named) become the population, and their positions are described and
fitted where ``--jobs`` or ``--scheduler`` says. Only each player's training games are
used. ``iam train --prior FILE`` then trains a ranker against it.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from iam.cli._common import (
    add_engine_arguments,
    add_scheduler_argument,
    check_output_file,
    command_runtime,
    parse_families,
)
from iam.cli._games import add_header_filter_arguments, filter_from_args
from iam.errors import DataError
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.games.collection import CHUNK_BYTES
from iam.games.filters import GameFilter
from iam.games.player_games import bundled_masters, collection_players
from iam.priors.population import save_prior
from iam.priors.trees import TreeSettings
from iam.progress import progress


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("prior", help="build a population prior for the move ranker")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser(
        "build",
        help="fit a population prior from the bundled masters or a game collection",
        description="Fit a population prior: the population's book, move patterns and ranker weights "
        "(with each player left out), from the players' training games only.",
    )
    build.add_argument(
        "games", nargs="*", metavar="GAMES",
        help="game files: PGN (.pgn, .pgn.zst, .gz, .bz2, .xz) or Lichess-style Parquet",
    )
    build.add_argument(
        "--bundled", action="store_true", help="the six bundled masters (as the shipped prior) instead of GAMES"
    )
    build.add_argument(
        "--player", action="append", default=[], metavar="NAME",
        help="a player of the population (repeatable; default: the most frequent)",
    )
    build.add_argument(
        "--players", type=int, default=8, metavar="N", help="without --player: the N most frequent players (default 8)"
    )
    build.add_argument(
        "--min-games", type=int, default=20, metavar="K",
        help="without --player: only players with K games or more (default 20)",
    )
    build.add_argument("--max-games", type=int, metavar="G", help="at most each player's first G usable games")
    add_header_filter_arguments(build)
    build.add_argument(
        "--families", metavar="LIST",
        help="evidence families (default: the pure-Python ranker's; --engine adds its own)",
    )
    build.add_argument(
        "--positions", type=int, default=1500, metavar="N", help="sampled training positions per player (default 1500)"
    )
    build.add_argument(
        "--search-depth", default=str(DEFAULT_SEARCH_DEPTH), metavar="D[,D]",
        help=f"search depths to fit at (default {DEFAULT_SEARCH_DEPTH})",
    )
    add_engine_arguments(build)
    build.add_argument("--no-trees", action="store_true", help="fit no residual trees (LightGBM not needed)")
    build.add_argument(
        "--leave-out", choices=("each", "none"), default="each",
        help="also fit the population without each player (default each)",
    )
    build.add_argument(
        "--update", metavar="FILE",
        help="a prior whose fits of the same families, left-out player and depth this build replaces",
    )
    build.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    build.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    add_scheduler_argument(build)
    build.add_argument(
        "--chunk-mb", type=float, default=CHUNK_BYTES / 2**20, metavar="MB",
        help="MB of games per chunk a worker reads (default 8)",
    )
    build.add_argument(
        "--out", required=True, metavar="FILE",
        help="the prior file to write (.json or .json.gz); its fits go beside it as _fits.csv",
    )
    build.add_argument("--quiet", action="store_true", help="no progress bars")
    build.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from iam.ranker.build_prior import build_prior, fits_file  # build code, loaded by this command only

    settings, depths = _settings(args)
    # --update FILE may be --out; a device, pipe or folder is never replaced by the prior or its table of fits
    inputs = [*args.games, args.engine_cache, args.search_cache]
    check_output_file(args.out, "--out", inputs=inputs)
    check_output_file(fits_file(args.out), "--out's table of fits", inputs=inputs)
    started = time.perf_counter()
    if args.bundled:
        if args.games or args.player:
            raise DataError("--bundled takes no game files and no --player")
        masters = bundled_masters()
        source: dict[str, Any] = {"bundled": sorted(masters)}
    else:
        if not args.games:
            raise DataError("give game files, or --bundled for the bundled masters")
        games_filter = replace(filter_from_args(args), player=None)  # the population's players are chosen below
        masters, report = collection_players(
            args.games, games_filter, settings.runtime, players=args.player, top=args.players, min_games=args.min_games,
            max_games=args.max_games, chunk_bytes=max(1, int(args.chunk_mb * 2**20)),
        )
        for line in report.summary_lines():
            print(f"iam: {line}", file=sys.stderr)
        source = {
            "files": [Path(path).name for path in args.games],
            "filters": _filters(games_filter),
            "read": report.to_dict(),
        }
    source["players"] = {name: len(games) for name, games in masters.items()}
    print(
        f"iam: population: {', '.join(f'{name} ({len(games)} games)' for name, games in masters.items())}",
        file=sys.stderr,
    )
    bar = None if args.quiet else (lambda items, total: progress(items, total=total, desc="players", unit=" players"))
    prior, fits = build_prior(
        masters, settings, depths, source=source, update=args.update, progress=bar
    )
    save_prior(prior, args.out)
    fits.to_csv(fits_file(args.out), index=False)
    dropped = sum(prior.settings.get("dropped_test_games_of_others", {}).values())
    print(f"wrote {args.out} ({len(prior.rankers)} fits, {dropped} games dropped as another player's test game) "
          f"and {fits_file(args.out)} in {time.perf_counter() - started:.0f} s")
    return 0


def _settings(args: argparse.Namespace) -> tuple[Any, list[int]]:
    from iam.ranker.build_prior import PriorSettings

    for option, value, lowest in (("--positions", args.positions, 1), ("--players", args.players, 1),
                                  ("--min-games", args.min_games, 1), ("--max-games", args.max_games or 1, 1)):
        if value < lowest:
            raise DataError(f"{option} must be at least {lowest}")
    if not args.chunk_mb > 0:
        raise DataError("--chunk-mb must be a positive number")
    try:
        depths = [int(depth) for depth in args.search_depth.split(",")]
    except ValueError:
        raise DataError(f"--search-depth takes depths such as 3 or 3,2, not {args.search_depth!r}") from None
    if not depths or not all(1 <= depth <= 6 for depth in depths) or len(set(depths)) != len(depths):
        raise DataError("--search-depth takes different depths from 1 to 6")
    families = parse_families(args.families, args.engine)
    settings = PriorSettings(
        families=families,
        positions_per_master=args.positions,
        engine_depth=args.engine_depth,
        runtime=command_runtime(args),
        trees=None if args.no_trees else TreeSettings(random_state=args.seed),
        random_state=args.seed,
        leave_each_out=args.leave_out == "each",
    )
    return settings, depths


def _filters(games_filter: GameFilter) -> dict:
    """The filters that were set, for the prior's provenance."""
    chosen = {**games_filter.__dict__, **games_filter.conditions.__dict__}
    del chosen["conditions"]
    return {name: value for name, value in chosen.items() if value not in (None, (), False, "any")}
