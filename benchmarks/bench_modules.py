"""Evolve the play search's depth-and-ordering module on development positions, then measure it on Win At Chess.

    python benchmarks/bench_modules.py evolve --out DIR [--generations 15 --population 8 --sample 12 --cap 30000]
        [--pool tactics|wac|both] [--pick cost|rate] [--final-cap N]
    python benchmarks/bench_modules.py wac --out DIR --name default|evolved [--cap 100000] [--part all|measured]
    python benchmarks/bench_modules.py report --out DIR [--cap 100000] [--part all|measured]

``evolve``: the development pool is ``benchmarks/tactics.epd`` (``--pool tactics``: positions of the
bundled masters' games with stockfish's best move at depth 16, at least two pawns above the second),
the development half of Win At Chess (``--pool wac``: its 1st, 3rd, 5th... positions,
:func:`iam.evolution.modules.split_suite`) or both, less the positions the play search solves within
``--least`` nodes (300); Kendall and Whitwell's rule (:func:`iam.evolution.modules.evolve_modules`)
evolves the module, and the last population's pick is judged on the whole pool at ``--final-cap``
nodes by ``--pick``; written to DIR: ``pool.csv``, ``population.csv``, ``pairs.csv``, ``final.csv``,
``best.json``. ``wac``: every Win At Chess position (``--part all``) or its measured half (the 2nd,
4th... positions, never in a ``wac`` pool) traced to ``--cap`` nodes with the default module or the
evolved one (``best.json``): ``wac_NAME.csv`` (``wac_NAME_measured.csv``). ``report``: the solve-rate
table and the nodes each module needs to reach the default module's rate at the cap, printed as
Markdown and written to ``wac_rates.csv`` (``wac_rates_measured.csv``). Node counts only: the
figures are the same on any machine.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from iam.evolution.modules import (
    ModuleEvolutionConfig,
    compare_modules,
    development_pool,
    evolve_modules,
    nodes_to_reach,
    rate_table,
    split_suite,
    write_run,
)
from search.chess.modules import DepthOrdering
from search.chess.modules.solve import read_suite

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000)


def evolve(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config = ModuleEvolutionConfig(population=args.population, generations=args.generations, sample=args.sample,
                                   cap=args.cap, seed=args.seed, spread=args.spread, pick=args.pick,
                                   final_cap=args.final_cap)
    suite = []
    if args.pool in ("tactics", "both"):
        suite += read_suite(ROOT / "benchmarks" / "tactics.epd")
    if args.pool in ("wac", "both"):
        suite += split_suite(read_suite(ROOT / "benchmarks" / "wac.epd"))[0]
    pool, table = development_pool(suite, args.cap, least=args.least)
    table.to_csv(out / "pool.csv", index=False)
    print(f"pool: {len(pool)} of {len(table)} positions", flush=True)

    def report(generation: int, rows: pd.DataFrame) -> None:
        costs = rows["cost"]
        print(f"generation {generation}: mean cost {costs.mean():.3f}, best {costs.min():.3f}", flush=True)

    run = evolve_modules(pool, config, on_generation=report)
    write_run(run, out)
    print(run.final.to_string(), flush=True)


def wac(args: argparse.Namespace) -> None:
    out = Path(args.out)
    if args.name == "default":
        module = DepthOrdering.default()
    else:
        module = DepthOrdering.from_dict(json.loads((out / "best.json").read_text())["module"])
    suite = read_suite(ROOT / "benchmarks" / "wac.epd")
    if args.part == "measured":
        suite = split_suite(suite)[1]
    table = compare_modules(suite, {args.name: module}, args.cap)
    table.to_csv(out / f"wac_{args.name}{_suffix(args)}.csv", index=False)


def _suffix(args: argparse.Namespace) -> str:
    return "" if args.part == "all" else f"_{args.part}"


def report(args: argparse.Namespace) -> None:
    out = Path(args.out)
    default = pd.read_csv(out / f"wac_default{_suffix(args)}.csv", dtype={"default": "Int64"})
    evolved = pd.read_csv(out / f"wac_evolved{_suffix(args)}.csv", dtype={"evolved": "Int64"})
    solved = default.merge(evolved, on="position")
    budgets = [b for b in BUDGETS if b <= args.cap]
    rates = rate_table(solved, budgets)
    rates.to_csv(out / f"wac_rates{_suffix(args)}.csv", index=False)
    target = float(solved["default"].notna().mean())
    reach = nodes_to_reach(solved, target)
    print(rates.to_markdown(index=False))
    print(f"default's rate at {args.cap}: {target:.4f} ({int(solved['default'].notna().sum())} positions)")
    print("nodes to reach it:", reach)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("evolve")
    run.add_argument("--out", required=True)
    run.add_argument("--generations", type=int, default=15)
    run.add_argument("--population", type=int, default=8)
    run.add_argument("--sample", type=int, default=12)
    run.add_argument("--cap", type=int, default=30_000)
    run.add_argument("--least", type=int, default=300)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--spread", type=float, default=0.25)
    run.add_argument("--pool", choices=("tactics", "wac", "both"), default="tactics")
    run.add_argument("--pick", choices=("cost", "rate"), default="cost")
    run.add_argument("--final-cap", type=int)
    run.set_defaults(action=evolve)
    measure = commands.add_parser("wac")
    measure.add_argument("--out", required=True)
    measure.add_argument("--name", choices=("default", "evolved"), required=True)
    measure.add_argument("--cap", type=int, default=100_000)
    measure.add_argument("--part", choices=("all", "measured"), default="all")
    measure.set_defaults(action=wac)
    summary = commands.add_parser("report")
    summary.add_argument("--out", required=True)
    summary.add_argument("--cap", type=int, default=100_000)
    summary.add_argument("--part", choices=("all", "measured"), default="all")
    summary.set_defaults(action=report)
    args = parser.parse_args()
    args.action(args)


if __name__ == "__main__":
    main()
