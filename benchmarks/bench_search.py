"""Search speed: the fast chess core against the generic search on python-chess (before),
against python-chess's own move generation and against sunfish, in the same run.

    .venv/bin/python benchmarks/bench_search.py [--positions 10] [--depth 5] [--json]

Positions: ten middlegame positions taken from the bundled Botvinnik games (ply 30 of
the first games lasting at least 60 plies), so the set is fixed and needs no list here.

Reported, each as the median over the positions:
- reference: python-chess move generation plus push/pop, as a perft-style walk to
  depth 3 (nodes per second).
- before: the generic iterative-deepening alpha-beta on the python-chess adapter
  (move ordering, quiescence, transposition table; material + piece-square
  evaluation): nodes per second and the time to complete each depth up to ``--depth``.
- after: the fast chess core (:mod:`search.chess.engine`), the same figures, and the
  ratio of the depth-``--depth`` times (before / after).
- score_root_moves at depth 1 and 2: milliseconds per position; and at depths 1, 2
  and 3 its time against one search of the same depth, as the median of per-position
  ratios (``bench_scoring.py``, which runs that part alone).
- UCI, same time per position (``--uci-seconds``) through python-chess's engine
  client: our engine and sunfish (the PyPI package, when installed; it is not a
  dependency), each engine's own nodes per second from its last ``info`` line.
- UCI: how far the engine overruns the time it was given, timed from the ``go`` to
  the ``bestmove`` through python-chess's engine client, for ``go movetime`` and for
  clock play (``go wtime/btime/winc/binc``, measured against the share of the clock
  the engine allots itself), and how long a ``stop`` during ``go infinite`` takes to
  bring the ``bestmove``, median and maximum over several tries, against the 50 ms
  target (met / missed).
- transposition table: the cost of storing a new position into a full table (each
  store evicts the oldest entry) against storing into a table with room, in
  nanoseconds per store; a constant-time eviction keeps the ratio near 1.
- node counts (source note 001, "Statistics"): the node-count experiment in a small
  configuration (depths 1..``--node-depth``, a per-search time cap), printed as its
  tables; the full run is ``iam experiment node-counts``.
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

from bench_scoring import report as scoring_report  # noqa: E402  (benchmarks/bench_scoring.py)
from bench_scoring import scoring_ratio  # noqa: E402
from positions import middlegame_positions  # noqa: E402  (benchmarks/positions.py)

from search import Bound, HeuristicOrderer, Limits, TranspositionTable, iterate  # noqa: E402
from search.chess.engine import ChessSearch  # noqa: E402
from search.chess.evaluation import material_pst_evaluator  # noqa: E402
from search.chess.game import ChessGame  # noqa: E402
from search.chess.match import engine_command  # noqa: E402
from search.chess.scoring import score_root_moves  # noqa: E402
from search.chess.uci import GoClock, GoCommand, allotted_time  # noqa: E402

OVERRUN_TARGET_MS = 50.0


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


def fast_run(board: chess.Board, depth: int) -> dict:
    """The fast chess core, iterative deepening to ``depth``: the same figures as :func:`search_run`."""
    reached = {}
    last = None
    for result in ChessSearch().iterate(board, Limits(depth=depth)):
        reached[result.depth] = result.seconds
        last = result
    return {"seconds_to_depth": reached, "nodes": last.total_nodes, "nps": last.total_nodes / last.seconds}


def scoring_ms(boards: list[chess.Board], depth: int) -> float:
    """Median milliseconds of :func:`score_root_moves` at ``depth`` over ``boards``."""
    times = []
    for board in boards:
        started = time.perf_counter()
        score_root_moves(board, depth)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def sunfish_command() -> list[str] | None:
    """The command that starts sunfish's UCI engine, or ``None`` when it is not installed."""
    try:
        import sunfish  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "sunfish"]


def named_engines(items: list[str]) -> dict[str, list[str]]:
    """UCI engine commands by name from ``NAME=COMMAND`` items; none: ours (``iam uci``) and sunfish if installed."""
    engines = {}
    for item in items:
        name, _, command = item.partition("=")
        engines[name] = engine_command(command)
    if not engines:
        engines["ours"] = [sys.executable, "-m", "iam", "uci"]
        if (sunfish := sunfish_command()) is not None:
            engines["sunfish"] = sunfish
    return engines


