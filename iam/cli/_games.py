"""How every command that reads a player's games takes them: PGN files and the game filters' options
(:func:`filter_from_args` turns them into a :class:`~iam.games.filters.GameFilter`, whose rules live in
:mod:`iam.games.filters`)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from iam.errors import DataError
from iam.games.filters import (
    GameConditions,
    GameFilter,
    parse_date,
    parse_rating,
    parse_time_control,
    read_filtered,
)
from iam.games.pgn import IngestReport, PlayerGame
from iam.games.player_games import bundled_or_given

__all__ = [
    "add_game_arguments",
    "add_filter_arguments",
    "add_header_filter_arguments",
    "add_name_arguments",
    "filter_from_args",
    "pgn_paths",
    "read_player_games",
]

_PGN_HELP = "PGN files (plain, .gz, .bz2, .xz or .zst)"


def add_game_arguments(
    parser: Any, *, optional: bool = False, player_required: bool = False, player_help: str | None = None
) -> None:
    """Positional PGN files, ``--pgn`` as a synonym (repeatable), and the game filters of :mod:`iam.games.filters`.

    ``optional``: the command falls back on the bundled games when no file is given.
    """
    default = " (default: the bundled games of --player, else Botvinnik's)" if optional else ""
    parser.add_argument("pgn", nargs="*", metavar="PGN", help=_PGN_HELP + default)
    parser.add_argument(
        "--pgn", dest="pgn_option", action="append", default=[], metavar="PGN",
        help="a PGN file, as the positional PGN (repeatable)",
    )
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
    if paths and not args.player:
        raise DataError("--player is required with a PGN file (whose games should be modelled?)")
    if optional and len(paths) <= 1:
        found, player = bundled_or_given(paths[0] if paths else None, args.player)
    else:
        found, player = paths, args.player
    games_filter = filter_from_args(args)
    if games_filter.player != player:
        games_filter = replace(games_filter, player=player)
    games, report = read_filtered(
        found, games_filter, quiet=quiet, check_names=given is not None, announce=not quiet, **options
    )
    return games, report, player, games_filter


def add_filter_arguments(parser: Any, *, player_required: bool = False, player_help: str | None = None) -> None:
    """Add ``--player --alias --partial-names --color --since --until --event --opponent --time-control
    --rating --min-plies`` to ``parser``."""
    parser.add_argument(
        "--player",
        required=player_required,
        help=(player_help or "player name as written in the PGN (case-insensitive, whole words)")
        + "; the spellings matched are printed, and names of different people refused (see --partial-names)",
    )
    add_name_arguments(parser)
    parser.add_argument(
        "--color", choices=("white", "black", "any"), default="any",
        help="only the player's games with this colour (default any)",
    )
    add_header_filter_arguments(parser)


def add_name_arguments(parser: Any) -> None:
    """Add ``--alias --partial-names``: the other spellings of the player, and whether different people may share
    his name."""
    parser.add_argument(
        "--alias", action="append", default=[], metavar="NAME", help="another spelling of the same player (repeatable)"
    )
    parser.add_argument(
        "--partial-names",
        action="store_true",
        help="accept games of different people whose names --player matches (default: refused)",
    )


def add_header_filter_arguments(parser: Any) -> None:
    """Add the conditions on a game's headers and length, for commands whose player is not named
    (``--since --until --event --opponent --time-control --rating --min-plies``)."""
    parser.add_argument(
        "--since", metavar="YYYY[.MM[.DD]]", help="only games played on or after this date (default: any date)"
    )
    parser.add_argument(
        "--until", metavar="YYYY[.MM[.DD]]", help="only games played on or before this date (default: any date)"
    )
    parser.add_argument("--event", metavar="TEXT", help="only games whose Event contains TEXT (case-insensitive)")
    parser.add_argument("--opponent", metavar="NAME", help="only games against this opponent (whole words)")
    parser.add_argument(
        "--time-control",
        metavar="TC",
        help="only games of this class, classical, rapid, blitz or bullet (from the TimeControl tag: base + 40 "
        "increments), or with exactly this TimeControl tag (e.g. 180+2)",
    )
    parser.add_argument(
        "--rating", metavar="MIN-MAX", help="only games where the player's rating (WhiteElo/BlackElo) is in MIN-MAX"
    )
    parser.add_argument("--min-plies", type=int, metavar="N", help="only games of at least N plies (half-moves)")


def filter_from_args(args: argparse.Namespace) -> GameFilter:
    """The :class:`GameFilter` of the options :func:`add_filter_arguments` added (ParameterError when wrong)."""
    return GameFilter(
        player=getattr(args, "player", None),
        aliases=tuple(getattr(args, "alias", None) or ()),
        partial_names=bool(getattr(args, "partial_names", False)),
        color=getattr(args, "color", "any"),
        conditions=GameConditions(
            since=parse_date(args.since, "since") if args.since else None,
            until=parse_date(args.until, "until") if args.until else None,
            event=args.event or None,
            opponent=args.opponent or None,
            time_control=parse_time_control(args.time_control) if args.time_control is not None else None,
            rating=parse_rating(args.rating) if args.rating else None,
            min_plies=args.min_plies,
        ),
    )
