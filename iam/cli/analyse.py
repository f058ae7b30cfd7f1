"""``iam analyse``: every move of a player judged by a UCI engine, written as a CSV table."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from iam.cli._common import (
    add_quiet,
    add_scheduler_argument,
    check_engine_depth,
    check_output_file,
    command_runtime,
    progress,
)
from iam.cli._games import add_game_arguments, pgn_paths, read_player_games
from iam.engines.runs import LOSS_CAP, AnalysisSettings, GameAnalysis, analyse_games
from iam.errors import DataError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "analyse",
        help="judge a player's moves with a UCI engine: loss and rank of every move, as CSV",
        description="Analyse the position before each of the player's moves (or every move, --all-moves) with a "
        "UCI engine at a fixed depth, scoring every legal move, and write one CSV row per move: the played move "
        "and its score, the best move and its score, the loss in centipawns and the played move's rank. "
        "The work runs in local processes (--jobs) or on a Dask cluster (--scheduler); the analyses are kept "
        "in a SQLite cache that every worker shares (on a cluster: a path on a filesystem all workers see).",
    )
    add_game_arguments(parser, player_required=True)
    parser.add_argument("--engine", required=True, metavar="PATH", help="the UCI engine, e.g. /usr/games/stockfish")
    parser.add_argument("--depth", type=int, default=8, metavar="D", help="fixed depth of every analysis (default 8)")
    parser.add_argument(
        "--cache", default="iam-engine-cache.sqlite", metavar="FILE",
        help="SQLite file keeping the analyses for reuse, shared by every worker (default iam-engine-cache.sqlite)",
    )
    parser.add_argument(
        "--all-moves", action="store_true", help="analyse both sides' moves (default: the player's only)"
    )
    parser.add_argument(
        "--task-positions", type=int, default=16, metavar="N", help="positions per task sent to a worker (default 16)"
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    add_scheduler_argument(parser)
    parser.add_argument("--out", required=True, metavar="FILE", help="the CSV file to write, one row per analysed move")
    add_quiet(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for option, value in (("--depth", args.depth), ("--task-positions", args.task_positions)):
        if value < 1:
            raise DataError(f"{option} must be at least 1")
    check_engine_depth("--depth", args.depth)
    out = check_output_file(args.out, "--out", inputs=[*pgn_paths(args), args.cache])
    runtime = command_runtime(args)
    games, _, player, _ = read_player_games(args, quiet=args.quiet)
    if not games:
        raise DataError(f"no game of {player} is left by the filters")
    settings = AnalysisSettings(
        engine=args.engine, depth=args.depth, cache=os.path.abspath(args.cache),  # workers may run elsewhere
        all_moves=args.all_moves, positions_per_task=args.task_positions,
    )
    bar = None if args.quiet else (lambda items, total: progress(items, total=total, desc="analysing", unit=" tasks"))
    analysis = analyse_games(games, settings, runtime, progress=bar)
    _write_csv(analysis, out)
    print(_summary(analysis, len(games), player, out))
    return 0


def _write_csv(analysis: GameAnalysis, out: Path) -> None:
    """Write the table next to ``out`` and rename it over ``out``: never a half-written file."""
    temporary = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        analysis.moves.to_csv(temporary, index=False)
        os.replace(temporary, out)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise DataError(f"cannot write {out}: {exc.strerror or exc}") from None


def _summary(analysis: GameAnalysis, games: int, player: str, out: Path) -> str:
    moves = len(analysis.moves)
    if not moves:
        return f"no move to analyse in {games} games of {player}; wrote {out}"
    return (
        f"{moves} moves in {games} games of {player} analysed: mean loss {analysis.mean_loss:.1f} cp "
        f"(each capped at {LOSS_CAP}), best move {analysis.best_share:.1%}\n"
        f"{analysis.positions} distinct positions: {analysis.cached} from the cache, {analysis.fresh} analysed now; "
        f"wrote {out}"
    )
