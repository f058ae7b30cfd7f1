"""Check on test games that a move he plays often is believed at least half as often (the dossier's sideline floor).

    python scripts/sideline_floor.py --players Botvinnik,Smyslov --out results/sideline-floor \
        [--plies 12] [--model-cache MODELS] [--by-date] [--games test|dev]

For each bundled master and colour, the dossier's beliefs from his training games (the default model fitted on
them, without an engine, the population book, his games: :func:`iam.prepare.dossier.build_side`'s chain), read
at the positions of his test games (:mod:`experiments.development.sideline_floor`). With ``--by-date`` each test
game meets the dossier as it stood before it (his training games surely played before its date; a game of unknown
year is left out), the model and book beneath the same, and a row's belief is the mean of those its games met.
With ``--games dev`` the dossiers are built from his fitting games and read at his development games instead.

Written: ``sidelines.csv`` (his moves in the checked games, with what the dossiers knew of them and a violation's
cause), ``known.csv`` (the floor on the games each dossier knew) and ``summary.csv`` (per master and colour: moves,
violations, by cause, and the floor on the known games); the summary is printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import pandas as pd

from experiments.development.sideline_floor import CAUSES, dated_sideline_rows, known_rows, sideline_rows
from experiments.prepare import _Remembered
from iam.games.bundled import bundled_pgn
from iam.games.filters import parse_game_date, surely_before
from iam.games.heldout import development_games, fitting_games, test_games, training_games
from iam.games.pgn import load_player_games
from iam.prepare.beliefs import HisLineBeliefs, model_alone
from iam.prepare.model_cache import cached_default_model
from iam.prepare.population import POPULATION_STRENGTH, BookBeliefs
from iam.prepare.tree import HALF_LIFE_YEARS, PRIOR_STRENGTH, build_repertoire
from iam.priors.population import bundled_prior

SPLITS = {"test": (training_games, test_games), "dev": (fitting_games, development_games)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="Botvinnik,Smyslov")
    parser.add_argument("--out", type=Path, default=Path("results/sideline-floor"))
    parser.add_argument("--plies", type=int, default=12)
    parser.add_argument("--model-cache", default="results/sideline-floor-models")
    parser.add_argument("--by-date", action="store_true", help="each test game against the dossier before its date")
    parser.add_argument("--games", choices=sorted(SPLITS), default="test",
                        help="check on test games (built from training games) or development games (from fitting)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    built_from, checked_on = SPLITS[args.games]
    tables, knowns = [], []
    for player in args.players.split(","):
        games, _ = load_player_games([bundled_pgn(player)], player=player)
        built, checked = built_from(games), checked_on(games)
        model, _ = cached_default_model(built, player, args.model_cache, quiet=True)
        before = BookBeliefs(model_alone(model), bundled_prior().book.without(player), POPULATION_STRENGTH)
        for color in (chess.WHITE, chess.BLACK):
            if args.by_date:
                made: dict[tuple[int, ...], HisLineBeliefs] = {}
                table = dated_sideline_rows(
                    checked, color, _dated(built, color, _Remembered(before), args.plies, made), plies=args.plies
                )
                dossiers = list(made.values())
            else:
                tree = build_repertoire(built, color, plies=args.plies, half_life_years=HALF_LIFE_YEARS)
                dossiers = [HisLineBeliefs(tree, before, PRIOR_STRENGTH)]
                table = sideline_rows(checked, color, dossiers[0], plies=args.plies)
            known = known_rows(dossiers)
            tables.append(table.assign(player=player))
            knowns.append(known.assign(player=player))
            print(f"{player} {chess.COLOR_NAMES[color]}: {len(table)} moves, {int(table['violation'].sum())} "
                  f"violations; on the games its {len(dossiers)} dossiers knew: {len(known)} moves, "
                  f"{int(known['violation'].sum())} violations", file=sys.stderr, flush=True)
        model.close()
    rows = pd.concat(tables, ignore_index=True)
    rows.to_csv(args.out / "sidelines.csv", index=False)
    known = pd.concat(knowns, ignore_index=True)
    known.to_csv(args.out / "known.csv", index=False)
    summary = _summary(rows, known)
    summary.to_csv(args.out / "summary.csv", index=False)
    print(summary.to_markdown(index=False))
    return 0


def _summary(rows: pd.DataFrame, known: pd.DataFrame) -> pd.DataFrame:
    """Per master and colour: the checked moves, violations (and by cause), the lowest belief / share, and the floor
    on the games the dossiers knew."""
    keys = ["player", "color"]
    out = []
    for (player, color), part in rows.groupby(keys, sort=False):
        mine = known[(known["player"] == player) & (known["color"] == color)]
        row = {"player": player, "color": color, "moves": len(part), "positions": part["fen"].nunique(),
               "violations": int(part["violation"].sum()),
               "min_ratio": float((part["belief"] / part["share"]).min()) if len(part) else float("nan")}
        row.update({cause: int((part["cause"] == cause).sum()) for cause in CAUSES})
        row.update({"known_moves": len(mine), "known_violations": int(mine["violation"].sum()),
                    "known_min_ratio": float((mine["belief"] / mine["share"]).min()) if len(mine) else float("nan")})
        out.append(row)
    return pd.DataFrame(out)


def _dated(built: list, color: chess.Color, before: _Remembered, plies: int, made: dict):
    """A checked game's dossier beliefs: his games of ``built`` with ``color`` surely played before its date (one
    per date, made when first asked and kept in ``made``); None for a game of unknown year."""
    his = [(parse_game_date(game.date), game) for game in built if game.color == color]

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
