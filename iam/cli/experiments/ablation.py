"""``iam experiment ablation``: options of :mod:`experiments.ablation`."""

from __future__ import annotations

import argparse

from experiments.ablation import HELP, NAME, AblatedRanker, AblationConfig, run
from iam.cli._common import parse_families
from iam.cli.experiments._options import add_heldout_arguments, common_fields, heldout_fields
from iam.errors import IAMError
from iam.evidence.registry import DEFAULT_FAMILIES
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.measure.bootstrap import RESAMPLES

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_heldout_arguments(parser, max_positions=2000)
    parser.add_argument(
        "--families", default=",".join(DEFAULT_FAMILIES), metavar="LIST", help="families of the full ranker"
    )
    parser.add_argument(
        "--search-depth", type=int, default=DEFAULT_SEARCH_DEPTH, metavar="D",
        help=f"depth of the search family (default {DEFAULT_SEARCH_DEPTH})",
    )
    parser.add_argument("--engine", metavar="PATH", help="a UCI engine: adds the engine family")
    parser.add_argument("--engine-depth", type=int, default=8, metavar="D")
    parser.add_argument("--engine-cache", default="iam-engine-cache.sqlite", metavar="FILE")
    parser.add_argument("--train-games", type=int, metavar="N", help="the first N training games (default all)")
    parser.add_argument(
        "--train-positions", type=int, default=4000, metavar="N", help="training positions sampled (default 4000)"
    )
    parser.add_argument("--prior", choices=("population", "none"), default="population")
    parser.add_argument(
        "--resamples", type=int, default=RESAMPLES, metavar="B", help=f"bootstrap resamples (default {RESAMPLES})"
    )


def config(args: argparse.Namespace) -> AblationConfig:
    """The options as a config (IAMError on a bad value)."""
    families = parse_families(args.families, args.engine)
    for option, value in (("--train-positions", args.train_positions), ("--resamples", args.resamples)):
        if value < 1:
            raise IAMError(f"{option} must be at least 1")
    ranker = AblatedRanker(
        families=families,
        search_depth=args.search_depth,
        engine_depth=args.engine_depth,
        train_positions=args.train_positions,
        prior=args.prior,
    )
    common = common_fields(args)  # the runtime's options are checked before --max-positions
    return AblationConfig(
        source=heldout_fields(args)["source"],
        ranker=ranker,
        train_games=args.train_games,
        test_positions=args.max_positions,
        resamples=args.resamples,
        **common,
    )
