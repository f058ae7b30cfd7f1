"""Games a second of the piece-value evolution on one Dask worker against two, in the same run.

    python benchmarks/bench_evolution.py [--generations 6] [--repeats 2] [--nodes 500] [--asynchronous] [--json]

Two ``LocalCluster`` s (one worker, two workers; one thread each, in processes of their own) run the
same evolution (:func:`iam.evolution.evolve_piece_values`: 16 individuals in 4 demes, so a generation
is four tasks of four games) in turns, ``--repeats`` times each, into fresh folders. A generation's
games a second are its 16 games over its seconds; the first generation of each run is left out (the
workers load the compiled core then). Printed: each cluster's median games a second, and their
ratio; beside it, all those generations' games over all their seconds (with ``--asynchronous`` the
demes do not wait for each other between migrations, and a generation's seconds run from the one
written before it). Both clusters give the same generations (checked): only the time differs. First, as a check
of the distribution apart from the CPU: four tasks that sleep a second, and four that each use half
a second of CPU, on each cluster (wall seconds): on a machine at rest both take half as long on two
workers; on a loaded one only the sleeps do.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from iam.evolution import EvolutionConfig, evolve_piece_values
from iam.runtime import Runtime, map_in_order
from search.chess.match import load_openings

ROOT = Path(__file__).resolve().parent.parent


def _sleep(_: int) -> int:
    time.sleep(1.0)
    return os.getpid()


def _spin(_: int) -> float:
    started = time.process_time()
    while time.process_time() - started < 0.5:
        pass
    return time.process_time() - started


def distribution_check(runtime: Runtime) -> dict[str, float]:
    """Wall seconds of four one-second sleeps and of four half-second CPU tasks on the cluster."""
    list(map_in_order(_sleep, [(i,) for i in range(2)], runtime))  # the workers started and reached
    found = {}
    for name, function in (("sleeps", _sleep), ("cpu", _spin)):
        started = time.perf_counter()
        list(map_in_order(function, [(i,) for i in range(4)], runtime))
        found[name] = round(time.perf_counter() - started, 2)
    return found


def one_run(config: EvolutionConfig, folder: Path, runtime: Runtime,
            asynchronous: bool = False) -> tuple[list[float], float, pd.DataFrame]:
    """Each generation's games a second (the first left out), all their games over all their seconds,
    and the population table."""
    rates: list[float] = []

    games_seconds = [0.0, 0.0]

    def timed(report) -> None:
        if report.pairs and report.generation > 1:
            rates.append(2 * len(report.pairs) / report.seconds)
            games_seconds[0] += 2 * len(report.pairs)
            games_seconds[1] += report.seconds

    table = evolve_piece_values(config, folder, runtime, on_generation=timed, asynchronous=asynchronous)
    return rates, games_seconds[0] / games_seconds[1], table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generations", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--asynchronous", action="store_true",
                        help="demes go on as soon as their own games are in")
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
    overall: dict[int, list[float]] = {1: [], 2: []}
    tables = []
    checks = {}
    try:
        for workers, cluster in clusters.items():
            checks[workers] = distribution_check(Runtime(scheduler=cluster.scheduler_address))
            print(f"{workers} worker(s): four 1 s sleeps {checks[workers]['sleeps']} s, four 0.5 s CPU tasks "
                  f"{checks[workers]['cpu']} s", file=sys.stderr)
        for repeat in range(args.repeats):
            for workers, cluster in clusters.items():
                runtime = Runtime(scheduler=cluster.scheduler_address)
                found, whole, table = one_run(config, folder / f"{workers}-{repeat}", runtime, args.asynchronous)
                rates[workers] += found
                overall[workers].append(whole)
                tables.append(table)
                print(f"repeat {repeat + 1}, {workers} worker(s): {statistics.median(found):.2f} games/s "
                      f"(all generations after the first: {whole:.2f})", file=sys.stderr)
    finally:
        for cluster in clusters.values():
            cluster.close()
        shutil.rmtree(folder, ignore_errors=True)
    assert all(table.equals(tables[0]) for table in tables), "the clusters gave other generations"
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    summary = {"generations": args.generations, "repeats": args.repeats, "nodes": args.nodes,
               "asynchronous": args.asynchronous,
               "one_worker_games_per_second": round(one, 2), "two_workers_games_per_second": round(two, 2),
               "ratio": round(two / one, 2), "check_seconds": checks,
               "ratio_all_generations": round(statistics.median(overall[2]) / statistics.median(overall[1]), 2)}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"one worker {one:.2f} games/s, two workers {two:.2f} games/s: {two / one:.2f}x "
              f"(all generations after the first: {summary['ratio_all_generations']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
