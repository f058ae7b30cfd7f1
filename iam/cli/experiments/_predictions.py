"""Options of the prediction experiments (belief bands, learning curve)."""

from __future__ import annotations

import argparse
from typing import Any

from experiments.predictions import MAX_RESAMPLES
from iam.cli._common import add_scheduler_argument
from iam.cli.experiments._options import add_heldout_arguments, heldout_fields
from iam.errors import DataError
from iam.games.heldout import parse_sizes
from iam.measure.bootstrap import RESAMPLES

__all__ = ["add_prediction_arguments", "prediction_fields", "sizes_text"]


def add_prediction_arguments(parser: argparse.ArgumentParser, *, train_games: str) -> None:
    """``--pgn --player --max-positions --train-games --belief --predictor --resamples``."""
    add_heldout_arguments(parser)
    add_scheduler_argument(parser)
    parser.add_argument(
        "--train-games",
        default=train_games,
        metavar="LIST",
        help=f"training sizes, e.g. 12,80,all (default {train_games}); sizes above the "
        "number of training games become all of them",
    )
    parser.add_argument("--belief", choices=("learned", "rules"), default="learned", help="iam: the belief to evaluate")
    parser.add_argument(
        "--predictor",
        choices=("iam", "ranker"),
        default="iam",
        help="iam: the source notes' chunks (default here, unlike 'iam train', whose default is the "
        "ranker: the published belief-band and learning-curve tables are the IAM model's, and this default "
        "reproduces them); ranker: the move ranker (pure Python; the learning curve adds it without its population "
        "prior, as a control)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=RESAMPLES,
        metavar="B",
        help=f"bootstrap resamples of the test games (default {RESAMPLES}, at most {MAX_RESAMPLES:,})",
    )


def prediction_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The fields of :class:`~experiments.predictions.PredictionConfig` (DataError on bad sizes or resamples)."""
    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise DataError(f"--resamples must be between 1 and {MAX_RESAMPLES:,}, not {args.resamples}")
    return {
        **heldout_fields(args),
        "train_games": tuple(parse_sizes(args.train_games)),
        "belief": args.belief,
        "predictor": args.predictor,
        "resamples": args.resamples,
    }


def sizes_text(sizes: tuple[int | None, ...]) -> str:
    """``(12, None)`` -> ``"12,all"``: a config's default sizes as the option's default."""
    return ",".join("all" if size is None else str(size) for size in sizes)
