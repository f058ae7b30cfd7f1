"""``iam experiment guidance-tuning``: options of :mod:`experiments.guidance_tuning`."""

from __future__ import annotations

import argparse

from experiments.guidance_tuning import DEFAULT_BUDGET, DEFAULT_POSITIONS, HELP, NAME, GuidanceTuningConfig, run
from iam.cli.experiments._setup import add_setup_arguments, setup_fields
from iam.errors import DataError

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_setup_arguments(parser, positions=False, max_positions=DEFAULT_POSITIONS)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help=f"node budget (default {DEFAULT_BUDGET})")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated subset of the settings (default: all)")


def config(args: argparse.Namespace) -> GuidanceTuningConfig:
    if args.budget < 10:
        raise DataError(f"--budget must be at least 10 nodes, not {args.budget}")
    only = tuple(args.only.split(",")) if args.only else None
    return GuidanceTuningConfig(**setup_fields(args), budget=args.budget, only=only)
