"""score_root_moves against one search of the same depth, as ratios measured in one run.

    .venv/bin/python benchmarks/bench_scoring.py [--positions 10] [--depths 1 2 3] [--repeats 5] [--json]

On the middlegame positions the speed benchmarks share (``benchmarks/positions.py``), for
each depth and each position: the median time over ``--repeats`` of
:func:`search.chess.scoring.score_root_moves` at that depth and of one
``ChessSearch().search(board, Limits(depth=depth))`` (a fresh search each time, as
``score_root_moves`` builds its own), the two timed alternately so that a change of load
hits both; their ratio. Reported per depth: the median over the positions of the
per-position ratios (the figure to quote), the median times, and the median ratio of the
nodes (main search plus quiescence) of the two, which the machine's load cannot move.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from positions import middlegame_positions  # noqa: E402  (benchmarks/positions.py)

from search import Limits  # noqa: E402
from search.chess.engine import ChessSearch  # noqa: E402
from search.chess.scoring import score_root_moves  # noqa: E402


def _seconds(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def scoring_ratio(boards: list[chess.Board], depth: int, repeats: int = 5) -> dict:
    """score_root_moves at ``depth`` against one search to ``depth``, per position and as medians."""
    rows = []
    for board in boards:
        scoring, single = [], []
        for _ in range(repeats):
            single.append(_seconds(lambda board=board: ChessSearch().search(board, Limits(depth=depth))))
            scoring.append(_seconds(lambda board=board: score_root_moves(board, depth)))
        one = ChessSearch()
        one.search(board, Limits(depth=depth))
        every = ChessSearch()
        every.score_moves(board, depth)
        rows.append({
            "fen": board.fen(),
            "search_ms": statistics.median(single) * 1000,
            "scoring_ms": statistics.median(scoring) * 1000,
            "ratio": statistics.median(scoring) / statistics.median(single),
            "node_ratio": (every.nodes + every.qnodes) / (one.nodes + one.qnodes),
        })
    return {
        "depth": depth,
        "positions": len(rows),
        "repeats": repeats,
        "ratio_median": statistics.median(r["ratio"] for r in rows),
        "ratio_min": min(r["ratio"] for r in rows),
        "ratio_max": max(r["ratio"] for r in rows),
        "node_ratio_median": statistics.median(r["node_ratio"] for r in rows),
        "search_ms_median": statistics.median(r["search_ms"] for r in rows),
        "scoring_ms_median": statistics.median(r["scoring_ms"] for r in rows),
        "rows": rows,
    }


def report(results: list[dict]) -> str:
    """One line per depth: the median ratio (range), the median times and the node ratio."""
    lines = []
    for r in results:
        lines.append(
            f"score_root_moves / one search, depth {r['depth']}: {r['ratio_median']:.1f}x "
            f"(median of {r['positions']} per-position ratios; {r['ratio_min']:.1f}-{r['ratio_max']:.1f}); "
            f"{r['scoring_ms_median']:.1f} ms against {r['search_ms_median']:.1f} ms; "
            f"nodes {r['node_ratio_median']:.1f}x"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--depths", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--repeats", type=int, default=5, help="timings per position, of each (median)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    boards = middlegame_positions(args.positions)
    results = [scoring_ratio(boards, depth, args.repeats) for depth in args.depths]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"positions: {len(boards)} middlegames (Botvinnik games, ply 30); {args.repeats} timings each")
        print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
