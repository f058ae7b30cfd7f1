"""How soon does a fresh ``iam`` process answer? Process start to output, and the first search's depth.

    .venv/bin/python benchmarks/bench_startup.py [--runs 10] [--movetime 500] [--model MODEL]
        [--json]

Per run, each a fresh process, timed from its start to the output awaited: ``iam
--version`` and ``iam --help`` to their exit; ``iam uci`` to ``uciok`` (sent ``uci``) and to
``readyok`` (``isready`` sent at once after ``uci``); and in the same engine process the
depth the first ``go movetime`` reaches after ``readyok`` against the depth a later one
reaches on the same position after ``ucinewgame`` (empty tables: what differs is only
what the process had loaded). With ``--model MODEL``, also ``iam uci --imitate MODEL`` to
``uciok`` and ``readyok`` (the model is read between them), and the time its first ``go``
after ``readyok`` takes to answer against a later one's on the same position. The
reference, measured in the same run, is the bare interpreter's start (``python -c pass``).
Printed: the medians and the worst of each
time, each median's ratio to the reference, and the depth pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_uci_answers import MIDDLEGAME, Engine  # noqa: E402

IAM = [sys.executable, "-m", "iam"]


def _exit_time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - started


def _depth(lines: list[str]) -> int:
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth ")]
    return max(depths, default=0)


def engine_run(movetime: int, flags: tuple[str, ...] = ()) -> dict[str, float]:
    """One fresh ``iam uci FLAGS``: seconds to ``uciok`` and ``readyok``; the first and a later search's depth
    and seconds to ``bestmove``."""
    engine = Engine([*IAM, "uci", *flags])
    try:
        engine.send("uci")
        engine.send("isready")
        _, uciok = engine.until("uciok", 120)
        _, readyok = engine.until("readyok", 120)
        assert uciok is not None and readyok is not None, "the engine did not start"
        depths, answers = [], []
        for setup in (["position fen " + MIDDLEGAME], ["ucinewgame", "position fen " + MIDDLEGAME]):
            for command in setup:
                engine.send(command)
            sent = time.perf_counter()
            engine.send(f"go movetime {movetime}")
            lines, answered = engine.until("bestmove", movetime / 1000 + 10)
            assert answered is not None, "no bestmove"
            depths.append(_depth(lines))
            answers.append(answered - sent)
        return {"uciok": uciok - engine.started, "readyok": readyok - engine.started,
                "first_depth": depths[0], "later_depth": depths[1], "first_go": answers[0], "later_go": answers[1]}
    finally:
        engine.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--movetime", type=int, default=500)
    parser.add_argument("--model", help="also time 'iam uci --imitate MODEL' (a model file)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"python -c pass": [], "iam --version": [], "iam --help": [], "uciok": [],
                                     "readyok": []}
    if args.model:
        times.update({"uciok (model)": [], "readyok (model)": [], "first go (model)": [], "later go (model)": []})
    depths: list[tuple[int, int]] = []
    for _ in range(args.runs):  # the measures taken in turn, so the machine's load falls on each alike
        times["python -c pass"].append(_exit_time([sys.executable, "-c", "pass"]))
        times["iam --version"].append(_exit_time([*IAM, "--version"]))
        times["iam --help"].append(_exit_time([*IAM, "--help"]))
        run = engine_run(args.movetime)
        times["uciok"].append(run["uciok"])
        times["readyok"].append(run["readyok"])
        depths.append((int(run["first_depth"]), int(run["later_depth"])))
        if args.model:
            imitating = engine_run(args.movetime, ("--imitate", args.model))
            for name, key in (("uciok (model)", "uciok"), ("readyok (model)", "readyok"),
                              ("first go (model)", "first_go"), ("later go (model)", "later_go")):
                times[name].append(imitating[key])
    reference = statistics.median(times["python -c pass"])
    summary = {
        name: {"median_s": round(statistics.median(values), 3), "max_s": round(max(values), 3),
               "ratio_to_python": round(statistics.median(values) / reference, 1)}
        for name, values in times.items()
    }
    shallower = sum(1 for first, later in depths if first < later - 1)
    result = {"times": summary, "depths_first_later": depths, "first_more_than_a_ply_shallower": shallower}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, figures in summary.items():
        print(f"{name:16} median {figures['median_s']:.3f} s  max {figures['max_s']:.3f} s  "
              f"{figures['ratio_to_python']:g}x python's start")
    print(f"go movetime {args.movetime} depths (first, later): {depths}; first more than one ply shallower: "
          f"{shallower} of {len(depths)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
