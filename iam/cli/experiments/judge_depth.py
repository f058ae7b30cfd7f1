"""``iam experiment judge-depth``: options of :mod:`experiments.development.judge_depth`."""

from __future__ import annotations

import argparse

from experiments.development.judge_depth import HELP, NAME, JudgeDepthConfig, run
from iam.cli.experiments._options import common_fields
from iam.errors import DataError
from iam.prepare.dossier import MODEL_PLIES

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", default="", metavar="LIST", help="comma-separated bundled masters (default: all of them)"
    )
    parser.add_argument(
        "--positions", type=int, default=50, metavar="N", help="development positions per master (default 50)"
    )
    parser.add_argument(
        "--plies", type=int, default=MODEL_PLIES, metavar="N",
        help=f"positions from the first N plies of each game (default {MODEL_PLIES})",
    )
    parser.add_argument(
        "--depths", default="1,2,3,4,5,6", metavar="LIST", help="the own search's depths (default 1,2,3,4,5,6)"
    )
    parser.add_argument("--engine", default="stockfish", metavar="PATH", help="the reference UCI engine")
    parser.add_argument(
        "--engine-depth", type=int, default=16, metavar="D", help="the reference engine's depth (default 16)"
    )
    parser.add_argument(
        "--engine-cache", default="iam-engine-cache.sqlite", metavar="FILE",
        help="SQLite file of the engine's analyses",
    )


def config(args: argparse.Namespace) -> JudgeDepthConfig:
    """The options as a config (DataError on a bad value)."""
    try:
        depths = tuple(int(part) for part in args.depths.split(",") if part.strip())
    except ValueError:
        raise DataError(f"--depths takes comma-separated whole numbers, not {args.depths!r}") from None
    for option, value in (("--positions", args.positions), ("--plies", args.plies),
                          ("--engine-depth", args.engine_depth), ("--depths", min(depths, default=0))):
        if value < 1:
            raise DataError(f"{option} must be at least 1")
    players = tuple(part.strip() for part in args.players.split(",") if part.strip())
    return JudgeDepthConfig(
        players=players, positions=args.positions, plies=args.plies, depths=depths,
        reference_depth=args.engine_depth, **common_fields(args),
    )
