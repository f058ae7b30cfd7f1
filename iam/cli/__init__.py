"""The ``iam`` command line: one module per subcommand, registered here.

Each subcommand module (``iam.cli.<name>``, or the module and function :data:`_REGISTERED_IN` names) exposes
``register(subparsers)``, which adds its parser and sets ``run`` (a function ``args -> int``)
as the parser default. Only the command that
runs is registered in full (its module imported); the others are listed by name and
summary (:data:`_COMMANDS`), so that ``iam --help``, ``iam --version`` and a command that
must answer at once (``iam uci``) do not wait for every command's libraries. Every
command line is checked once parsed: no number option may be NaN
(:func:`check_finite_options`; :func:`number_or_infinity` types the ones that take ``inf``).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from collections.abc import Collection, Sequence

from iam._install import __version__
from iam.errors import IAMError

__all__ = ["main", "build_parser", "number_or_infinity", "check_finite_options"]

_COMMANDS = {
    "train": "learn a model of a player from PGN files",
    "predict": "predict the modelled player's next move",
    "annotate": "comment every move of the modelled player with the model's belief in it",
    "evaluate": "measure a saved model on the games you give (belief-band table)",
    "compare": "compare predictors retrained at several training sizes on held-out games",
    "inspect": "describe a model: what it learned and what it weighs",
    "prepare": "a dossier against a player: his repertoire, costly habits and lines prepared for him",
    "drill": "drill the lines a dossier prepared: you play our side, he answers as he is believed to",
    "identify": "who played these games? rank candidate models by the likelihood of the moves",
    "analyse": "judge a player's moves with a UCI engine: loss and rank of every move, as CSV",
    "prior": "build a population prior for the move ranker",
    "uci": "play as a UCI chess engine (for GUIs and match runners)",
    "play": "play a game in the terminal against the imitation of a player (his sparring partner)",
    "match": "play two UCI engines against each other (ours is 'iam uci')",
    "evolve": "evolve the chess search's piece values or square bonuses by self-play",
    "experiment": "run an experiment (node counts, ...) and write its tables and plots",
}
"""Each subcommand's name and the summary ``iam --help`` lists (its module's ``help``, which a test holds equal)."""
_REGISTERED_IN = {"play": ("iam.cli.uci", "register_play"), "evolve": ("iam.cli.evolution.evolve", "register")}
"""Commands not registered by ``iam.cli.<name>.register``: (module, function). ``play`` is the imitating engine's;
``evolve`` lives in a subpackage."""


def number_or_infinity(text: str) -> float:
    """An option's type for a number where ``inf`` means "no bound" (NaN is still refused)."""
    return float(text)


def check_finite_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """IAMError for NaN in any number option, or an infinity in one not typed :func:`number_or_infinity`.

    Run on every command line once it is parsed, so no option of any command can carry
    a NaN into the work (it compares false with every bound a check could set).
    """
    values = vars(args)
    for action in _actions(parser):
        value = values.get(action.dest)
        if action.type in (float, number_or_infinity) and isinstance(value, float) and not math.isfinite(value):
            if math.isnan(value) or action.type is float:
                raise IAMError(f"{action.option_strings[-1]} must be a finite number, not {value}")


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every option of ``parser`` and of its subcommands' parsers, recursively."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found.extend(_actions(child))
        elif action.option_strings:
            found.append(action)
    return found


def _top_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iam",
        description="Model a chess opponent from their games, predict their moves, "
        "and search deeper along the lines they are likely to play.",
    )
    parser.add_argument("--version", action="version", version=f"iam {__version__}", help="print the version and exit")
    return parser


def build_parser(full: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``iam`` parser: the subcommands of ``full`` registered in full (None: every one), the others
    by name and summary only."""
    parser = _top_parser()
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in _COMMANDS.items():
        if full is None or name in full:
            module, function = _REGISTERED_IN.get(name, (f"iam.cli.{name}", "register"))
            getattr(importlib.import_module(module), function)(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option (the top level's take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def _withdraw_phase() -> None:
    """Drop a phase line not yet said, so that what follows stands alone (see :mod:`iam.progress`)."""
    progress = sys.modules.get("iam.progress")
    if progress is not None:
        progress.withdraw()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``iam`` console script; returns the process exit code."""
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 must not break a message
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--version"]:
        _top_parser().parse_args(argv)
    try:  # an interrupt while the command's libraries load (seconds on a busy machine) is one line too
        command = _command(argv)
        parser = build_parser(full=() if command is None else (command,))
        args = parser.parse_args(argv)
        check_finite_options(parser, args)
        return int(args.run(args) or 0)
    except IAMError as exc:
        from iam.cli._common import error_message

        _withdraw_phase()
        print(f"iam: error: {error_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _withdraw_phase()
        print("iam: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path the user gave that the system refuses (name too long, permissions, ...)
        name = f" ({_short(exc.filename)})" if exc.filename is not None else ""
        _withdraw_phase()
        print(f"iam: error: {exc.strerror or exc}{name}", file=sys.stderr)
        return 2
    finally:
        _withdraw_phase()  # the work is over: a phase not yet said stays unsaid


def _short(name: object, limit: int = 200) -> str:
    """A file name for a message, its middle left out when it is very long."""
    text = str(name)
    return text if len(text) <= limit else f"{text[: limit // 2]}...{text[-limit // 2 :]}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
