"""``iam experiment stylometry``: options of :mod:`experiments.stylometry`, turned into its config."""

from __future__ import annotations

import argparse

from experiments.stylometry import CONTROL, HELP, NAME, StylometryConfig, run
from iam.cli._common import (
    add_engine_arguments,
    add_scheduler_argument,
    add_scoring_arguments,
    check_distinct_players,
    check_model_weight,
    command_runtime,
)
from iam.cli._games import add_header_filter_arguments
from iam.cli.experiments._options import header_filter
from iam.errors import DataError
from iam.games.bundled import bundled_pgn, default_pgn, manifest
from iam.measure.candidates import CandidateRankers, CandidateScoring, CandidateSettings

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", nargs="+", metavar="NAME", help="players to tell apart (default: every bundled master)"
    )
    parser.add_argument(
        "--pgn", nargs="+", metavar="PGN", help="with --players: one PGN file per player, or one file holding them all"
    )
    parser.add_argument(
        "--k", default="1,5,10,20,50", metavar="LIST", help="sample sizes in games (default 1,5,10,20,50)"
    )
    parser.add_argument(
        "--predictor", default="iam,ranker,repertoire", metavar="LIST",
        help="some of iam,ranker,repertoire (default all three; --engine adds ranker+engine; the population control "
        "always runs)",
    )
    add_scoring_arguments(parser)
    parser.add_argument(
        "--train-games", type=int, metavar="N", help="at most the first N fitting games per player (default all)"
    )
    parser.add_argument(
        "--train-positions", type=int, default=2000, metavar="N", help="training positions per ranker (default 2000)"
    )
    parser.add_argument(
        "--samples", type=int, default=200, metavar="N", help="seeded samples per player and k (default 200)"
    )
    parser.add_argument(
        "--control-deals", type=int, default=3, metavar="N",
        help="random deals of the pooled games the control is fitted on; its figures are over all of them (default 3)",
    )
    parser.add_argument(
        "--max-test-games", type=int, metavar="N",
        help="score at most N test games per player (a seeded sample; default all)",
    )
    parser.add_argument(
        "--max-dev-games", type=int, default=40, metavar="N",
        help="development games per player for the temperature (default 40)",
    )
    parser.add_argument(
        "--positions-per-game", type=int, metavar="N",
        help="score at most N positions per game (a seeded sample; default all)",
    )
    parser.add_argument(
        "--by-decade", action="store_true",
        help="tell a player's decades apart (his games of each decade against his models of the others)",
    )
    parser.add_argument(
        "--min-decade-games", type=int, default=40, metavar="N",
        help="with --by-decade: games a decade needs (default 40)",
    )
    add_engine_arguments(parser)
    add_header_filter_arguments(parser)
    add_scheduler_argument(parser)


def config(args: argparse.Namespace) -> StylometryConfig:
    """The experiment's config from the parsed options (DataError when they are wrong)."""
    ks = _integers(args.k, "--k")
    predictors = tuple(p.strip() for p in args.predictor.split(",") if p.strip())
    if not predictors or any(p not in ("iam", "ranker", "repertoire") for p in predictors):
        raise DataError(f"--predictor takes some of iam,ranker,repertoire, not {args.predictor!r}")
    if args.engine and "ranker" in predictors:
        predictors = (*predictors, "ranker+engine")
    players = _players(args)
    check_model_weight(args)
    _check_counts(args)
    candidates = CandidateSettings(
        rankers=CandidateRankers(train_positions=args.train_positions, engine_depth=args.engine_depth),
        scoring=CandidateScoring(
            repertoire=not args.no_repertoire, model_weight=args.model_weight,
            positions_per_game=args.positions_per_game,
        ),
        train_games=args.train_games,
        max_dev_games=args.max_dev_games,
        ks=ks,
        games_filter=header_filter(args),
        seed=args.seed,
        runtime=command_runtime(args),
    )
    return StylometryConfig(
        players=players,
        candidates=candidates,
        predictors=(*predictors, CONTROL),
        samples=args.samples,
        control_deals=args.control_deals,
        max_test_games=args.max_test_games,
        by_decade=args.by_decade,
        min_decade_games=args.min_decade_games,
        quiet=args.quiet,
    )


def _players(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The candidates as ``(name, PGN file)``: ``--players``, else the bundled masters (DataError when wrong)."""
    if args.pgn and not args.players:
        raise DataError("--pgn needs --players (whose games are in the files)")
    if args.players:
        check_distinct_players(args.players)
        if not args.pgn:
            raise DataError("--players needs --pgn (one file per player, or one file holding them all)")
        if len(args.pgn) not in (1, len(args.players)):
            raise DataError("--pgn takes one file per player, or one file holding all their games")
        files = args.pgn if len(args.pgn) == len(args.players) else args.pgn * len(args.players)
        return tuple(zip(args.players, files))
    if args.by_decade:
        return ((manifest()[0].player, str(default_pgn())),)
    return tuple((entry.player, str(bundled_pgn(entry.file))) for entry in manifest())


def _check_counts(args: argparse.Namespace) -> None:
    """DataError for a count option below 1 (those left unset are not checked)."""
    counts = (
        ("--train-games", args.train_games),
        ("--train-positions", args.train_positions),
        ("--samples", args.samples),
        ("--control-deals", args.control_deals),
        ("--max-test-games", args.max_test_games),
        ("--max-dev-games", args.max_dev_games),
        ("--positions-per-game", args.positions_per_game),
        ("--min-decade-games", args.min_decade_games),
    )
    for option, value in counts:
        if value is not None and value < 1:
            raise DataError(f"{option} must be at least 1")


def _integers(text: str, option: str) -> tuple[int, ...]:
    try:
        values = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise DataError(f"{option} takes whole numbers separated by commas, not {text!r}") from None
    if not values or values[0] < 1:
        raise DataError(f"{option} takes whole numbers of at least 1, not {text!r}")
    return values
