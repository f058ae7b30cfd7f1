"""``iam identify``: which of several players' models best explains the moves in some games."""

from __future__ import annotations

import argparse
import sys

from iam.cli._common import (
    add_engine_arguments,
    add_quiet,
    add_scheduler_argument,
    add_scoring_arguments,
    check_distinct_players,
    check_engine_timeout,
    check_model_weight,
    check_seed,
    command_runtime,
    print_json,
    progress,
)
from iam.cli._games import add_header_filter_arguments, filter_from_args
from iam.errors import DataError
from iam.games.filters import apply_filter
from iam.games.sides import side_games
from iam.measure.candidates import CandidateRankers, CandidateScoring, CandidateSettings, trained_candidates
from iam.measure.identify import check_candidates, identify
from iam.measure.predictors import load_predictor
from iam.progress import phase
from iam.runtime import Runtime


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "identify",
        help="who played these games? rank candidate models by the likelihood of the moves",
        description="Score one player's moves in GAMES under each candidate model (model files, or models "
        "trained now from --players and --pgn), rank the candidates by log-likelihood, give each a "
        "probability (a softmax of the log-likelihoods divided by a temperature: fitted on development "
        "games with --players, else --temperature) and show the positions that weighed most for the winner.",
    )
    parser.add_argument("games", nargs="+", metavar="GAMES", help="PGN files with the games to identify")
    parser.add_argument(
        "--models", nargs="+", metavar="MODEL", help="candidate model files (all IAM models or all move rankers)"
    )
    parser.add_argument(
        "--players", nargs="+", metavar="NAME", help="candidates trained now on their training games (with --pgn)"
    )
    parser.add_argument(
        "--pgn", nargs="+", metavar="PGN", help="with --players: one PGN file per player, or one file holding them all"
    )
    parser.add_argument(
        "--predictor", choices=("ranker", "iam"), default="ranker",
        help="with --players: the kind of model trained (default ranker)",
    )
    parser.add_argument(
        "--train-games", type=int, metavar="N", help="with --players: at most the first N fitting games per player"
    )
    parser.add_argument(
        "--train-positions", type=int, default=2000, metavar="N",
        help="with --players: training positions per ranker (default 2000)",
    )
    parser.add_argument(
        "--side", choices=("white", "black", "auto"), default="auto",
        help="whose moves: White's, Black's, or (auto) the player named in every game",
    )
    parser.add_argument(
        "--temperature", type=float, metavar="T",
        help="with --models: temperature of the probabilities (default 1: plain Bayes, over-confident)",
    )
    parser.add_argument(
        "--max-positions", type=int, metavar="N", help="score at most N positions per game (a seeded sample)"
    )
    add_scoring_arguments(parser)
    parser.add_argument(
        "--top", type=int, default=5, metavar="N", help="show the N positions that weighed most (default 5)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    add_scheduler_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_header_filter_arguments(parser)
    add_engine_arguments(parser)
    add_quiet(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_seed(args.seed)
    check_engine_timeout(args)
    runtime = command_runtime(args)
    _check_options(args)
    games, report, player = side_games(args.games, args.side)
    games = list(apply_filter(games, filter_from_args(args), report))
    if not games:
        raise DataError(f"no game to identify is left by the filters ({'; '.join(report.summary_lines()[1:])})")
    phase("reading the candidates' models" if args.models else "training the candidates", quiet=args.quiet)
    names, models, temperature, fitted = _candidates(args, runtime)
    try:
        bar = None if args.quiet else (
            lambda items, total: progress(items, total=total, desc="scoring the games", unit=" pieces")
        )
        result = identify(
            games, models, names, temperature=temperature, cap=args.max_positions, repertoire=not args.no_repertoire,
            model_weight=args.model_weight, runtime=runtime, progress=bar,
        )
    except ValueError as exc:
        raise DataError(str(exc)) from None
    finally:
        for model in models:
            model.close()
    _print(result, report, player, fitted, args)
    if report.skipped_total and not args.quiet and not args.json:
        print(f"skipped {report.skipped_total} games: {dict(report.skipped)}", file=sys.stderr)
    return 0


def _check_options(args: argparse.Namespace) -> None:
    if bool(args.models) == bool(args.players):
        raise DataError("name the candidates with --models MODEL... or with --players NAME... --pgn PGN...")
    if args.players and not args.pgn:
        raise DataError("--players needs --pgn (the files their models are trained on)")
    if args.players and len(args.pgn) not in (1, len(args.players)):
        raise DataError("--pgn takes one file per player, or one file holding all their games")
    if args.players:
        check_distinct_players(args.players)
    if args.temperature is not None and (args.players or not 0 < args.temperature < float("inf")):
        raise DataError("--temperature must be a positive number, and is fitted on development games with --players")
    check_model_weight(args)
    counts = (
        ("--max-positions", args.max_positions),
        ("--top", args.top),
        ("--train-positions", args.train_positions),
        ("--train-games", args.train_games),
    )
    for option, value in counts:
        if value is not None and value < 1:
            raise DataError(f"{option} must be at least 1")


def _candidates(args: argparse.Namespace, runtime: Runtime) -> tuple[list[str], list, float, bool]:
    """(names, models, temperature, whether it was fitted) from model files or from --players."""
    if args.models:
        models = [load_predictor(path, runtime=runtime) for path in args.models]
        try:
            check_candidates(models)
        except ValueError as exc:
            raise DataError(str(exc)) from None
        names = [str(m.player_ or path) for m, path in zip(models, args.models)]
        if len(set(names)) < len(names):
            names = [f"{name} ({path})" for name, path in zip(names, args.models)]
        return names, models, args.temperature or 1.0, False

    files = args.pgn if len(args.pgn) == len(args.players) else args.pgn * len(args.players)
    predictor = "ranker+engine" if args.predictor == "ranker" and args.engine else args.predictor
    settings = CandidateSettings(
        rankers=CandidateRankers(train_positions=args.train_positions, engine_depth=args.engine_depth),
        scoring=CandidateScoring(repertoire=not args.no_repertoire, model_weight=args.model_weight),
        train_games=args.train_games,
        seed=args.seed,
        runtime=runtime,
    )
    try:
        names, models, temperature = trained_candidates(predictor, tuple(zip(args.players, files)), settings)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    return names, models, temperature, True


def _print(result, report, player: str, fitted: bool, args: argparse.Namespace) -> None:
    table = result.table()
    decisive = result.decisive_positions(args.top)
    how = (
        "fitted on development games" if fitted
        else ("given" if args.temperature else "1, not fitted: probabilities are over-confident")
    )
    if args.json:
        print_json(
            {
                "player": player,
                "side": args.side,
                "games": len(set(result.games)),
                "moves": result.moves,
                "temperature": result.temperature,
                "temperature_fitted": fitted,
                "candidates": table.to_dict(orient="records"),
                "decisive_positions": decisive.to_dict(orient="records"),
                "report": report.to_dict(),
            }
        )
        return
    print(
        f"{len(set(result.games))} games, {result.moves} moves of {player} scored; temperature "
        f"{result.temperature:.3g} ({how})"
    )
    print(table.to_markdown(index=False, floatfmt=".4g"))
    if len(decisive):
        winner, runner = table["candidate"].iloc[0], table["candidate"].iloc[1]
        print(f"\npositions that weighed most for {winner} against {runner}:")
        for row in decisive.itertuples():
            print(
                f"  game {row.game + 1}, move {row.move_number}: {row.played}  {row.winner_probability:.1%} against "
                f"{row.runner_up_probability:.1%}  ({row.fen})"
            )
