"""``iam experiment prepare``: options of :mod:`experiments.prepare`."""

from __future__ import annotations

import argparse

from experiments.common import GameSource
from experiments.prepare import GAMES, HELP, NAME, DossierChecks, PrepareExperimentConfig, run
from iam.cli.experiments._options import common_fields
from iam.cli.prepare import add_belief_arguments, add_engine_lines, belief_fields, engine_lines
from iam.errors import DataError
from iam.prepare.dossier import PrepareConfig, ScoringSettings
from iam.prepare.lines import LineSettings

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pgn", metavar="PGN", help="PGN file (default: the bundled Botvinnik games)")
    parser.add_argument("--player", help="player to prepare against (default with the bundled file: Botvinnik)")
    parser.add_argument(
        "--color", choices=("white", "black", "both"), default="both", help="his colour(s) (default both)"
    )
    parser.add_argument(
        "--plies", type=int, default=12, metavar="N", help="plies the prepared lines reach (default 12)"
    )
    parser.add_argument(
        "--entry-ply", type=int, default=4, metavar="N",
        help="a test game enters a prepared line at this ply or later (default 4)",
    )
    parser.add_argument(
        "--opening-moves", type=int, default=10, metavar="N",
        help="his first N moves of each test game are checked (default 10)",
    )
    parser.add_argument(
        "--engine", metavar="PATH", help="UCI engine judging positions (default: the toolkit's own search)"
    )
    parser.add_argument("--engine-depth", type=int, default=12, metavar="D", help="engine depth (default 12)")
    parser.add_argument(
        "--engine-cache", default="iam-engine-cache.sqlite", metavar="FILE",
        help="SQLite file of the engine's analyses",
    )
    add_engine_lines(parser)
    add_belief_arguments(parser)
    parser.add_argument(
        "--search-depth", type=int, default=ScoringSettings().search_depth, metavar="D",
        help=f"the toolkit's search depth without --engine (default {ScoringSettings().search_depth})",
    )
    parser.add_argument("--games", choices=GAMES, default="test",
                        help="test: the dossier from his training games, checked on his test games (default); "
                        "dev: from the other training games, checked on the development games")
    parser.add_argument("--model-cache", metavar="DIR",
                        help="folder keeping the fitted default model, read back by the next run on the same games "
                        "(default: fit every run)")
    parser.add_argument("--resamples", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")


def config(args: argparse.Namespace) -> PrepareExperimentConfig:
    counts = (("--plies", args.plies), ("--opening-moves", args.opening_moves), ("--resamples", args.resamples))
    for option, value in counts:
        if value < 1:
            raise DataError(f"{option} must be at least 1")
    if args.entry_ply < 0:
        raise DataError("--entry-ply must be at least 0")
    dossier = PrepareConfig(
        "",
        colors=("white", "black") if args.color == "both" else (args.color,),
        lines=LineSettings(plies=args.plies),
        scoring=ScoringSettings(
            engine_depth=args.engine_depth, engine_lines=engine_lines(args), search_depth=args.search_depth
        ),
        **belief_fields(args),
    )
    return PrepareExperimentConfig(
        source=GameSource(pgn=args.pgn, player=args.player), dossier=dossier,
        checks=DossierChecks(entry_ply=args.entry_ply, opening_moves=args.opening_moves, resamples=args.resamples),
        games=args.games, model_cache=args.model_cache, **common_fields(args),
    )
