"""The compiled chess core against the pure-Python core it replaced, in the same run.

    .venv/bin/python benchmarks/bench_core.py [--positions 10] [--depth 5] [--score-depth 3] [--json]

The pure-Python core (its ``board.py`` and ``engine.py``) is read from the git history
(``--commit``, the last commit that had it) into a temporary package, and exists only for
this run. Both cores search the same middlegame positions (``benchmarks/positions.py``)
with a fresh search each: iterative deepening to ``--depth``, and every legal move's exact
value (``score_moves``) to ``--score-depth``. Each position is searched by both cores and
must give the same value, move and node counts (the benchmark stops if not).

Reported: per core the median over the positions of nodes per second (quiescence nodes
included) and of the scoring's milliseconds; the ratio of the medians and the median of
the per-position ratios. The compiled core is warmed up first (numba loads its machine
code from ``__pycache__``, or compiles it on a first run), so the figures are the search's,
not the loading's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from positions import middlegame_positions  # noqa: E402  (benchmarks/positions.py)

from search.chess.engine import ChessSearch  # noqa: E402
from search.result import Limits  # noqa: E402

PURE_PYTHON_CORE = "b8556b6adfe632b311dd3ef2d06c47aca5f2aaae"
"""The last commit whose ``search/chess/board.py`` and ``engine.py`` are the pure-Python core."""


def pure_python_core(commit: str, folder: Path) -> ModuleType:
    """The pure-Python ``engine`` module of ``commit``, on that commit's board, as a temporary package."""
    package = folder / "pure_python_core"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("board", "engine"):
        source = subprocess.run(
            ["git", "show", f"{commit}:search/chess/{name}.py"], cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
        source = source.replace("from search.chess.board import", "from pure_python_core.board import")
        (package / f"{name}.py").write_text(source)
    sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location("pure_python_core.engine", package / "engine.py")
    assert spec is not None and spec.loader is not None
    importlib.import_module("pure_python_core")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(search_class: type, board: chess.Board, depth: int, score_depth: int) -> dict:
    """One fresh search to ``depth`` and one fresh scoring to ``score_depth`` of ``board``."""
    started = time.perf_counter()
    result = search_class().search(board, Limits(depth=depth))
    seconds = time.perf_counter() - started
    scorer = search_class()
    started = time.perf_counter()
    scores = scorer.score_moves(board, score_depth)
    scoring = time.perf_counter() - started
    return {
        "answer": (result.value, result.move, result.pv, result.nodes, result.qnodes),
        "scores": (scores, scorer.nodes, scorer.qnodes),
        "nodes": result.total_nodes,
        "nps": result.total_nodes / seconds,
        "scoring_ms": 1000 * scoring,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--score-depth", type=int, default=3)
    parser.add_argument("--commit", default=PURE_PYTHON_CORE, help="a commit with the pure-Python core")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    boards = middlegame_positions(args.positions)
    with tempfile.TemporaryDirectory() as folder:
        pure = pure_python_core(args.commit, Path(folder))
        started = time.perf_counter()
        ChessSearch().search(boards[0], Limits(depth=2))
        ChessSearch().score_moves(boards[0], 2)
        warm_up = time.perf_counter() - started
        rows = []
        for index, board in enumerate(boards):
            compiled = run(ChessSearch, board, args.depth, args.score_depth)
            python = run(pure.ChessSearch, board, args.depth, args.score_depth)
            if compiled["answer"] != python["answer"] or compiled["scores"] != python["scores"]:
                print(f"position {index} ({board.fen()}): the cores disagree", file=sys.stderr)
                return 1
            rows.append({"fen": board.fen(), "compiled": compiled, "python": python})

    def median(core: str, key: str) -> float:
        return statistics.median(row[core][key] for row in rows)

    summary = {
        "positions": len(rows),
        "depth": args.depth,
        "score_depth": args.score_depth,
        "warm_up_seconds": round(warm_up, 3),
        "nodes_median": median("compiled", "nodes"),
        "nps": {"compiled": round(median("compiled", "nps")), "python": round(median("python", "nps"))},
        "scoring_ms": {"compiled": round(median("compiled", "scoring_ms"), 2),
                       "python": round(median("python", "scoring_ms"), 2)},
    }
    summary["nps_ratio"] = round(summary["nps"]["compiled"] / summary["nps"]["python"], 1)
    summary["nps_ratio_median_per_position"] = round(
        statistics.median(row["compiled"]["nps"] / row["python"]["nps"] for row in rows), 1
    )
    summary["scoring_ratio"] = round(summary["scoring_ms"]["python"] / summary["scoring_ms"]["compiled"], 1)
    summary["scoring_ratio_median_per_position"] = round(
        statistics.median(row["python"]["scoring_ms"] / row["compiled"]["scoring_ms"] for row in rows), 1
    )
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{len(rows)} middlegame positions, a fresh search each; same values, moves and node counts in both cores")
    print(f"warm-up of the compiled core (loading its cached machine code): {warm_up:.2f} s")
    print(f"search to depth {args.depth} (median {summary['nodes_median']:.0f} nodes):")
    print(f"  pure Python  {summary['nps']['python']:>12,} nodes/s")
    print(f"  compiled     {summary['nps']['compiled']:>12,} nodes/s")
    print(f"  ratio        {summary['nps_ratio']:>12}x (median of per-position ratios "
          f"{summary['nps_ratio_median_per_position']}x)")
    print(f"score_moves to depth {args.score_depth}:")
    print(f"  pure Python  {summary['scoring_ms']['python']:>12.1f} ms")
    print(f"  compiled     {summary['scoring_ms']['compiled']:>12.1f} ms")
    print(f"  ratio        {summary['scoring_ratio']:>12}x (median of per-position ratios "
          f"{summary['scoring_ratio_median_per_position']}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
