"""Measure how the no-engine dossier's costly habits and first moves agree with stockfish's, on development games.

    python scripts/habit_verdicts.py --engine /usr/games/stockfish --out results/habit-verdicts \
        [--players Botvinnik,...] [--plies 8] [--engine-depth 12] [--reference-depth 16] [--jobs 2] \
        [--own-depths 4,5,6] [--own-lines 3] [--engine-cache CACHE] [--model-cache MODELS] \
        [--engine-moves FIRST_MOVES_CSV [--habits]]

For each bundled master and colour, the dossier from his development games alone is built from
the same beliefs once judged by the engine (``--engine-depth``) and once per depth of the
toolkit's own search (``--own-depths``, default the dossier's);
:mod:`experiments.development.habit_verdicts` compares the own search's costly habits with the
engine's costs at ``--reference-depth`` and the recommended first moves. Written: ``habits.csv``
(one row per habit listed without an engine), ``first_moves.csv`` (one row per master, colour
and own depth, with the CPU seconds the own search spent on that side, its positions and
searches) and ``summary.csv`` (per own depth and colour); the summary is printed. Progress on
stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import pandas as pd

from experiments.development.habit_verdicts import (
    choose_depth,
    first_move_row,
    habit_rows,
    masters_table,
    summary,
)
from iam.games.bundled import bundled_pgn, manifest
from iam.games.heldout import development_games
from iam.games.pgn import load_player_games
from iam.prepare.beliefs import model_alone
from iam.prepare.dossier import PrepareConfig, build_side
from iam.prepare.lines import LineSettings
from iam.prepare.model_cache import cached_default_model
from iam.prepare.population import POPULATION_STRENGTH, BookBeliefs
from iam.prepare.scoring import DEFAULT_JUDGE_DEPTH, EngineScorer, SearchScorer
from iam.priors.population import bundled_prior


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", required=True)
    parser.add_argument("--out", type=Path, default=Path("results/habit-verdicts"))
    parser.add_argument("--players", default=",".join(entry.player for entry in manifest()))
    parser.add_argument("--plies", type=int, default=8)
    parser.add_argument("--engine-depth", type=int, default=12)
    parser.add_argument("--reference-depth", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--own-depths", default=str(DEFAULT_JUDGE_DEPTH), help="depths of the own search to "
                        "compare (comma-separated)")
    parser.add_argument("--own-lines", type=int, default=3, help="best moves the own search scores in a position, "
                        "others alone (0: every legal move)")
    parser.add_argument("--engine-cache", default="iam-engine-cache.sqlite")
    parser.add_argument("--model-cache", default="results/habit-verdicts-models")
    parser.add_argument("--colors", default="white,black", help="his colours, in the order run")
    parser.add_argument("--engine-moves", type=Path, help="first_moves.csv of an earlier run: the engine dossier's "
                        "first moves read from it (same beliefs and settings), no engine side built, no habits "
                        "unless --habits")
    parser.add_argument("--habits", action="store_true", help="with --engine-moves: list the own search's costly "
                        "habits all the same and judge them by the reference")
    parser.add_argument("--combine", default="", help="folders of earlier runs (comma-separated): their tables "
                        "are put together in --out and summed up, nothing is run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.combine:
        folders = [Path(folder) for folder in args.combine.split(",")]
        habits_read = pd.concat([pd.read_csv(folder / "habits.csv") for folder in folders], ignore_index=True)
        moves_read = pd.concat([pd.read_csv(folder / "first_moves.csv") for folder in folders], ignore_index=True)
        return _write(args.out, habits_read, moves_read)
    config = PrepareConfig(player="", lines=LineSettings(plies=args.plies), quiet=True)
    depths = [int(depth) for depth in args.own_depths.split(",")]
    lines = args.own_lines or None
    engine = EngineScorer(args.engine, depth=args.engine_depth, cache=args.engine_cache, engines=args.jobs)
    reference = EngineScorer(args.engine, depth=args.reference_depth, cache=args.engine_cache, engines=args.jobs)
    habits, first_moves = [], []
    _warm_up()
    known = None if args.engine_moves is None else pd.read_csv(args.engine_moves).set_index(["player", "color"])
    try:
        for player in args.players.split(","):
            games, _ = load_player_games([bundled_pgn(player)], player=player)
            games = development_games(games)
            started = time.monotonic()
            model, _ = cached_default_model(games, player, args.model_cache, quiet=True)
            beliefs = BookBeliefs(model_alone(model), bundled_prior().book.without(player), POPULATION_STRENGTH)
            for color in (chess.COLOR_NAMES.index(name) == 1 for name in args.colors.split(",")):
                theirs = None if known is not None else build_side(
                    games, color, beliefs, engine, config, habits=False, values=False
                )
                for depth in depths:
                    own = SearchScorer(depth, lines=lines)
                    listed = known is None or args.habits
                    mine = build_side(games, color, beliefs, own, config, habits=listed, values=False)
                    if listed:
                        habits += [{**row, "own_depth": depth} for row in habit_rows(player, mine, reference)]
                    if known is None:
                        row = first_move_row(player, mine, theirs)
                    else:
                        row = first_move_row(player, mine, mine)
                        row["engine"] = known.loc[(player, chess.COLOR_NAMES[color]), "engine"]
                        row["same"] = row["own_search"] == row["engine"]
                    first_moves.append({
                        **row, "own_depth": depth, "own_seconds": own.seconds, "own_positions": own.positions,
                        "own_searches": own.searches, "own_lines": args.own_lines,
                    })
                    print(f"{player} {chess.COLOR_NAMES[color]} depth {depth}: {len(mine.habits)} habits, first "
                          f"move {first_moves[-1]['own_search']} / {first_moves[-1]['engine']} ({own.positions} "
                          f"positions, {own.seconds:.0f} CPU s; {time.monotonic() - started:.0f} s)",
                          file=sys.stderr, flush=True)
                _write(args.out, masters_table(habits), pd.DataFrame(first_moves), quiet=True)  # kept if stopped
            model.close()
    finally:
        engine.close()
        reference.close()
    return _write(args.out, masters_table(habits), pd.DataFrame(first_moves))


def _warm_up() -> None:
    """Compile (or load) the search's code before any side is timed: every kind of search the judge runs."""
    warm = SearchScorer(2)
    board = chess.Board()
    warm.value(board)
    warm.scores(board)
    warm.score_move(board, next(move for move in board.legal_moves if move not in warm.scores(board)))
    SearchScorer(2, lines=None).scores(board)


def _write(out: Path, habit_table: pd.DataFrame, move_table: pd.DataFrame, quiet: bool = False) -> int:
    table = summary(habit_table, move_table)
    habit_table.to_csv(out / "habits.csv", index=False)
    move_table.to_csv(out / "first_moves.csv", index=False)
    table.to_csv(out / "summary.csv", index=False)
    if quiet:
        return 0
    print(move_table.to_markdown(index=False))
    print(table.to_markdown(index=False))
    if "own_seconds" in move_table.columns:
        print(f"depth chosen by the rule: {choose_depth(move_table)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
