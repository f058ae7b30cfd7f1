"""``iam drill``: practise the lines a dossier prepared, his replies drawn from his beliefs, on a spaced schedule.

A package of its own so that the command-line package keeps its count of modules.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from iam.errors import DataError
from iam.prepare.drill import INTERVALS_DAYS, SCHEDULE_FILE, drill

__all__ = ["register", "run", "parse_now"]

HELP = "drill the lines a dossier prepared: you play our side, he answers as he is believed to"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "drill",
        help=HELP,
        description="Drill the prepared lines in a folder written by 'iam prepare': you type our moves (SAN or "
        "UCI), he answers with replies drawn from his beliefs, a mistake shows the prepared move. Which positions "
        f"come back when is decided by Leitner boxes (intervals {', '.join(map(str, INTERVALS_DAYS))} days; a "
        f"mistake comes back at once) kept in {SCHEDULE_FILE} in the folder. Type 'quit' to stop.",
    )
    parser.add_argument("folder", metavar="DOSSIER_FOLDER", help="folder written by iam prepare --out")
    parser.add_argument("--color", choices=("white", "black", "both"), default="both",
                        help="his colour(s) to drill against (default both)")
    parser.add_argument("--lines", type=int, default=10, metavar="N", help="walks through the lines at most "
                        "(default 10)")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="seed of his replies (default: from the session's clock)")
    parser.add_argument("--now", metavar="TIME",
                        help="the session's clock, ISO 8601 such as 2026-11-28T20:00 (default: the current time)")
    parser.set_defaults(run=run)


def parse_now(text: str | None) -> datetime:
    """``--now`` as an aware datetime (UTC when no zone is given); the current time for None."""
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise DataError(f"--now must be a time such as 2026-11-28T20:00, not {text!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def run(args: argparse.Namespace) -> int:
    if args.lines < 1:
        raise DataError(f"--lines must be at least 1, not {args.lines}")
    now = parse_now(args.now)
    seed = args.seed if args.seed is not None else int(now.timestamp())
    colors = ("white", "black") if args.color == "both" else (args.color,)
    summary = drill(args.folder, ask=_ask, say=print, now=now, seed=seed, colors=colors, lines=args.lines)
    print(
        f"{summary.walks} lines, {summary.right} right, {summary.wrong} wrong; {summary.due_left} positions still due",
        file=sys.stderr,
    )
    return 0
