"""Games a second of the piece-value evolution on one Dask worker against two, in the same run.

    python benchmarks/bench_evolution.py [--generations 6] [--repeats 2] [--nodes 500] [--json]

Two ``LocalCluster`` s (one worker, two workers; one thread each, in processes of their own) run the
same evolution (:func:`iam.evolution.evolve_piece_values`: 16 individuals in 4 demes, so a generation
is four tasks of four games) in turns, ``--repeats`` times each, into fresh folders. A generation's
games a second are its 16 games over its seconds; the first generation of each run is left out (the
workers load the compiled core then). Printed: each cluster's median games a second, and their
ratio. Both clusters give the same generations (checked): only the time differs.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd

from iam.evolution import EvolutionConfig, evolve_piece_values
from iam.runtime import Runtime
from search.chess.match import load_openings

ROOT = Path(__file__).resolve().parent.parent


def one_run(config: EvolutionConfig, folder: Path, runtime: Runtime) -> tuple[list[float], pd.DataFrame]:
    """Each generation's games a second (the first left out) and the population table."""
    rates: list[float] = []

    def timed(report) -> None:
        if report.pairs and report.generation > 1:
            rates.append(2 * len(report.pairs) / report.seconds)

    table = evolve_piece_values(config, folder, runtime, on_generation=timed)
    return rates, table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generations", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from distributed import LocalCluster

    openings = tuple(board.fen() for board in load_openings(ROOT / "benchmarks" / "match_openings_100.epd"))
    config = EvolutionConfig(population=16, demes=4, generations=args.generations, nodes=args.nodes, max_plies=120,
                             migrate_every=4, openings=openings)
    folder = Path(tempfile.mkdtemp(prefix="iam-evolution-"))
    clusters = {workers: LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None, silence_logs=logging.ERROR)
                for workers in (1, 2)}
    rates: dict[int, list[float]] = {1: [], 2: []}
    tables = []
    try:
        for repeat in range(args.repeats):
            for workers, cluster in clusters.items():
                runtime = Runtime(scheduler=cluster.scheduler_address)
                found, table = one_run(config, folder / f"{workers}-{repeat}", runtime)
                rates[workers] += found
                tables.append(table)
                print(f"repeat {repeat + 1}, {workers} worker(s): {statistics.median(found):.2f} games/s",
                      file=sys.stderr)
    finally:
        for cluster in clusters.values():
            cluster.close()
    assert all(table.equals(tables[0]) for table in tables), "the clusters gave other generations"
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    summary = {"generations": args.generations, "repeats": args.repeats, "nodes": args.nodes,
               "one_worker_games_per_second": round(one, 2), "two_workers_games_per_second": round(two, 2),
               "ratio": round(two / one, 2)}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"one worker {one:.2f} games/s, two workers {two:.2f} games/s: {two / one:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
