"""How every command that reads a player's games takes them: PGN files and the game filters."""

from __future__ import annotations

import argparse
import io
import logging
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess.pgn

from iam.errors import DataError
from iam.games.filters import GameFilter, add_filter_arguments, filter_from_args, read_filtered
from iam.games.pgn import IngestReport, PlayerGame
from iam.games.player_games import bundled_or_given

__all__ = ["add_game_arguments", "pgn_paths", "read_player_games", "read_pgn_games"]

_PGN_HELP = "PGN files (plain, .gz, .bz2, .xz or .zst)"


def add_game_arguments(
    parser: Any, *, optional: bool = False, player_required: bool = False, player_help: str | None = None
) -> None:
    """Positional PGN files, ``--pgn`` as a synonym (repeatable), and the game filters of :mod:`iam.games.filters`.

    ``optional``: the command falls back on the bundled games when no file is given.
    """
    default = " (default: the bundled games of --player, else Botvinnik's)" if optional else ""
    parser.add_argument("pgn", nargs="*", metavar="PGN", help=_PGN_HELP + default)
    parser.add_argument("--pgn", dest="pgn_option", action="append", default=[], metavar="PGN", help="a PGN file, as the positional PGN (repeatable)")
    add_filter_arguments(parser, player_required=player_required, player_help=player_help)


def pgn_paths(args: argparse.Namespace, *, optional: bool = False) -> list[str]:
    """The PGN files given positionally and with ``--pgn``; DataError when none and the command needs one."""
    paths = [*args.pgn, *args.pgn_option]
    if not paths and not optional:
        raise DataError("give at least one PGN file")
    return paths


def read_player_games(
    args: argparse.Namespace, *, optional: bool = False, quiet: bool = False, **options: Any
) -> tuple[list[PlayerGame], IngestReport, str, GameFilter]:
    """The games the options select: ``(games, report, player, filter)``.

    Without a PGN file (``optional`` commands) the bundled file of ``--player`` is read
    with every spelling its name matches, as the experiments read it.
    """
    paths = pgn_paths(args, optional=optional)
    given = paths or None
    if optional and len(paths) <= 1:
        found, player = bundled_or_given(paths[0] if paths else None, args.player)
    else:
        if not args.player:
            raise DataError("--player is required with a PGN file (whose games should be modelled?)")
        found, player = paths, args.player
    games_filter = filter_from_args(args)
    if games_filter.player != player:
        games_filter = replace(games_filter, player=player)
    games, report = read_filtered(found, games_filter, quiet=quiet, check_names=given is not None, announce=not quiet, **options)
    return games, report, player, games_filter


def read_pgn_games(path: str | Path, skipped: Counter[str] | None = None) -> list[chess.pgn.Game]:
    """Every readable game of a PGN file, whole (headers, comments, variations).

    A game with an illegal or unreadable move is left out and counted in ``skipped``
    by its reason; without ``skipped`` it is an error. DataError when no game is left.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    stream = io.StringIO(text)
    games = []
    number = 0
    logger = logging.getLogger("chess.pgn")  # its errors are collected in game.errors, not printed
    level, logger.level = logger.level, logging.CRITICAL
    try:
        while (game := chess.pgn.read_game(stream)) is not None:
            number += 1
            if game.errors:
                if skipped is None:
                    raise DataError(f"{path}, game {number}: {game.errors[0]}")
                skipped["illegal or unreadable move"] += 1
                continue
            games.append(game)
    finally:
        logger.level = level
    if not games:
        raise DataError(f"no readable PGN game in {path}")
    return games
