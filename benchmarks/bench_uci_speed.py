"""Nodes a second through the UCI protocol: our engine against other UCI engines, same positions, same run.

    python benchmarks/bench_uci_speed.py [--positions 10] [--seconds 1] [--rounds 3] [--engine NAME=COMMAND ...]

Positions: the ten middlegames of ``bench_search.py`` (ply 30 of the first bundled Botvinnik games
lasting at least 60 plies). Each engine analyses each position for ``--seconds`` through python-chess's
engine client; its nodes a second are its own count from its last ``info`` line (engines count nodes
in their own ways). The engines take turns position by position, ``--rounds`` times over, so a load on
the shared machine falls on all of them alike. Default engines: ours (``iam uci``) and sunfish when it
is installed (``pip install --no-deps sunfish``); add a previous version's engine with
``--engine "before=/path/to/its/venv/bin/iam uci"``.

Printed per engine: the median nodes a second and depth over positions and rounds, and the median of
the per-position ratios of the first engine's nodes a second to each other engine's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import chess
import chess.engine
from bench_search import middlegame_positions, named_engines

ROOT = Path(__file__).resolve().parent.parent


def analyse_rates(engines: dict[str, list[str]], boards: list[chess.Board], seconds: float, rounds: int) -> dict:
    """Per engine, per position: the nodes a second and depth of each round (engines taking turns)."""
    rates: dict[str, list[list[float]]] = {name: [[] for _ in boards] for name in engines}
    depths: dict[str, list[int]] = {name: [] for name in engines}
    running = {name: chess.engine.SimpleEngine.popen_uci(command, cwd=str(ROOT)) for name, command in engines.items()}
    try:
        for round_number in range(1, rounds + 1):
            for index, board in enumerate(boards):
                for name, engine in running.items():
                    info = engine.analyse(board, chess.engine.Limit(time=seconds), game=object())
                    nodes, spent = info.get("nodes", 0), info.get("time", 0.0)
                    rates[name][index].append(nodes / spent if spent else 0.0)
                    depths[name].append(int(info.get("depth") or 0))
            print(f"round {round_number}/{rounds} done", file=sys.stderr)
    finally:
        for engine in running.values():
            engine.quit()
    return {"rates": rates, "depths": depths}


def summary(outcome: dict) -> dict:
    """Medians per engine and the first engine's per-position speed ratio to each other engine."""
    rates, depths = outcome["rates"], outcome["depths"]
    per_position = {name: [statistics.median(r) for r in rows] for name, rows in rates.items()}
    names = list(rates)
    first = per_position[names[0]]
    return {
        name: {
            "nps_median": statistics.median(rate for row in rates[name] for rate in row),
            "depth_median": statistics.median(depths[name]),
            f"{names[0]}_over_this_median": statistics.median(
                a / b for a, b in zip(first, per_position[name]) if b
            ),
        }
        for name in names
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds of analysis per position")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the positions")
    parser.add_argument("--engine", action="append", default=[], metavar="NAME=COMMAND",
                        help="an engine to measure (repeatable); default: ours and sunfish")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    engines = named_engines(args.engine)
    boards = middlegame_positions(args.positions)
    figures = summary(analyse_rates(engines, boards, args.seconds, args.rounds))
    if args.json:
        print(json.dumps({"seconds": args.seconds, "rounds": args.rounds, "engines": figures}, indent=2))
        return 0
    first = next(iter(engines))
    print(f"{len(boards)} middlegame positions, {args.seconds:g} s each, {args.rounds} rounds")
    for name, row in figures.items():
        print(f"  {name:12s} {row['nps_median']:>12,.0f} nodes/s (depth {row['depth_median']:g}); "
              f"{first} / {name}: {row[f'{first}_over_this_median']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
