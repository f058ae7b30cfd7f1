"""Options shared by ply gain and guidance tuning: data, model, watched line, reference engine."""

from __future__ import annotations

import argparse
from typing import Any

from experiments.guided_depth import DEFAULT_POSITIONS, LINE_PLIES, POLICY_POSITIONS, LineJudge, PlayerModels
from iam.cli._common import add_scheduler_argument
from iam.cli.experiments._options import add_heldout_arguments, heldout_fields
from iam.errors import DataError
from iam.games.heldout import parse_sizes

__all__ = ["add_setup_arguments", "setup_fields"]


def add_setup_arguments(
    parser: argparse.ArgumentParser, *, positions: bool = True, max_positions: int = DEFAULT_POSITIONS
) -> None:
    """Data, model, watched line and reference engine (and, for ply gain, where the positions come from)."""
    add_heldout_arguments(parser, max_positions=max_positions)
    parser.add_argument(
        "--train-games", default="all", help="train the model on the first N training games (default all)"
    )
    if positions:
        parser.add_argument(
            "--positions",
            choices=("test", "dev"),
            default="test",
            help="test: positions of the test games, model fitted on training games (default); "
            "dev: positions of development games, model fitted on the other training games",
        )
    parser.add_argument(
        "--line-plies", type=int, default=LINE_PLIES,
        help=f"plies of the actual continuation watched (default {LINE_PLIES})",
    )
    parser.add_argument(
        "--reference-depth", type=int, default=12, help="stockfish depth for judging differing moves (default 12)"
    )
    parser.add_argument("--no-reference", action="store_true", help="do not use stockfish even if it is installed")
    add_scheduler_argument(parser)


def setup_fields(
    args: argparse.Namespace, *, policy_positions: int = POLICY_POSITIONS, ranker_model: str | None = None
) -> dict[str, Any]:
    """The fields of :class:`~experiments.guided_depth.SetupConfig` (DataError on a bad ``--train-games``), its
    models with ``policy_positions`` and ``ranker_model``."""
    sizes = parse_sizes(args.train_games)
    if len(sizes) != 1:
        raise DataError("--train-games takes one size here (a number or 'all')")
    if args.line_plies < 1:
        raise DataError(f"--line-plies must be at least 1, not {args.line_plies}")
    if args.reference_depth < 1:
        raise DataError(f"--reference-depth must be at least 1, not {args.reference_depth}")
    return {
        **heldout_fields(args),
        "models": PlayerModels(train_games=sizes[0], policy_positions=policy_positions, ranker_model=ranker_model),
        "judging": LineJudge(
            line_plies=args.line_plies, reference_depth=args.reference_depth, reference=not args.no_reference
        ),
    }
