"""``iam experiment evolve``: options of :mod:`experiments.evolution.evolve`."""

from __future__ import annotations

import argparse
from pathlib import Path

from experiments.evolution.evolve import HELP, NAME, EvolveConfig, run
from iam.cli._common import add_scheduler_argument
from iam.cli.experiments._options import common_fields
from iam.errors import DataError
from search.chess.match import MatchError, load_openings

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]

_DEFAULT_OPENINGS = Path(__file__).resolve().parents[4] / "benchmarks" / "match_openings_100.epd"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", dest="run_folder", default="evolution", metavar="DIR",
                        help="the folder of a run of 'iam evolve' (default: evolution, as 'iam evolve --out' wrote "
                        "in the results page's command)")
    parser.add_argument("--nodes", type=int, default=EvolveConfig.nodes,
                        help=f"nodes a move in the matches (default {EvolveConfig.nodes})")
    parser.add_argument("--max-plies", type=int, default=EvolveConfig.max_plies,
                        help=f"a match game this long is a draw (default {EvolveConfig.max_plies})")
    parser.add_argument("--openings", metavar="FILE",
                        help="the matches' start positions, each played twice (default: the 100 openings of "
                        "benchmarks/match_openings_100.epd)")
    parser.add_argument("--games", type=int, metavar="N",
                        help="games a match: the first N/2 openings, twice each (default: all the openings)")
    parser.add_argument("--against", choices=("both", "unevolved", "hand-set"), default="both",
                        help="the matches: the evolved evaluation against the unevolved one, the hand-set one, or "
                        "both (default)")
    parser.add_argument("--every", type=int, default=EvolveConfig.every,
                        help=f"the means table lists every N-th generation (default {EvolveConfig.every})")
    add_scheduler_argument(parser)


def config(args: argparse.Namespace) -> EvolveConfig:
    path = args.openings or _DEFAULT_OPENINGS
    try:
        openings = tuple(board.fen() for board in load_openings(path))
    except MatchError as exc:
        raise DataError(str(exc)) from None
    if args.games is not None:
        if args.games < 2 or args.games % 2 or args.games // 2 > len(openings):
            raise DataError(f"--games takes an even number from 2 to {2 * len(openings)} (two games an opening), "
                            f"not {args.games}")
        openings = openings[: args.games // 2]
    try:
        return EvolveConfig(**common_fields(args), run=args.run_folder, openings=openings, nodes=args.nodes,
                            max_plies=args.max_plies, every=args.every,
                            against=("unevolved", "hand-set") if args.against == "both" else (args.against,))
    except DataError as exc:
        raise DataError(str(exc).replace("max_plies", "--max-plies").replace("nodes", "--nodes")
                        .replace("every", "--every")) from None
