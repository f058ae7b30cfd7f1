"""``iam experiment ranker-depth``: options of :mod:`experiments.development.ranker_depth`."""

from __future__ import annotations

import argparse

from experiments.development.ranker_depth import HELP, NAME, RankerDepthConfig, RankerVariant, run
from iam.cli.experiments._options import common_fields
from iam.errors import DataError
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.ranker.estimator import RIDGE_STRENGTH

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", default="", metavar="LIST", help="comma-separated bundled masters (default: all of them)"
    )
    parser.add_argument(
        "--depths", default="3,4,5", metavar="LIST",
        help="search depths of the rankers without residual trees (default 3,4,5); the first is the baseline",
    )
    parser.add_argument(
        "--fit-positions", type=int, default=2000, metavar="N", help="positions each ranker is fitted on (default 2000)"
    )
    parser.add_argument(
        "--dev-positions", type=int, default=400, metavar="N",
        help="development positions scored per master (default 400)",
    )
    parser.add_argument(
        "--light-control", action="store_true",
        help=f"add the baseline's depth pulled as lightly as a prior of another depth is ({RIDGE_STRENGTH:g})",
    )
    parser.add_argument(
        "--no-default", action="store_true",
        help=f"leave out the default ranker (depth {DEFAULT_SEARCH_DEPTH} with the population's residual trees)",
    )


def config(args: argparse.Namespace) -> RankerDepthConfig:
    """The options as a config (DataError on a bad value)."""
    try:
        depths = tuple(int(part) for part in args.depths.split(",") if part.strip())
    except ValueError:
        raise DataError(f"--depths takes comma-separated whole numbers, not {args.depths!r}") from None
    if not depths or not all(1 <= depth <= 6 for depth in depths):
        raise DataError(f"--depths takes depths from 1 to 6, not {args.depths!r}")
    for option, value in (("--fit-positions", args.fit_positions), ("--dev-positions", args.dev_positions)):
        if value < 1:
            raise DataError(f"{option} must be at least 1")
    linear = tuple(RankerVariant(depth) for depth in depths)
    default = () if args.no_default else (RankerVariant(DEFAULT_SEARCH_DEPTH, "population"),)
    control = (RankerVariant(depths[0], prior_strength=RIDGE_STRENGTH),) if args.light_control else ()
    return RankerDepthConfig(
        players=tuple(part.strip() for part in args.players.split(",") if part.strip()),
        variants=default + linear + control, baseline=linear[0],
        fit_positions=args.fit_positions, dev_positions=args.dev_positions, **common_fields(args),
    )
