"""``iam experiment ponder``: options of :mod:`experiments.ponder`."""

from __future__ import annotations

import argparse

from experiments.ponder import HELP, NAME, PonderConfig, run
from iam.cli._common import add_scheduler_argument
from iam.cli.experiments._options import add_heldout_arguments, heldout_fields
from iam.errors import DataError

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_heldout_arguments(parser, max_positions=PonderConfig.max_positions)
    parser.add_argument(
        "--depth", type=int, default=PonderConfig.depth, metavar="D",
        help=f"depth of the plain fast search whose best move is its expected reply (default {PonderConfig.depth})",
    )
    parser.add_argument(
        "--model", metavar="FILE", help="a fitted model of the player (default: a move ranker fitted now)"
    )
    parser.add_argument(
        "--train-positions", type=int, default=PonderConfig.train_positions, metavar="N",
        help="training positions of the ranker fitted when no --model is given "
        f"(default {PonderConfig.train_positions})",
    )
    add_scheduler_argument(parser)


def config(args: argparse.Namespace) -> PonderConfig:
    if args.depth < 1 or args.train_positions < 1:
        raise DataError("--depth and --train-positions must be at least 1")
    return PonderConfig(
        **heldout_fields(args), depth=args.depth, model=args.model, train_positions=args.train_positions
    )
