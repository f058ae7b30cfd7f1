"""``iam uci``: placeholder registered until the search library lands (issue 3)."""

from __future__ import annotations

import argparse

from iam.errors import IAMError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("uci", help="(not yet available)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    raise IAMError("'iam uci' is not available yet")
