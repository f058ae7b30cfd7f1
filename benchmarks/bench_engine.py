"""Cost of engine evidence: every legal move scored by a UCI engine, and the cache.

    .venv/bin/python benchmarks/bench_engine.py [--engine PATH] [--positions 20] [--depths 1,4,8,12]
        [--batch-depth 12] [--repeats 3] [--json]

Positions: ply 30 of the first long games (at least 60 plies) of the bundled Botvinnik
file, so the set is fixed and needs no list here.

Reported, each as the median over the positions:
- all moves: one ``EngineAnalyser.analyse`` from an empty cache (MultiPV = number of
  legal moves, hash cleared before each position), per depth;
- best move only: the same engine asked for its single best line (MultiPV 1, hash
  cleared) at the same depth, to show what scoring every move costs on top;
- cache hit: ``analyse`` of a cached position by an analyser that never starts the engine.

And one batch: ``analyse_many`` of all the positions from an empty cache, the engine's best
3 moves at ``--batch-depth`` (as the dossier asks), on one engine process and spread over
two (``engines=2``), alternating, ``--repeats`` times each: the median seconds of each and
their ratio (one over two; up to 2 on two free cores), and whether both gave the same scores.

Without an engine (none given, none on PATH, no /usr/games/stockfish) it says so and exits.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from positions import middlegame_positions  # noqa: E402  (benchmarks/positions.py)

from iam.engines.analysis import EngineAnalyser  # noqa: E402


def median_ms(seconds: list[float]) -> float:
    return round(1000 * statistics.median(seconds), 2)


def time_all_moves(engine: str, boards: list[chess.Board], depth: int, cache: Path) -> list[float]:
    """Seconds per position for a full analysis from an empty cache (engine already running)."""
    times = []
    with EngineAnalyser(engine, depth=depth, cache=cache) as analyser:
        analyser.analyse(chess.Board("8/8/8/8/8/k7/8/K6R w - - 0 1"))  # start the engine outside the timing
        for board in boards:
            started = time.perf_counter()
            analyser.analyse(board)
            times.append(time.perf_counter() - started)
    return times


def time_best_move(engine: str, boards: list[chess.Board], depth: int) -> list[float]:
    """Seconds per position for the engine's single best line at the same depth."""
    times = []
    with chess.engine.SimpleEngine.popen_uci(engine) as uci:
        uci.configure({"Threads": 1, "Hash": 16})
        for board in boards:
            started = time.perf_counter()
            uci.analyse(board, chess.engine.Limit(depth=depth), game=object())
            times.append(time.perf_counter() - started)
    return times


def time_cache_hits(engine: str, cache: Path, boards: list[chess.Board], depth: int) -> list[float]:
    """Seconds per ``analyse`` of a cached position by a new analyser (it never starts the engine)."""
    times = []
    with EngineAnalyser(engine, depth=depth, cache=cache) as analyser:
        for board in boards:
            started = time.perf_counter()
            analyser.analyse(board)
            times.append(time.perf_counter() - started)
    return times


def time_batch(engine: str, boards: list[chess.Board], depth: int, engines: int) -> tuple[float, list]:
    """Seconds for one ``analyse_many`` of ``boards`` from an empty cache on ``engines`` processes, and the scores."""
    with tempfile.TemporaryDirectory() as folder, EngineAnalyser(
        engine, depth=depth, cache=Path(folder) / "batch.sqlite", lines=3, engines=engines
    ) as analyser:
        for lane in range(engines):  # start the engines outside the timing
            analyser._running_engine(lane)
        started = time.perf_counter()
        results = analyser.analyse_many(boards)
        return time.perf_counter() - started, [result.scores for result in results]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=shutil.which("stockfish") or shutil.which("/usr/games/stockfish"))
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--depths", default="1,4,8,12")
    parser.add_argument("--batch-depth", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print a machine-readable summary")
    args = parser.parse_args()
    if not args.engine or not shutil.which(args.engine):
        print("bench_engine: no UCI engine found (install stockfish or pass --engine PATH); nothing measured")
        return 0
    boards = middlegame_positions(args.positions)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for depth in (int(text) for text in args.depths.split(",")):
            cache = Path(folder) / f"depth{depth}.sqlite"
            all_moves = time_all_moves(args.engine, boards, depth, cache)
            rows.append(
                {
                    "depth": depth,
                    "all_moves_ms": median_ms(all_moves),
                    "best_move_ms": median_ms(time_best_move(args.engine, boards, depth)),
                    "cache_hit_ms": median_ms(time_cache_hits(args.engine, cache, boards, depth)),
                }
            )
            rows[-1]["all_over_best"] = round(rows[-1]["all_moves_ms"] / max(rows[-1]["best_move_ms"], 1e-3), 1)
            if not args.json:
                print(rows[-1], flush=True)
    seconds: dict[int, list[float]] = {1: [], 2: []}
    scores: dict[int, list] = {}
    for _ in range(args.repeats):
        for engines in (1, 2):
            took, scores[engines] = time_batch(args.engine, boards, args.batch_depth, engines)
            seconds[engines].append(took)
    one, two = (statistics.median(seconds[engines]) for engines in (1, 2))
    batch = {"depth": args.batch_depth, "one_engine_s": round(one, 2), "two_engines_s": round(two, 2),
             "one_over_two": round(one / two, 2), "same_scores": scores[1] == scores[2]}
    if not args.json:
        print({"batch": batch}, flush=True)
    legal = statistics.median(board.legal_moves.count() for board in boards)
    summary = {
        "engine": args.engine, "positions": len(boards), "median_legal_moves": legal, "rows": rows, "batch": batch
    }
    print(json.dumps(summary, indent=2) if args.json else f"{len(boards)} positions, median {legal} legal moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
