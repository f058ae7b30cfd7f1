"""The held-out data every opponent-model experiment runs on.

Options ``--pgn PGN --player NAME`` (default: the bundled Botvinnik games) and
``--max-positions N``; the games come with their protocol numbers, so the split of
SPEC.md (game ``i`` is a test game when ``i % 5 == 4``) is the same everywhere.

Choosing an experiment's settings must never look at test games. For that, the
training games are split once more: training game ``i`` is a *development* game when
``i % 5 == 3``; a setting is chosen on positions of development games with a model
fitted on the other training games (:attr:`HeldOut.development`,
:attr:`HeldOut.fitting`), and only then measured on the test games.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from iam.pgn import IngestReport, PlayerGame

__all__ = ["DEVELOPMENT_REMAINDER", "add_heldout_arguments", "HeldOut", "load_heldout"]

DEVELOPMENT_REMAINDER = 3
"""Training game ``i`` is a development game when ``i % 5 == DEVELOPMENT_REMAINDER``."""


def add_heldout_arguments(parser: argparse.ArgumentParser, *, max_positions: int | None = None) -> None:
    """``--pgn``, ``--player`` and ``--max-positions`` (with this experiment's default cap)."""
    parser.add_argument("--pgn", metavar="PGN", help="PGN file (default: the bundled Botvinnik games)")
    parser.add_argument("--player", help="player to model (default with the bundled file: Botvinnik)")
    cap = "all" if max_positions is None else str(max_positions)
    parser.add_argument(
        "--max-positions",
        type=int,
        default=max_positions,
        metavar="N",
        help=f"use at most N test positions, sampled with --seed (default {cap})",
    )


@dataclass(frozen=True)
class HeldOut:
    """A player's games (all splits, protocol numbers intact) and how they were read."""

    player: str
    games: list[PlayerGame]
    report: IngestReport

    @property
    def training(self) -> list[PlayerGame]:
        return [game for game in self.games if game.split == "train"]

    @property
    def test(self) -> list[PlayerGame]:
        return [game for game in self.games if game.split == "test"]

    @property
    def development(self) -> list[PlayerGame]:
        """Training games set aside for choosing settings (never test games)."""
        return [game for game in self.training if _is_development(game)]

    @property
    def fitting(self) -> list[PlayerGame]:
        """The training games that are not development games, for the model to tune with."""
        return [game for game in self.training if not _is_development(game)]


def _is_development(game: PlayerGame) -> bool:
    from iam.pgn import TEST_EVERY

    return game.index % TEST_EVERY == DEVELOPMENT_REMAINDER


def load_heldout(args: argparse.Namespace) -> HeldOut:
    """Read the games named by ``--pgn`` / ``--player`` (DataError on bad input)."""
    from iam.cli._common import bundled_or_given, read_games
    from iam.errors import DataError

    if getattr(args, "max_positions", None) is not None and args.max_positions < 1:
        raise DataError("--max-positions must be at least 1")
    paths, player = bundled_or_given(args.pgn, args.player)
    games, report = read_games(paths, player=player, quiet=getattr(args, "quiet", False))
    held = HeldOut(player, games, report)
    if not held.training or not held.test:
        raise DataError(f"{player} needs at least one training and one test game (found {len(games)} games)")
    return held