def uci_rates(boards: list[chess.Board], command: list[str], seconds: float) -> list[dict]:
    """Per position: the engine's last ``info`` (depth, nodes, time) after ``seconds`` of analysis."""
    rows = []
    with chess.engine.SimpleEngine.popen_uci(command, cwd=str(ROOT)) as engine:
        for board in boards:
            info = engine.analyse(board, chess.engine.Limit(time=seconds))
            nodes, spent = info.get("nodes", 0), info.get("time", 0.0)
            rows.append({"depth": info.get("depth"), "nodes": nodes, "time": spent,
                         "nps": nodes / spent if spent else 0.0})
    return rows


def table_store_cost(capacity: int, stores: int, *, repeats: int = 3) -> dict:
    """Nanoseconds per store of a new key into a table with room and into a full one.

    Both tables first get ``capacity`` entries; then ``stores`` new keys go in. The
    table with room grows; the full one evicts on every store. Medians of ``repeats``.
    """
    def timed(table_capacity: int) -> float:
        table = TranspositionTable(capacity=table_capacity)
        for key in range(capacity):
            table.store(key, depth=1, value=0, bound=Bound.EXACT, action=None)
        started = time.perf_counter()
        for key in range(capacity, capacity + stores):
            table.store(key, depth=1, value=0, bound=Bound.EXACT, action=None)
        return (time.perf_counter() - started) / stores * 1e9

    room = statistics.median(timed(capacity + stores) for _ in range(repeats))
    full = statistics.median(timed(capacity) for _ in range(repeats))
    return {"capacity": capacity, "stores": stores, "room_ns": room, "full_ns": full, "ratio": full / room}


def uci_overruns(boards: list[chess.Board], movetime_ms: int, clock_ms: int, tries: int) -> dict:
    """Milliseconds beyond the allotted time, from sending ``go`` to receiving ``bestmove``.

    ``movetime``: beyond ``movetime_ms``. ``clock``: both clocks at ``clock_ms`` with a
    100 ms increment, beyond the share the engine allots itself
    (:func:`search.chess.uci.allotted_time` of the same ``go``).
    """
    command = [sys.executable, "-m", "iam", "uci"]
    clock = GoCommand(clock=GoClock(wtime=clock_ms, btime=clock_ms, winc=100, binc=100))
    runs = {"movetime": [], "clock": []}
    with chess.engine.SimpleEngine.popen_uci(command, cwd=str(ROOT)) as engine:
        for _ in range(tries):
            for board in boards:
                started = time.perf_counter()
                engine.play(board, chess.engine.Limit(time=movetime_ms / 1000))
                runs["movetime"].append((time.perf_counter() - started) * 1000 - movetime_ms)
                allotted_ms = allotted_time(clock, board.turn) * 1000
                limit = chess.engine.Limit(
                    white_clock=clock_ms / 1000, black_clock=clock_ms / 1000, white_inc=0.1, black_inc=0.1
                )
                started = time.perf_counter()
                engine.play(board, limit)
                runs["clock"].append((time.perf_counter() - started) * 1000 - allotted_ms)
    return {
        kind: {
            "tries": len(values),
            "median_ms": statistics.median(values),
            "max_ms": max(values),
            "target_ms": OVERRUN_TARGET_MS,
            "met": max(values) <= OVERRUN_TARGET_MS,
        }
        for kind, values in runs.items()
    }


def uci_stop_latency(boards: list[chess.Board], think_seconds: float, tries: int) -> dict:
    """Milliseconds from ``stop`` to ``bestmove`` during ``go infinite``, median and maximum."""
    command = [sys.executable, "-m", "iam", "uci"]
    latencies = []
    with chess.engine.SimpleEngine.popen_uci(command, cwd=str(ROOT)) as engine:
        for _ in range(tries):
            for board in boards:
                with engine.analysis(board) as analysis:
                    time.sleep(think_seconds)
                    started = time.perf_counter()
                    analysis.stop()
                    analysis.wait()
                    latencies.append((time.perf_counter() - started) * 1000)
    return {
        "tries": len(latencies),
        "median_ms": statistics.median(latencies),
        "max_ms": max(latencies),
        "target_ms": OVERRUN_TARGET_MS,
        "met": max(latencies) <= OVERRUN_TARGET_MS,
    }


