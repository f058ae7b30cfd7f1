"""The ``iam`` command line: one module per subcommand, registered here.

Each subcommand module exposes ``register(subparsers)``, which adds its parser and
sets ``run`` (a function ``args -> int``) as the parser default. Each module
imports what it uses at its top, so its dependencies show at a glance.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from iam._install import __version__
from iam.cli._common import check_finite_options, error_message
from iam.errors import IAMError

__all__ = ["main", "build_parser"]

_COMMANDS = (
    "train", "predict", "annotate", "evaluate", "compare", "inspect", "prepare", "identify", "analyse", "prior", "uci",
    "match", "experiment",
)


def build_parser() -> argparse.ArgumentParser:
    """The full ``iam`` parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="iam",
        description="Model a chess opponent from their games, predict their moves, "
        "and search deeper along the lines they are likely to play.",
    )
    parser.add_argument("--version", action="version", version=f"iam {__version__}", help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"iam.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``iam`` console script; returns the process exit code."""
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 must not break a message
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_finite_options(parser, args)
        return int(args.run(args) or 0)
    except IAMError as exc:
        print(f"iam: error: {error_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("iam: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path the user gave that the system refuses (name too long, permissions, ...)
        name = f" ({_short(exc.filename)})" if exc.filename is not None else ""
        print(f"iam: error: {exc.strerror or exc}{name}", file=sys.stderr)
        return 2


def _short(name: object, limit: int = 200) -> str:
    """A file name for a message, its middle left out when it is very long."""
    text = str(name)
    return text if len(text) <= limit else f"{text[: limit // 2]}...{text[-limit // 2 :]}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
