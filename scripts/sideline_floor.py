"""Check on test games that a move he plays often is believed at least half as often (the dossier's sideline floor).

    python scripts/sideline_floor.py --players Botvinnik,Smyslov --out results/sideline-floor \
        [--plies 12] [--model-cache MODELS] [--by-date]

For each bundled master and colour, the dossier's beliefs from his training games (the default model fitted on
them, without an engine, the population book, his games: :func:`iam.prepare.dossier.build_side`'s chain), read
at the positions of his test games (:mod:`experiments.development.sideline_floor`). Written: ``sidelines.csv``
and ``summary.csv`` (per master and colour: rows, violations); the summary is printed. With ``--by-date`` each test
game meets the dossier as it stood before it (his training games surely played before its date; a game of unknown
year is left out), the model and book beneath the same, and a row's belief is the mean of those its games met.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import pandas as pd

from experiments.development.sideline_floor import dated_sideline_rows, sideline_rows
from experiments.prepare import _Remembered
from iam.games.bundled import bundled_pgn
from iam.games.filters import parse_game_date, surely_before
from iam.games.heldout import test_games, training_games
from iam.games.pgn import load_player_games
from iam.prepare.beliefs import HisLineBeliefs, model_alone
from iam.prepare.model_cache import cached_default_model
from iam.prepare.population import POPULATION_STRENGTH, BookBeliefs
from iam.prepare.tree import HALF_LIFE_YEARS, PRIOR_STRENGTH, build_repertoire
from iam.priors.population import bundled_prior


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="Botvinnik,Smyslov")
    parser.add_argument("--out", type=Path, default=Path("results/sideline-floor"))
    parser.add_argument("--plies", type=int, default=12)
    parser.add_argument("--model-cache", default="results/sideline-floor-models")
    parser.add_argument("--by-date", action="store_true", help="each test game against the dossier before its date")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tables = []
    for player in args.players.split(","):
        games, _ = load_player_games([bundled_pgn(player)], player=player)
        training = training_games(games)
        model, _ = cached_default_model(training, player, args.model_cache, quiet=True)
        before = BookBeliefs(model_alone(model), bundled_prior().book.without(player), POPULATION_STRENGTH)
        for color in (chess.WHITE, chess.BLACK):
            if args.by_date:
                table = dated_sideline_rows(
                    test_games(games), color, _dated(training, color, _Remembered(before), args.plies),
                    plies=args.plies,
                )
            else:
                tree = build_repertoire(training, color, plies=args.plies, half_life_years=HALF_LIFE_YEARS)
                beliefs = HisLineBeliefs(tree, before, PRIOR_STRENGTH)
                table = sideline_rows(test_games(games), color, beliefs, plies=args.plies)
            tables.append(table.assign(player=player))
            print(f"{player} {chess.COLOR_NAMES[color]}: {len(table)} moves, {int(table['violation'].sum())} "
                  "violations", file=sys.stderr, flush=True)
        model.close()
    rows = pd.concat(tables, ignore_index=True)
    rows.to_csv(args.out / "sidelines.csv", index=False)
    summary = rows.groupby(["player", "color"], sort=False).agg(
        moves=("violation", "size"), violations=("violation", "sum"), positions=("fen", "nunique"),
        min_ratio=("belief", "size"),
    ).reset_index()
    summary["min_ratio"] = [
        float((part["belief"] / part["share"]).min()) for _, part in rows.groupby(["player", "color"], sort=False)
    ]
    summary.to_csv(args.out / "summary.csv", index=False)
    print(summary.to_markdown(index=False))
    return 0


def _dated(training: list, color: chess.Color, before: _Remembered, plies: int):
    """A test game's dossier beliefs: his training games with ``color`` surely played before its date (one per
    date, made when first asked); None for a game of unknown year."""
    his = [(parse_game_date(game.date), game) for game in training if game.color == color]
    made: dict[tuple[int, ...], HisLineBeliefs] = {}

    def beliefs_of(game) -> HisLineBeliefs | None:
        date = parse_game_date(game.date)
        if date is None:
            return None
        if date not in made:
            earlier = [mine for played, mine in his if played is not None and surely_before(played, date)]
            tree = build_repertoire(earlier, color, plies=plies, half_life_years=HALF_LIFE_YEARS)
            made[date] = HisLineBeliefs(tree, before, PRIOR_STRENGTH)
        return made[date]

    return beliefs_of


if __name__ == "__main__":
    sys.exit(main())
