"""``iam uci``: run the search as a UCI chess engine on standard input and output."""

from __future__ import annotations

import argparse
from pathlib import Path

from iam.errors import IAMError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "uci",
        help="play as a UCI chess engine (for GUIs and match runners)",
        description="Speak the UCI protocol on stdin/stdout: alpha-beta with move "
        "ordering, quiescence and a transposition table, material and piece-square "
        "evaluation.",
    )
    parser.add_argument(
        "--model",
        metavar="MODEL",
        help="opponent model file; accepted but not used yet (the guided search "
        "arrives in a later version; the engine says so in an info string)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.model is not None and not Path(args.model).is_file():
        raise IAMError(f"model file not found: {args.model}")
    from search.uci import main

    return main(args.model)
