"""Options several experiments share: the held-out data, and the settings every experiment takes."""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from experiments.common import GameSource
from iam.cli._common import command_runtime
from iam.cli._games import add_header_filter_arguments, filter_from_args
from iam.errors import DataError
from iam.games.filters import GameFilter

__all__ = ["add_common_arguments", "add_heldout_arguments", "as_options", "common_fields", "heldout_fields"]


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every experiment takes."""
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print the JSON payload on stdout")
    parser.add_argument("--out", metavar="DIR", help="write CSV, JSON, markdown and PNG files here")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars on stderr")


def add_heldout_arguments(parser: argparse.ArgumentParser, *, max_positions: int | None = None) -> None:
    """``--pgn``, ``--player``, the header filters and ``--max-positions`` (with this experiment's default cap)."""
    parser.add_argument("--pgn", metavar="PGN", help="PGN file (default: the bundled Botvinnik games)")
    parser.add_argument("--player", help="player to model (default with the bundled file: Botvinnik)")
    add_header_filter_arguments(parser)
    cap = "all" if max_positions is None else str(max_positions)
    parser.add_argument(
        "--max-positions",
        type=int,
        default=max_positions,
        metavar="N",
        help=f"use at most N test positions, sampled with --seed (default {cap})",
    )


def common_fields(args: argparse.Namespace) -> dict[str, Any]:
    """``seed``, ``runtime`` (``--jobs``, ``--scheduler``, the engine's options) and ``quiet`` of
    :class:`~experiments.common.ExperimentConfig`."""
    return {"seed": args.seed, "runtime": command_runtime(args), "quiet": args.quiet}


def heldout_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The fields of :class:`~experiments.common.HeldOutConfig` from the options.

    DataError on a bad ``--max-positions``.
    """
    if args.max_positions is not None and args.max_positions < 1:
        raise DataError(f"--max-positions must be at least 1, not {args.max_positions}")
    games_filter = filter_from_args(args)
    source = GameSource(
        pgn=args.pgn, player=args.player, games_filter=None if games_filter == GameFilter() else games_filter
    )
    return {**common_fields(args), "source": source, "max_positions": args.max_positions}


def header_filter(args: argparse.Namespace) -> GameFilter | None:
    """The conditions of :func:`~iam.cli._games.add_header_filter_arguments` (None when none is set)."""
    games_filter = replace(filter_from_args(args), player=None, aliases=(), partial_names=False, color="any")
    return None if games_filter == GameFilter() else games_filter


def as_options(message: str, options: Mapping[str, str]) -> str:
    """A config's error ``message`` with the fields it names (the keys of ``options``) written as their options.

    Only the part before the offending value (``", not ..."``) is rewritten, so a value is shown as given.

    >>> as_options("games must be at least 1, not 0", {"games": "--games"})
    '--games must be at least 1, not 0'
    """
    head, sep, tail = message.partition(", not ")
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, options)) + r")\b")
    return pattern.sub(lambda found: options[found.group(1)], head) + sep + tail
