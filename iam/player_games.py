"""A player's games, read from given or bundled PGN files and split by the held-out protocol.

:func:`load_heldout` is what every held-out measurement starts from: the player's
games with their protocol numbers (all splits), how the files were read, and the
protocol's views of them (:class:`HeldOut`: training, test, development and
fitting games, as :mod:`iam.heldout` defines them).

:func:`population_games` is what every population source (the book, move patterns,
prior and networks fitted on the bundled masters) starts from: a game between two
bundled masters can be a training game in one master's file and a test game in the
other's, and it must not teach the population the test game's moves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iam.bundled import bundled_pgn, default_pgn, manifest
from iam.errors import DataError
from iam.filters import GameFilter, apply_filter
from iam.heldout import development_games, fitting_games, test_games, training_games
from iam.pgn import IngestReport, PlayerGame, iter_player_games, name_matches
from iam.progress import progress

__all__ = ["read_games", "bundled_or_given", "HeldOut", "load_heldout", "bundled_masters", "game_key", "population_games"]


def read_games(
    paths: Sequence[str | Path], *, player: str, quiet: bool = False, **options: Any
) -> tuple[list[PlayerGame], IngestReport]:
    """The player's games from ``paths`` with a progress bar; returns ``(games, report)``."""
    report = IngestReport()
    stream = iter_player_games(paths, player=player, report=report, **options)
    games = list(progress(stream, quiet=quiet, desc="reading games", unit=" games"))
    return games, report


def bundled_or_given(pgn: str | Path | None, player: str | None) -> tuple[list[str], str]:
    """The PGN paths and player when a command may fall back on the bundled data.

    Without a PGN file: the bundled file of ``player`` when the manifest has one
    (``player="Capablanca"``), else the default file (Botvinnik's games, in which
    his opponents can be modelled too).
    """
    if pgn is None:
        if not player:
            return [str(default_pgn())], manifest()[0].player
        for entry in manifest():
            if name_matches(player, entry.player) or name_matches(entry.player, player):
                return [str(bundled_pgn(entry.file))], player
        return [str(default_pgn())], player
    if not player:
        raise DataError("--player is required with a PGN file (whose games should be modelled?)")
    return [str(pgn)], player


@dataclass(frozen=True)
class HeldOut:
    """A player's games (all splits, protocol numbers intact) and how they were read."""

    player: str
    games: list[PlayerGame]
    report: IngestReport

    @property
    def training(self) -> list[PlayerGame]:
        return training_games(self.games)

    @property
    def test(self) -> list[PlayerGame]:
        return test_games(self.games)

    @property
    def development(self) -> list[PlayerGame]:
        """Training games set aside for choosing settings (never test games)."""
        return development_games(self.games)

    @property
    def fitting(self) -> list[PlayerGame]:
        """The training games that are not development games, for the model to tune with."""
        return fitting_games(self.games)


def load_heldout(
    pgn: str | Path | None = None, player: str | None = None, *, quiet: bool = True, games_filter: GameFilter | None = None,
) -> HeldOut:
    """The games of ``player`` in ``pgn`` (default: the bundled games); DataError on bad input.

    ``games_filter``'s conditions on headers and length leave games out (counted in the
    report) without renumbering the rest: a game's split stays what it was.

    >>> held = load_heldout()
    >>> held.player, len(held.training), len(held.test)
    ('Botvinnik', 713, 178)
    """
    paths, player = bundled_or_given(pgn, player)
    games, report = read_games(paths, player=player, quiet=quiet)
    if games_filter is not None:
        games = list(apply_filter(games, games_filter, report))
    held = HeldOut(player, games, report)
    if not held.training or not held.test:
        raise DataError(f"{player} needs at least one training and one test game (found {len(games)} games)")
    return held


def bundled_masters() -> dict[str, list[PlayerGame]]:
    """Every bundled master's games (all splits, protocol numbers intact), by name, in manifest order."""
    masters = {}
    for entry in manifest():
        masters[entry.player], _ = read_games([bundled_pgn(entry.file)], player=entry.player, quiet=True)
    return masters


def game_key(game: PlayerGame) -> tuple[str, tuple[str, ...]]:
    """What makes two records the same game: its start and its moves (names are spelled many ways)."""
    return game.start_fen, tuple(move.uci() for move in game.moves)


def population_games(
    masters: Mapping[str, Sequence[PlayerGame]], games: Callable[[Sequence[PlayerGame]], list[PlayerGame]] = training_games
) -> tuple[dict[str, list[PlayerGame]], dict[str, int]]:
    """Each master's ``games`` (his training games by default) less any that is a test game of any master.

    Returns the games by master and how many of each master's were dropped, for the
    caller to report. Only test games are matched: a development game shared by two
    files stays (settings are chosen on it, nothing is measured on it).
    """
    tests = {game_key(game) for played in masters.values() for game in test_games(played)}
    kept: dict[str, list[PlayerGame]] = {}
    dropped: dict[str, int] = {}
    for name, played in masters.items():
        chosen = games(played)
        kept[name] = [game for game in chosen if game_key(game) not in tests]
        dropped[name] = len(chosen) - len(kept[name])
    return kept, dropped
