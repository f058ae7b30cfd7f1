"""``iam experiment node-counts``: options of :mod:`experiments.node_counts`."""

from __future__ import annotations

import argparse

from experiments.node_counts import HELP, NAME, POSITIONS, NodeCountsConfig, run
from iam.cli._common import add_scheduler_argument
from iam.cli.experiments._options import common_fields
from iam.errors import IAMError

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-depth", type=int, default=5, help="deepest search (default 5)")
    parser.add_argument(
        "--time-cap",
        type=float,
        default=60.0,
        help="seconds each search may run; a search that runs out is capped (default 60)",
    )
    parser.add_argument(
        "--positions",
        default=",".join(POSITIONS),
        help=f"comma-separated subset of: {', '.join(POSITIONS)}",
    )
    add_scheduler_argument(parser)


def config(args: argparse.Namespace) -> NodeCountsConfig:
    if not 1 <= args.max_depth <= 8:
        raise IAMError(f"--max-depth must be between 1 and 8, not {args.max_depth}")
    if args.time_cap <= 0:
        raise IAMError(f"--time-cap must be positive, not {args.time_cap}")
    positions = tuple(p.strip() for p in args.positions.split(",") if p.strip())
    return NodeCountsConfig(
        **common_fields(args), max_depth=args.max_depth, time_cap=args.time_cap, positions=positions
    )
