"""Whose moves to read in games of an unknown player: a side given, or the name common to all.

``auto`` looks for the one player name that appears in every game (as White or
Black) and reads that player's side of each game; when no name, or more than one,
is common to all games (a single game, a match between the same two players), the
side cannot be determined and the caller must name it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from iam.errors import DataError, ParameterError
from iam.games.pgn import IngestReport, PlayerGame, load_player_games, read_game_names

__all__ = ["Side", "SIDES", "common_player", "side_games"]

Side = Literal["white", "black", "auto"]
SIDES: tuple[str, ...] = ("white", "black", "auto")


def common_player(names: Sequence[tuple[str, str]]) -> str:
    """The one name present in every game's (White, Black); DataError if none or several are.

    >>> common_player([("Tal", "Petrosian"), ("Spassky", "Tal")])
    'Tal'
    """
    usable = [{name.strip() for name in pair if name.strip() not in ("", "?")} for pair in names]
    common = set.intersection(*usable) if usable else set()
    if len(common) == 1:
        return common.pop()
    if not common:
        raise ParameterError(
            "side",
            "auto",
            "white or black",
            reason=f"cannot determine the side: no player name is common to all {len(names)} games",
        )
    both = " and ".join(repr(name) for name in sorted(common))
    raise ParameterError(
        "side", "auto", "white or black", reason=f"cannot determine the side: {both} both play in every game"
    )


def side_games(paths: Sequence[str | Path], side: str) -> tuple[list[PlayerGame], IngestReport, str]:
    """The games of ``paths`` seen from one side, how they were read, and whose side it is.

    ``side`` is ``white``, ``black`` or ``auto`` (see the module). Games that cannot
    be used are skipped with their reason in the report; DataError when none is left.
    """
    if side not in SIDES:
        raise ParameterError("side", side, f"one of {', '.join(SIDES)}")
    if side == "auto":
        player = common_player(read_game_names(paths))
        games, report = load_player_games(paths, player=player)
    else:
        player = f"the {side} player"
        games, report = load_player_games(paths, player=None, color=side)
    if not games:
        raise DataError(f"no usable game in {', '.join(map(str, paths))} ({'; '.join(report.summary_lines()[1:])})")
    return games, report, player
