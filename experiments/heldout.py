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

from iam.heldout import DEVELOPMENT_REMAINDER
from iam.player_games import HeldOut

__all__ = ["DEVELOPMENT_REMAINDER", "add_heldout_arguments", "HeldOut", "load_heldout"]



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


def load_heldout(args: argparse.Namespace) -> HeldOut:
    """Read the games named by ``--pgn`` / ``--player`` (DataError on bad input)."""
    from iam.errors import DataError
    from iam.player_games import load_heldout as load

    if getattr(args, "max_positions", None) is not None and args.max_positions < 1:
        raise DataError("--max-positions must be at least 1")
    return load(args.pgn, args.player, quiet=getattr(args, "quiet", False))
