"""``iam evaluate``: placeholder registered until the opponent model lands (issue 2)."""

from __future__ import annotations

import argparse

from iam.errors import IAMError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("evaluate", help="(not yet available)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    raise IAMError("'iam evaluate' is not available yet")
