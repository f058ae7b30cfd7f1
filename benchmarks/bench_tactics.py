"""Solved share of the bundled tactics suite at a fixed time per move, engines side by side.

    python benchmarks/bench_tactics.py [--suite benchmarks/wac.epd] [--movetime 500] [--engine NAME=COMMAND ...]

Each engine is asked for its move in every position of an EPD suite with ``go movetime``; a
position is solved when the move is one of its ``bm`` moves. Two suites ship:
``benchmarks/tactics.epd`` (the default; positions of the bundled games, built by
``scripts/build_tactics_suite.py``: stockfish's best move at depth 16 beats the second by at
least two pawns) and ``benchmarks/wac.epd`` (Win At Chess, the classical 300 positions, with
their published best moves). The engines take turns position by position, so a load on the shared
machine falls on both alike. Default engines: ours (``iam uci``) and sunfish when it is
installed (``pip install --no-deps sunfish``). Printed: solved share with its 95% Wilson
interval, the positions only one engine solved, and how late each answer came (wall
time of the exchange beyond the move time, median and maximum).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.engine
from bench_search import named_engines
from scipy.stats import binomtest
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "benchmarks" / "tactics.epd"


Position = tuple[chess.Board, frozenset[chess.Move], str]


def read_suite(path: Path, limit: int | None) -> list[Position]:
    """(board, best moves, id) for each line of an EPD file with a ``bm`` operation (any of its moves solves)."""
    suite = []
    for line in path.read_text(encoding="utf-8").splitlines()[:limit]:
        board, operations = chess.Board.from_epd(line)
        suite.append((board, frozenset(operations["bm"]), operations.get("id", "")))
    return suite


def run(engines: dict[str, list[str]], suite: list[Position], movetime: float) -> dict:
    """Every engine on every position, taking turns; per engine the moves solved and the lateness."""
    solved = {name: [] for name in engines}
    late_ms = {name: [] for name in engines}
    running = {name: chess.engine.SimpleEngine.popen_uci(command, cwd=str(ROOT)) for name, command in engines.items()}
    try:
        for board, best, _ in tqdm(suite, desc="positions", file=sys.stderr):
            for name, engine in running.items():
                engine.protocol.send_line("ucinewgame")
                started = time.perf_counter()
                played = engine.play(board, chess.engine.Limit(time=movetime)).move
                late_ms[name].append((time.perf_counter() - started - movetime) * 1000)
                solved[name].append(played in best)
    finally:
        for engine in running.values():
            engine.quit()
    return {"solved": solved, "late_ms": late_ms}


def summary(solved: list[bool], late_ms: list[float]) -> dict:
    """Solved share with its 95% Wilson interval, and the lateness figures."""
    count = sum(solved)
    interval = binomtest(count, len(solved)).proportion_ci(confidence_level=0.95, method="wilson")
    return {
        "positions": len(solved),
        "solved": count,
        "share": count / len(solved),
        "ci95": [interval.low, interval.high],
        "late_median_ms": statistics.median(late_ms),
        "late_max_ms": max(late_ms),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=int, default=500, help="milliseconds per move (default 500)")
    parser.add_argument("--engine", action="append", default=[], metavar="NAME=COMMAND",
                        help="an engine to test (repeatable); default: ours and sunfish")
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--limit", type=int, help="only the first N positions")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    engines = named_engines(args.engine)
    suite = read_suite(args.suite, args.limit)
    outcome = run(engines, suite, args.movetime / 1000)
    figures = {name: summary(outcome["solved"][name], outcome["late_ms"][name]) for name in engines}
    names = list(engines)
    if len(names) >= 2:
        first, second = (outcome["solved"][name] for name in names[:2])
        figures["only"] = {names[0]: sum(a and not b for a, b in zip(first, second)),
                           names[1]: sum(b and not a for a, b in zip(first, second))}
    if args.json:
        print(json.dumps({"movetime_ms": args.movetime, "engines": figures}, indent=2))
        return 0
    print(f"{len(suite)} positions of {args.suite.name}, go movetime {args.movetime}")
    for name in names:
        row = figures[name]
        print(f"  {name:10s} solved {row['solved']:3d} = {row['share']:.3f} "
              f"(95% {row['ci95'][0]:.3f}-{row['ci95'][1]:.3f}); answer late by median "
              f"{row['late_median_ms']:.1f} ms, max {row['late_max_ms']:.1f} ms")
    if "only" in figures:
        print("  solved by one engine only: " + ", ".join(f"{k} {v}" for k, v in figures["only"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
