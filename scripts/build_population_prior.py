"""Rebuild the bundled population prior (iam/ranker/population_prior.json.gz).

    python scripts/build_population_prior.py [--positions 1500] [--search-depth 3,2] [--jobs 2] [--engine /usr/games/stockfish]

Reads the six bundled masters' training games (never their test games, nor a game
that is another master's test game), fits the
population rankers (all masters, and each master left out) at each search depth
and writes the prior with a CSV of the fits next to it. Deterministic for fixed
arguments. ``--update FILE`` refits part of an existing prior: the new fits replace
FILE's fits of the same families, left-out master and depth, and FILE's others stay.
The bundled file was built in two runs (``docs/results/ranker.md``, *The population
prior*, says why):

    --positions 800 --search-depth 2 --engine /usr/games/stockfish --no-trees
    --positions 1600 --search-depth 3 --engine /usr/games/stockfish --update FILE
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from iam.player_games import bundled_masters
from iam.ranker.build_prior import PriorSettings, build_population_prior
from iam.ranker.evidence import (
    DEFAULT_FAMILIES,
    DEFAULT_SEARCH_DEPTH,
    FAMILIES,
    FAST_SEARCH_DEPTH,
    EngineSettings,
    with_engine,
)
from iam.ranker.population import PRIOR_FILE, load_prior, merge_priors, save_prior, update_prior
from iam.ranker.trees import TreeSettings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1500, help="sampled training positions per master")
    parser.add_argument("--families", default=",".join(DEFAULT_FAMILIES), help="families to compute")
    parser.add_argument(
        "--search-depth", default=f"{DEFAULT_SEARCH_DEPTH},{FAST_SEARCH_DEPTH}", help="search depths to fit at, comma-separated"
    )
    parser.add_argument("--engine", help="UCI engine for the engine family (adds it to --families)")
    parser.add_argument("--engine-depth", type=int, default=8)
    parser.add_argument("--engine-cache", default="engine-cache.sqlite")
    parser.add_argument("--search-cache", help="SQLite file keeping the search's scores for a rebuild")
    parser.add_argument("--no-trees", action="store_true", help="fit no residual trees (LightGBM not needed)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(PRIOR_FILE), help="prior file to write")
    parser.add_argument(
        "--update", metavar="FILE", help="a prior whose fits of the same families, left-out master and depth this build replaces (its others are kept)"
    )
    args = parser.parse_args()
    families = tuple(args.families.split(","))
    engine = None
    if args.engine:
        engine = EngineSettings(args.engine, depth=args.engine_depth, cache=args.engine_cache)
        families = with_engine(families)
    depths = [int(depth) for depth in args.search_depth.split(",")]
    masters = bundled_masters()
    started = time.perf_counter()
    priors, fits = [], []
    for depth in depths:
        settings = PriorSettings(
            families=families,
            positions_per_master=args.positions,
            search_depth=depth,
            engine=engine,
            search_cache=args.search_cache,
            trees=None if args.no_trees else TreeSettings(random_state=args.seed),
            random_state=args.seed,
            jobs=args.jobs,
        )
        prior, fitted = build_population_prior(
            masters, settings, progress=lambda items, depth=depth: tqdm(items, desc=f"masters, depth {depth}", file=sys.stderr)
        )
        priors.append(prior)
        fits.append(fitted if not fits else fitted[fitted["search_depth"].notna()])
    prior, fits = merge_priors(priors), pd.concat(fits, ignore_index=True)
    if args.update:
        base = load_prior(args.update)
        prior = update_prior(base, prior)
        old = pd.read_csv(Path(args.update).with_name("population_prior_fits.csv"), keep_default_na=False, na_values={"search_depth": [""]})
        key = ["without", "families", "search_depth"]
        fits = fits.assign(without=fits["without"].fillna(""), search_depth=fits["search_depth"].astype(float))
        kept = old.assign(search_depth=old["search_depth"].astype(float)).merge(fits[key].drop_duplicates(), on=key, how="left", indicator=True)
        fits = pd.concat([kept[kept["_merge"] == "left_only"].drop(columns="_merge"), fits], ignore_index=True)
    out = Path(args.out)
    save_prior(prior, out)
    fits.to_csv(out.with_name("population_prior_fits.csv"), index=False)
    print(f"training games dropped as another master's test game: {prior.settings['dropped_test_games_of_others']}")
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    print(fits[fits["families"] == "+".join(f for f in FAMILIES if f in families)].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
