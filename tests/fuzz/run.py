"""The large hostile-input run: mutated PGN files, model files of both formats and UCI sessions, with counts.

    .venv/bin/python tests/fuzz/run.py --pgn 10000 --models 1000 --rankers 1000 --uci 1000 --jobs 2
    .venv/bin/python tests/fuzz/run.py --case pgn:1234      # replay one case and show it

Each case runs in a worker process under a time limit (``--timeout``, 20 s): a case
that does not finish in time is a hang, its worker is replaced and the run goes on.
The figures printed: per kind, cases, accepted, refused with a clear error,
tracebacks, invariant violations, hangs, the slowest case, and the invariants'
counts (games by a plain reading and games unaccounted for, used games cut short,
beliefs checked and out of range, go commands and missing bestmoves). The exit code
is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import multiprocessing
import re
import sys
import tempfile
import time
from collections import Counter, deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile  # noqa: E402  (the harness beside this script)

KINDS = ("pgn", "model", "ranker", "uci")
_SUMMED = ("games", "unaccounted", "cut_short", "beliefs_checked", "beliefs_out_of_range", "gos", "bestmoves_missing")


@functools.lru_cache(maxsize=1)
def _corpus(model_path: str) -> hostile.Corpus:
    """The corpus of this worker process (read once: it is the same for every case)."""
    import iam.chunks.model  # noqa: F401  (imported here, so that no case's time includes it)
    import search.chess.uci  # noqa: F401

    ranker_path = Path(model_path).with_name("ranker.json")
    ranker_json = ranker_path.read_text() if ranker_path.exists() else ""
    return hostile.Corpus.load(model_json=Path(model_path).read_text(), ranker_json=ranker_json)


def run_case(kind: str, seed: int, model_path: str) -> hostile.Outcome:
    """One case in a worker (the harness catches what the code under test raises)."""
    return hostile.CASES[kind](_corpus(model_path), seed)


def _hang(kind: str, seed: int, timeout: float) -> hostile.Outcome:
    return hostile.Outcome(kind, seed, status="hang", detail=f"no result within {timeout:g} s", seconds=timeout)


def run_all(cases: list[tuple[str, int]], model_path: str, *, jobs: int, timeout: float, quiet: bool):
    """Run every case with at most ``jobs`` in flight; a case over ``timeout`` is a hang."""
    pending = deque(cases)
    outcomes: list[hostile.Outcome] = []
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(jobs)
    flight: deque = deque()
    started = time.perf_counter()
    try:
        while pending or flight:
            while pending and len(flight) < jobs:
                kind, seed = pending.popleft()
                flight.append((kind, seed, pool.apply_async(run_case, (kind, seed, model_path)), time.perf_counter()))
            kind, seed, result, submitted = flight.popleft()
            try:
                outcomes.append(result.get(max(0.0, timeout - (time.perf_counter() - submitted))))
            except multiprocessing.TimeoutError:
                outcomes.append(_hang(kind, seed, timeout))
                pool.terminate()
                pool = context.Pool(jobs)
                pending.extendleft(reversed([(k, s) for k, s, _, _ in flight]))
                flight.clear()
            if not quiet and len(outcomes) % 500 == 0:
                print(f"  {len(outcomes)}/{len(cases)} cases, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    finally:
        pool.terminate()
    return outcomes


def summarise(outcomes: list[hostile.Outcome]) -> dict:
    """Counts per kind, the failures and the most common refusals."""
    summary: dict = {}
    for kind in KINDS:
        mine = [o for o in outcomes if o.kind == kind]
        if not mine:
            continue
        statuses = Counter(o.status for o in mine)
        refusals = Counter(_reason(o.detail) for o in mine if o.status == "refused")
        summary[kind] = {
            "cases": len(mine),
            "accepted": statuses["ok"],
            "refused": statuses["refused"],
            "tracebacks": statuses["traceback"],
            "violations": statuses["violation"],
            "hangs": statuses["hang"],
            "slowest_seconds": round(max(o.seconds for o in mine), 2),
            **{name: sum(getattr(o, name) for o in mine) for name in _SUMMED},
            "common_refusals": dict(refusals.most_common(6)),
            "failures": [dataclasses.asdict(o) for o in mine if o.status in ("traceback", "violation", "hang")][:20],
        }
    return summary


def _reason(detail: str) -> str:
    """A refusal's message without its file names and numbers, so that alike ones count together."""
    return re.sub(r"\d+", "N", re.sub(r"/\S+", "FILE", detail))[:90]


