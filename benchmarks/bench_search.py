"""Search speed, measured against python-chess itself in the same run.

    .venv/bin/python benchmarks/bench_search.py [--positions 10] [--depth 5] [--json]

Positions: ten middlegame positions taken from the bundled Botvinnik games (ply 30 of
the first games lasting at least 60 plies), so the set is fixed and needs no list here.

Reported, each as the median over the positions:
- reference: python-chess move generation plus push/pop, as a perft-style walk to
  depth 3 (nodes per second). A search built on python-chess cannot visit nodes faster
  than this; the ratio says how much the search adds on top.
- search: nodes per second of iterative-deepening alpha-beta with move ordering,
  quiescence and a transposition table, and the time to complete depth 4 and depth 5.
- UCI: how far ``go movetime`` overruns, timed from the ``go`` to the ``bestmove``
  through python-chess's engine client (the protocol promises at most 50 ms).
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
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from search import HeuristicOrderer, Limits, TranspositionTable, iterate  # noqa: E402
from search.chesseval import material_pst_evaluator  # noqa: E402
from search.chessgame import ChessGame  # noqa: E402


def middlegame_positions(count: int, *, ply: int = 30) -> list[chess.Board]:
    """Boards at ``ply`` from the first ``count`` long games of the bundled Botvinnik file."""
    boards = []
    with open(ROOT / "datasets" / "Botvinnik.pgn", encoding="utf-8", errors="replace") as handle:
        while len(boards) < count and (game := chess.pgn.read_game(handle)) is not None:
            moves = list(game.mainline_moves())
            if len(moves) < 2 * ply:
                continue
            board = game.board()
            for move in moves[:ply]:
                board.push(move)
            if not board.is_game_over():
                boards.append(board)
    return boards


def reference_rate(board: chess.Board, depth: int = 3) -> float:
    """python-chess alone: legal move generation + push/pop, nodes per second."""
    board = board.copy()
    nodes = 0

    def walk(remaining: int) -> None:
        nonlocal nodes
        nodes += 1
        if remaining == 0:
            return
        for move in list(board.legal_moves):
            board.push(move)
            walk(remaining - 1)
            board.pop()

    started = time.perf_counter()
    walk(depth)
    return nodes / (time.perf_counter() - started)


def search_run(board: chess.Board, depth: int) -> dict:
    """Iterative deepening to ``depth``; time to complete each depth, nodes per second."""
    reached = {}
    last = None
    for result in iterate(
        ChessGame(),
        board,
        evaluator=material_pst_evaluator(),
        limits=Limits(depth=depth),
        ordering=HeuristicOrderer(),
        table=TranspositionTable(),
        quiescence=True,
    ):
        reached[result.depth] = result.seconds
        last = result
    return {
        "seconds_to_depth": reached,
        "nodes": last.total_nodes,
        "nps": last.total_nodes / last.seconds,
    }


def uci_overruns(boards: list[chess.Board], movetime_ms: int) -> list[float]:
    """Milliseconds beyond ``movetime`` from sending ``go`` to receiving ``bestmove``."""
    overruns = []
    command = [sys.executable, "-m", "iam", "uci"]
    with chess.engine.SimpleEngine.popen_uci(command, cwd=str(ROOT)) as engine:
        for board in boards:
            started = time.perf_counter()
            engine.play(board, chess.engine.Limit(time=movetime_ms / 1000))
            overruns.append((time.perf_counter() - started) * 1000 - movetime_ms)
    return overruns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--movetime", type=int, default=200, help="ms for the UCI overrun check")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    boards = middlegame_positions(args.positions)
    reference = [reference_rate(b) for b in boards]
    runs = []
    for index, board in enumerate(boards, 1):
        runs.append(search_run(board, args.depth))
        print(f"position {index}/{len(boards)} done", file=sys.stderr)
    overruns = uci_overruns(boards, args.movetime)

    search_nps = [r["nps"] for r in runs]
    summary = {
        "positions": len(boards),
        "reference_python_chess_nps_median": statistics.median(reference),
        "search_nps_median": statistics.median(search_nps),
        "search_to_reference_ratio_median": statistics.median(
            s / r for s, r in zip(search_nps, reference)
        ),
        "seconds_to_depth_median": {
            depth: statistics.median(r["seconds_to_depth"][depth] for r in runs)
            for depth in range(1, args.depth + 1)
        },
        "uci_movetime_ms": args.movetime,
        "uci_overrun_ms_median": statistics.median(overruns),
        "uci_overrun_ms_max": max(overruns),
        "fens": [b.fen() for b in boards],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"positions: {len(boards)} middlegames (Botvinnik games, ply 30)")
    reference_nps = summary["reference_python_chess_nps_median"]
    print(f"reference, python-chess movegen + push/pop: {reference_nps:,.0f} nodes/s")
    print(f"search (ordering + quiescence + TT):        {summary['search_nps_median']:,.0f} nodes/s "
          f"({summary['search_to_reference_ratio_median']:.2f} x reference)")
    for depth, seconds in summary["seconds_to_depth_median"].items():
        print(f"  median time to complete depth {depth}: {seconds:.2f} s")
    print(f"UCI go movetime {args.movetime}: overrun median {summary['uci_overrun_ms_median']:.1f} ms, "
          f"max {summary['uci_overrun_ms_max']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
