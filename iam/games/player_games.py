"""A player's games, read from given or bundled PGN files and split by the held-out protocol.

:func:`load_heldout` is what every held-out measurement starts from: the player's
games with their protocol numbers (all splits), how the files were read, and the
protocol's views of them (:class:`HeldOut`: training, test, development and
fitting games, as :mod:`iam.games.heldout` defines them).

:func:`population_games` is what every population source (the book, move patterns,
prior and networks fitted on the bundled masters) starts from: a game between two
bundled masters can be a training game in one master's file and a test game in the
other's, and it must not teach the population the test game's moves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import chess

from iam.errors import DataError
from iam.games.bundled import bundled_pgn, default_pgn, manifest
from iam.games.collection import CHUNK_BYTES, CollectionGame, CollectionReport, map_chunks
from iam.games.filters import GameFilter, apply_filter
from iam.games.heldout import development_games, fitting_games, test_games, training_games
from iam.games.pgn import IngestReport, PlayerGame, iter_player_games, name_matches, result_for
from iam.progress import progress
from iam.runtime import Runtime

__all__ = [
    "read_games",
    "bundled_or_given",
    "HeldOut",
    "load_heldout",
    "bundled_masters",
    "game_key",
    "population_games",
    "collection_players",
]


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
        raise DataError("whose games should be modelled? name the player of the PGN file")
    return [str(pgn)], player


@dataclass(frozen=True)
class HeldOut:
    """A player's games (all splits, protocol numbers intact) and how they were read."""

    player: str
    games: list[PlayerGame]
    report: IngestReport

    def __repr__(self) -> str:
        return f"HeldOut({self.player!r}: {len(self.training)} training games, {len(self.test)} test games)"

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
    pgn: str | Path | None = None,
    player: str | None = None,
    *,
    quiet: bool = True,
    games_filter: GameFilter | None = None,
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
    masters: Mapping[str, Sequence[PlayerGame]],
    games: Callable[[Sequence[PlayerGame]], list[PlayerGame]] = training_games,
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


def collection_players(
    paths: Sequence[str | Path],
    games_filter: GameFilter,
    runtime: Runtime,
    *,
    players: Sequence[str] = (),
    top: int = 8,
    min_games: int = 20,
    max_games: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> tuple[dict[str, list[PlayerGame]], CollectionReport]:
    """The games of several players of a large collection, numbered as :mod:`iam.games.pgn` numbers them.

    The players are ``players`` (names matched as a filter's ``player`` matches them), else the
    ``top`` most frequent names among the games that pass ``games_filter`` with at
    least ``min_games`` games each (a first pass over the collection counts them).
    Each player's games are numbered in collection order among every game that names
    him, used or not, so his held-out split is the one ``iam train --player NAME`` on the
    same files would use; ``max_games`` keeps his first N usable games. The work runs
    where ``runtime`` says; the report accounts for every game of the collection.
    """
    if not players:
        counts: Counter[str] = Counter()
        damage: list[str] = []
        for found, report in map_chunks(_name_counts, paths, games_filter, runtime, chunk_bytes=chunk_bytes):
            counts.update(found)
            damage.extend(report.notes)
        players = [name for name, count in counts.most_common() if count >= min_games and name != "?"][:top]
        if not players:
            why = f" ({damage[0]})" if damage else ""  # a damaged file explains it better than the filters
            raise DataError(
                f"no player has {min_games} or more games in {', '.join(map(str, paths))} after the filters{why}"
            )
    names = tuple(dict.fromkeys(players))
    games: dict[str, list[PlayerGame]] = {name: [] for name in names}
    seen = dict.fromkeys(names, 0)
    total = CollectionReport()
    chunks = map_chunks(
        _player_games, paths, games_filter, runtime, arguments=(names,), chunk_bytes=chunk_bytes, every_game=True
    )
    for by_player, report in chunks:
        total.add(report)
        for name, (count, kept) in by_player.items():
            for ordinal, game in kept:
                if max_games is None or len(games[name]) < max_games:
                    games[name].append(replace(game, index=seen[name] + ordinal))
            seen[name] += count
    empty = [name for name, played in games.items() if not played]
    if empty:
        raise DataError(
            f"no usable game of {', '.join(map(repr, empty))} in {', '.join(map(str, paths))} after the filters"
        )
    return games, total


def _name_counts(games: Iterable[CollectionGame]) -> Counter[str]:
    """How many usable games each name (as written) played in a chunk."""
    counts: Counter[str] = Counter()
    for game in games:
        counts.update((game.white, game.black))
    return counts


def _player_games(games: Iterable[CollectionGame], names: Sequence[str]) -> dict[str, tuple[int, list]]:
    """Per player: how many of the chunk's games name him, and his usable ones with their ordinal among those."""
    found: dict[str, tuple[int, list]] = {}
    for game in games:
        for name in names:
            sides = [
                color
                for color, side in ((chess.WHITE, game.white), (chess.BLACK, game.black))
                if name_matches(name, side)
            ]
            if not sides:
                continue
            count, kept = found.get(name, (0, []))
            if len(sides) == 1 and not game.problem:
                kept.append((count, _as_player_game(game, sides[0])))
            found[name] = (count + 1, kept)
    return found


def _as_player_game(game: CollectionGame, color: chess.Color) -> PlayerGame:
    return PlayerGame(
        index=0,
        color=color,
        start_fen=game.start_fen,
        moves=game.moves,
        result=result_for(game.headers.get("Result", "*"), color),
        white=game.white,
        black=game.black,
        event=game.headers.get("Event", ""),
        date=game.headers.get("Date") or game.headers.get("UTCDate", ""),
        tags=dict(game.headers),
    )