def _print(summary: dict, seconds: float) -> None:
    print(f"hostile-input run: {seconds:.0f} s")
    for kind, figures in summary.items():
        print(f"\n{kind}: {figures['cases']} cases, {figures['accepted']} accepted, {figures['refused']} refused "
              f"with a clear error; tracebacks {figures['tracebacks']}, violations {figures['violations']}, "
              f"hangs {figures['hangs']}; slowest {figures['slowest_seconds']} s")
        if kind == "pgn":
            print(f"  games (plain reading) {figures['games']}, unaccounted {figures['unaccounted']}, "
                  f"used but cut short {figures['cut_short']}")
        elif kind in ("model", "ranker"):
            print(f"  beliefs checked {figures['beliefs_checked']}, out of range {figures['beliefs_out_of_range']}")
        else:
            print(f"  go commands {figures['gos']}, without a legal bestmove {figures['bestmoves_missing']}")
        for reason, count in figures["common_refusals"].items():
            print(f"  refused {count}: {reason}")
        for failure in figures["failures"]:
            print(f"  FAILED {failure['kind']}:{failure['seed']} {failure['status']}: "
                  f"{failure['mutations']}\n    {failure['detail'][-600:]}")


def _replay(case: str, model_path: str) -> int:
    kind, _, seed = case.partition(":")
    outcome = hostile.CASES[kind](_corpus(model_path), int(seed))
    print(json.dumps(dataclasses.asdict(outcome), indent=2))
    return 0 if outcome.status in ("ok", "refused") else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", type=int, default=10_000, help="mutated PGN files (default 10,000)")
    parser.add_argument("--models", type=int, default=1_000, help="mutated model files (default 1,000)")
    parser.add_argument("--rankers", type=int, default=1_000, help="mutated ranker model files (default 1,000)")
    parser.add_argument("--uci", type=int, default=1_000, help="random UCI sessions (default 1,000)")
    parser.add_argument("--seed", type=int, default=0, help="first seed of every kind (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per case before it is a hang (default 20)")
    parser.add_argument("--case", metavar="KIND:SEED", help="replay one case and print it")
    parser.add_argument(
        "--json", metavar="FILE", help="also write the summary as JSON (-: print it instead of the text)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        model_path = str(Path(folder) / "model.json")
        Path(model_path).write_text(hostile.small_model_json(hostile.Corpus.load()))
        if args.rankers or args.case and args.case.startswith("ranker:"):
            Path(model_path).with_name("ranker.json").write_text(hostile.small_ranker_json(hostile.Corpus.load()))
        if args.case:
            return _replay(args.case, model_path)
        counts = {"pgn": args.pgn, "model": args.models, "ranker": args.rankers, "uci": args.uci}
        cases = [(kind, args.seed + i) for kind in KINDS for i in range(counts[kind])]
        started = time.perf_counter()
        outcomes = run_all(cases, model_path, jobs=args.jobs, timeout=args.timeout, quiet=args.quiet)
        seconds = time.perf_counter() - started
    summary = summarise(outcomes)
    rows = [{"kind": kind, **figures} for kind, figures in summary.items()]
    text = json.dumps({"seconds": round(seconds), "kinds": summary, "rows": rows}, indent=2) + "\n"
    if args.json == "-":
        print(text, end="")
    else:
        _print(summary, seconds)
    if args.json and args.json != "-":
        Path(args.json).write_text(text)
    failed = sum(figures["tracebacks"] + figures["violations"] + figures["hangs"] for figures in summary.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