def node_count_table(max_depth: int, time_cap: float) -> tuple[str, list[dict]]:
    """The node-count experiment's markdown tables and rows, both positions."""
    import pandas as pd

    from experiments import node_counts

    rows = [
        row
        for position in node_counts.POSITIONS
        for algorithm in node_counts.ALGORITHMS
        for row in node_counts.series(algorithm, position, max_depth, time_cap)
    ]
    return node_counts.markdown(pd.DataFrame(rows), time_cap), rows


def extra_checks(args: argparse.Namespace, boards: list) -> tuple:
    """The UCI overrun and stop-latency checks, the table-store cost and the node-count table.

    Empty results with ``--skip-extras``; no node-count table with ``--node-depth 0``.
    """
    if args.skip_extras:
        return {}, None, None, "", []
    overruns = uci_overruns(boards, args.movetime, args.clock, args.tries)
    stop_latency = uci_stop_latency(boards, args.movetime / 1000, args.tries)
    store_cost = table_store_cost(args.table_capacity, args.table_capacity // 2)
    node_markdown, node_rows = node_count_table(args.node_depth, args.node_cap) if args.node_depth else ("", [])
    return overruns, stop_latency, store_cost, node_markdown, node_rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--movetime", type=int, default=200, help="ms for the UCI overrun check")
    parser.add_argument("--clock", type=int, default=8000, help="ms on each clock for the clock-play check")
    parser.add_argument("--tries", type=int, default=2, help="passes over the positions for the UCI checks")
    parser.add_argument("--table-capacity", type=int, default=300_000,
                        help="entries in the table of the store-cost check (the UCI default Hash holds 320,000)")
    parser.add_argument("--node-depth", type=int, default=4,
                        help="deepest depth of the node-count table (0: skip it)")
    parser.add_argument("--node-cap", type=float, default=20.0, help="seconds per node-count search")
    parser.add_argument("--uci-seconds", type=float, default=1.0,
                        help="seconds per position for the UCI nodes/s comparison with sunfish")
    parser.add_argument("--skip-extras", action="store_true",
                        help="skip the UCI overrun, table-store and node-count checks")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    boards = middlegame_positions(args.positions)
    reference = [reference_rate(b) for b in boards]
    runs, fast = [], []
    for index, board in enumerate(boards, 1):
        runs.append(search_run(board, args.depth))
        fast.append(fast_run(board, args.depth))
        print(f"position {index}/{len(boards)} done", file=sys.stderr)
    scoring = {depth: scoring_ms(boards, depth) for depth in (1, 2)}
    scoring_ratios = [scoring_ratio(boards, depth, repeats=3) for depth in (1, 2, 3)]
    ours_uci = uci_rates(boards, [sys.executable, "-m", "iam", "uci"], args.uci_seconds)
    sunfish = sunfish_command()
    sunfish_uci = uci_rates(boards, sunfish, args.uci_seconds) if sunfish else []
    overruns, stop_latency, store_cost, node_markdown, node_rows = extra_checks(args, boards)

    search_nps = [r["nps"] for r in runs]
    fast_nps = [r["nps"] for r in fast]
    depths = range(1, args.depth + 1)
    summary = {
        "positions": len(boards),
        "reference_python_chess_nps_median": statistics.median(reference),
        "search_nps_median": statistics.median(search_nps),
        "search_to_reference_ratio_median": statistics.median(
            s / r for s, r in zip(search_nps, reference)
        ),
        "seconds_to_depth_median": {
            depth: statistics.median(r["seconds_to_depth"][depth] for r in runs) for depth in depths
        },
        "fast_nps_median": statistics.median(fast_nps),
        "fast_to_before_nps_ratio_median": statistics.median(f / s for f, s in zip(fast_nps, search_nps)),
        "fast_seconds_to_depth_median": {
            depth: statistics.median(r["seconds_to_depth"][depth] for r in fast) for depth in depths
        },
        "depth_time_ratio_before_over_after_median": statistics.median(
            b["seconds_to_depth"][args.depth] / a["seconds_to_depth"][args.depth] for b, a in zip(runs, fast)
        ),
        "score_root_moves_ms_median": scoring,
        "score_root_moves_over_one_search": {
            r["depth"]: {key: r[key] for key in ("ratio_median", "ratio_min", "ratio_max", "node_ratio_median")}
            for r in scoring_ratios
        },
        "uci_seconds": args.uci_seconds,
        "uci_ours_nps_median": statistics.median(r["nps"] for r in ours_uci),
        "uci_ours_depth_median": statistics.median(r["depth"] or 0 for r in ours_uci),
        "uci_sunfish_nps_median": statistics.median(r["nps"] for r in sunfish_uci) if sunfish_uci else None,
        "uci_sunfish_depth_median": statistics.median(r["depth"] or 0 for r in sunfish_uci) if sunfish_uci else None,
        "uci_ours_over_sunfish_nps_ratio_median": statistics.median(
            o["nps"] / f["nps"] for o, f in zip(ours_uci, sunfish_uci) if f["nps"]
        ) if sunfish_uci else None,
        "uci_movetime_ms": args.movetime,
        "uci_clock_ms": args.clock,
        "uci_overrun": overruns,
        "uci_stop_latency": stop_latency,
        "table_store_ns": store_cost,
        "node_counts": node_rows,
        "fens": [b.fen() for b in boards],
    }
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
        return 0
    print(f"positions: {len(boards)} middlegames (Botvinnik games, ply 30)")
    reference_nps = summary["reference_python_chess_nps_median"]
    print(f"reference, python-chess movegen + push/pop: {reference_nps:,.0f} nodes/s")
    print(f"before, generic search on python-chess:     {summary['search_nps_median']:,.0f} nodes/s "
          f"({summary['search_to_reference_ratio_median']:.2f} x reference)")
    for depth, seconds in summary["seconds_to_depth_median"].items():
        print(f"  median time to complete depth {depth}: {seconds:.2f} s")
    print(f"after, fast chess core:                     {summary['fast_nps_median']:,.0f} nodes/s "
          f"({summary['fast_to_before_nps_ratio_median']:.2f} x before)")
    for depth, seconds in summary["fast_seconds_to_depth_median"].items():
        print(f"  median time to complete depth {depth}: {seconds:.2f} s")
    print(f"depth {args.depth}, before / after (median of per-position ratios): "
          f"{summary['depth_time_ratio_before_over_after_median']:.2f}")
    for depth, millis in scoring.items():
        print(f"score_root_moves, depth {depth}: {millis:.1f} ms per position (median)")
    print(scoring_report(scoring_ratios))
    print(f"UCI, {args.uci_seconds:g} s per position: ours {summary['uci_ours_nps_median']:,.0f} nodes/s "
          f"(depth {summary['uci_ours_depth_median']:g})", end="")
    if sunfish_uci:
        print(f", sunfish {summary['uci_sunfish_nps_median']:,.0f} nodes/s "
              f"(depth {summary['uci_sunfish_depth_median']:g}); ours / sunfish "
              f"{summary['uci_ours_over_sunfish_nps_ratio_median']:.2f} (median of per-position ratios)")
    else:
        print("; sunfish not installed (pip install sunfish to compare)")
    if args.skip_extras:
        return 0
    labels = {
        "movetime": f"go movetime {args.movetime}",
        "clock": f"go wtime/btime {args.clock} winc/binc 100",
    }
    print(f"table store into a full table of {store_cost['capacity']:,}: {store_cost['full_ns']:,.0f} ns "
          f"(with room: {store_cost['room_ns']:,.0f} ns; {store_cost['ratio']:.2f} x)")
    for kind, figures in overruns.items():
        verdict = "met" if figures["met"] else "missed"
        print(f"UCI {labels[kind]}: overrun median {figures['median_ms']:.1f} ms, "
              f"max {figures['max_ms']:.1f} ms over {figures['tries']} tries "
              f"(target {OVERRUN_TARGET_MS:.0f} ms: {verdict})")
    verdict = "met" if stop_latency["met"] else "missed"
    print(f"UCI stop during go infinite: bestmove after median {stop_latency['median_ms']:.1f} ms, "
          f"max {stop_latency['max_ms']:.1f} ms over {stop_latency['tries']} tries "
          f"(target {OVERRUN_TARGET_MS:.0f} ms: {verdict})")
    if node_markdown:
        print()
        print(node_markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
