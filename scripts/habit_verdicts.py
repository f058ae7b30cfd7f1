"""Measure how the no-engine dossier's costly habits and first moves agree with stockfish's, on development games.

    python scripts/habit_verdicts.py --engine /usr/games/stockfish --out results/habit-verdicts \
        [--players Botvinnik,...] [--plies 8] [--engine-depth 12] [--reference-depth 16] [--jobs 2] \
        [--engine-cache CACHE] [--model-cache MODELS]

For each bundled master and colour, the dossier from his development games alone is built twice
from the same beliefs, judged by the toolkit's own search (the default depth) and by the engine
(``--engine-depth``); :mod:`experiments.development.habit_verdicts` compares the own search's
costly habits with the engine's costs at ``--reference-depth`` and the two recommended first moves.
Written: ``habits.csv`` (one row per habit listed without an engine), ``first_moves.csv`` (one row
per master and colour) and ``summary.csv``; the summary is printed. Progress on stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import pandas as pd

from experiments.development.habit_verdicts import first_move_row, habit_rows, masters_table, summary
from iam.games.bundled import bundled_pgn, manifest
from iam.games.heldout import development_games
from iam.games.pgn import load_player_games
from iam.prepare.beliefs import model_alone
from iam.prepare.dossier import PrepareConfig, build_side
from iam.prepare.lines import LineSettings
from iam.prepare.model_cache import cached_default_model
from iam.prepare.population import POPULATION_STRENGTH, BookBeliefs
from iam.prepare.scoring import EngineScorer, SearchScorer
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
    parser.add_argument("--engine-cache", default="iam-engine-cache.sqlite")
    parser.add_argument("--model-cache", default="results/habit-verdicts-models")
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
    own = SearchScorer(config.scoring.search_depth)
    engine = EngineScorer(args.engine, depth=args.engine_depth, cache=args.engine_cache, engines=args.jobs)
    reference = EngineScorer(args.engine, depth=args.reference_depth, cache=args.engine_cache, engines=args.jobs)
    habits, first_moves = [], []
    try:
        for player in args.players.split(","):
            games, _ = load_player_games([bundled_pgn(player)], player=player)
            games = development_games(games)
            started = time.monotonic()
            model, _ = cached_default_model(games, player, args.model_cache, quiet=True)
            beliefs = BookBeliefs(model_alone(model), bundled_prior().book.without(player), POPULATION_STRENGTH)
            for color in (chess.WHITE, chess.BLACK):
                mine = build_side(games, color, beliefs, own, config, values=False)
                theirs = build_side(games, color, beliefs, engine, config, habits=False, values=False)
                habits += habit_rows(player, mine, reference)
                first_moves.append(first_move_row(player, mine, theirs))
                print(f"{player} {chess.COLOR_NAMES[color]}: {len(mine.habits)} habits, first move "
                      f"{first_moves[-1]['own_search']} / {first_moves[-1]['engine']} "
                      f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
            model.close()
    finally:
        engine.close()
        reference.close()
    return _write(args.out, masters_table(habits), pd.DataFrame(first_moves))


def _write(out: Path, habit_table: pd.DataFrame, move_table: pd.DataFrame) -> int:
    table = summary(habit_table, move_table)
    habit_table.to_csv(out / "habits.csv", index=False)
    move_table.to_csv(out / "first_moves.csv", index=False)
    table.to_csv(out / "summary.csv", index=False)
    print(move_table.to_markdown(index=False))
    print(table.to_markdown(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
