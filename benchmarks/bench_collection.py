"""Reading a large game collection on Dask workers: games per second per worker, and memory as the input grows.

    .venv/bin/python benchmarks/bench_collection.py [--games 100000] [--repeats 3] [--folder DIR] [--json]

A collection of ``--games`` games is generated from the bundled masters' games with
varied headers (invented players, ratings, dates, time controls, events), as one plain
PGN file, and one four times as large. Each run reads a collection through
:func:`iam.games.collection.map_chunks` on a real Dask cluster (a ``LocalCluster`` of
separate worker processes, one thread each): every game's headers read, its moves
replayed on a board, and the filter ``--min-plies 20`` applied (every game is replayed
to count its plies; a short one is left out, and counted). Runs alternate between one
and two workers, ``--repeats`` times each; reported are the median games per second,
per worker, the ratio of two workers to one (target: at least 1.7), and the peak
resident memory of the reading process and of the largest worker, sampled every 50 ms,
for the collection and the one four times as large (target: within 20%). A serial read
in this process is the reference.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from iam.games.bundled import bundled_pgn, manifest
from iam.games.collection import CollectionReport, map_chunks
from iam.games.filters import GameConditions, GameFilter
from iam.runtime import Runtime

FIRST = ("Anna", "Boris", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Jules", "Kofi", "Lena")
LAST = ("Ruiz", "Novak", "Okafor", "Silva", "Tanaka", "Weber", "Kowalski", "Haddad", "Larsen", "Moreau")
CONTROLS = ("60+0", "180+2", "300+3", "600+5", "900+10", "1800+0", "5400+30")
FILTER = GameFilter(conditions=GameConditions(min_plies=20))
"""Every game is replayed to count its plies; the shorter ones are left out, and counted."""


def movetexts() -> list[str]:
    """The movetext of every bundled game (headers dropped)."""
    texts = []
    for entry in manifest():
        for game in bundled_pgn(entry.file).read_text(encoding="utf-8").split("[Event ")[1:]:
            body = game.split("\n\n", 1)
            if len(body) == 2 and body[1].strip():
                texts.append(body[1].strip())
    return texts


def write_collection(path: Path, games: int, texts: list[str], seed: int = 7) -> None:
    """``games`` games with the bundled movetexts and invented headers, written as they are made."""
    rng = random.Random(seed)
    players = [f"{rng.choice(LAST)}{n}, {rng.choice(FIRST)}" for n in range(3000)]
    with path.open("w", encoding="utf-8") as handle:
        for number in range(games):
            white, black = rng.sample(players, 2)
            year, month, day = rng.randint(2015, 2024), rng.randint(1, 12), rng.randint(1, 28)
            headers = {
                "Event": f"Rated {rng.choice(('Blitz', 'Rapid', 'Classical', 'Bullet'))} game",
                "Site": f"https://example.org/{number:08d}",
                "Date": f"{year}.{month:02d}.{day:02d}",
                "White": white,
                "Black": black,
                "Result": texts[number % len(texts)].split()[-1],
                "WhiteElo": str(rng.randint(1200, 2700)),
                "BlackElo": str(rng.randint(1200, 2700)),
                "TimeControl": rng.choice(CONTROLS),
            }
            handle.write("".join(f'[{name} "{value}"]\n' for name, value in headers.items()))
            handle.write("\n" + texts[number % len(texts)] + "\n\n")


def replayed(games) -> int:
    """Plies replayed in a chunk (the moves are replayed as the chunk's games are read)."""
    return sum(len(game.moves) for game in games)


class PeakMemory:
    """Peak resident memory of this process and of its largest child process, sampled in a thread."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.driver = self.worker = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            try:
                self.driver = max(self.driver, me.memory_info().rss)
                for child in me.children(recursive=True):
                    try:
                        self.worker = max(self.worker, child.memory_info().rss)
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            time.sleep(self.interval)


def read_once(path: Path, runtime: Runtime) -> tuple[float, CollectionReport]:
    started = time.perf_counter()
    total = CollectionReport()
    for _, report in map_chunks(replayed, [path], FILTER, runtime):
        total.add(report)
    return time.perf_counter() - started, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folder", help="where the generated collections go (default: a temporary folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from distributed import LocalCluster

    folder = Path(args.folder or tempfile.mkdtemp(prefix="iam-collection-"))
    folder.mkdir(parents=True, exist_ok=True)
    texts = movetexts()
    small, large = folder / f"games-{args.games}.pgn", folder / f"games-{4 * args.games}.pgn"
    for path, count in ((small, args.games), (large, 4 * args.games)):
        if not path.exists():
            print(f"writing {path} ({count} games) ...", file=sys.stderr)
            write_collection(path, count, texts)
    serial_seconds, serial = read_once(small, Runtime())
    print(f"serial, in this process: {serial.games / serial_seconds:.0f} games/s ({serial.games} games, "
          f"{serial.used} used, {sum(serial.filtered.values())} filtered, {sum(serial.skipped.values())} skipped)",
          file=sys.stderr)
    clusters = {workers: LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
                for workers in (1, 2)}
    rates: dict[int, list[float]] = {1: [], 2: []}
    memory: dict[str, dict[str, int]] = {}
    try:
        for repeat in range(args.repeats):
            for workers, cluster in clusters.items():
                seconds, report = read_once(small, Runtime(scheduler=cluster.scheduler_address))
                assert report.games == serial.games and report.used == serial.used, "a cluster read other games"
                rates[workers].append(report.games / seconds / workers)
                print(
                    f"repeat {repeat + 1}, {workers} worker(s): {report.games / seconds:.0f} games/s", file=sys.stderr
                )
        for path in (small, large):
            cluster = clusters[2]
            with PeakMemory() as peak:
                seconds, report = read_once(path, Runtime(scheduler=cluster.scheduler_address))
            memory[path.name] = {"games": report.games, "seconds": round(seconds, 1), "driver_mb": peak.driver >> 20,
                                 "largest_worker_mb": peak.worker >> 20}
            print(f"{path.name}: {memory[path.name]}", file=sys.stderr)
    finally:
        for cluster in clusters.values():
            cluster.close()
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    summary = {
        "games": args.games,
        "repeats": args.repeats,
        "serial_games_per_second": round(serial.games / serial_seconds),
        "one_worker_games_per_second": round(one),
        "two_workers_games_per_second_per_worker": round(two),
        "two_to_one": round(2 * two / one, 2),
        "memory": memory,
        "driver_memory_ratio": round(memory[large.name]["driver_mb"] / max(1, memory[small.name]["driver_mb"]), 2),
        "worker_memory_ratio": round(
            memory[large.name]["largest_worker_mb"] / max(1, memory[small.name]["largest_worker_mb"]), 2
        ),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"games per second per worker (median of {args.repeats}): one worker {one:.0f}, two workers {two:.0f}; "
          f"serial reference {summary['serial_games_per_second']}")
    print(f"two workers against one: {summary['two_to_one']}x (target >= 1.7: "
          f"{'met' if summary['two_to_one'] >= 1.7 else 'missed'})")
    for name, figures in memory.items():
        print(f"{name}: {figures}")
    worst = max(summary["driver_memory_ratio"], summary["worker_memory_ratio"])
    print(f"peak memory, 4x the input against 1x: reading process {summary['driver_memory_ratio']}, largest worker "
          f"{summary['worker_memory_ratio']} (target <= 1.2: {'met' if worst <= 1.2 else 'missed'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
