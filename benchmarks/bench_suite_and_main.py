"""The README's two commands, this checkout against another: the main job and the test suite, timed in one run.

    python benchmarks/bench_suite_and_main.py --other PATH [--main-repeats 3] [--suite-repeats 1]
                                              [--out results/benchmarks]

The main job is the ``iam compare ...`` part of the first command of each checkout's own README (the install
left out), with its ``--out`` folder replaced by a temporary one; the suite is the README's second command,
``python -m pytest`` in the checkout's folder (with ``-p no:cacheprovider``, so no run reads or leaves a cache).
Each checkout runs with its own interpreter: ``PATH/.venv/bin/python`` when the folder has one, else this
interpreter with the checkout first on ``PYTHONPATH``. The two checkouts take turns (this one first in odd
repetitions, the other first in even ones), so that the machine's load falls on both alike. A compiled chess
core is loaded once, untimed, before the runs: its one-time compilation in a fresh folder is part of neither
command's time. Printed and written to ``suite_and_main.csv`` (every timing, with the exit code and the load
average) and ``suite_and_main_summary.csv``: the median seconds of each task in each checkout and the ratio
other / this (above 1: this checkout is faster). ``--suite-repeats 0`` times the main job alone.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Checkout:
    """A checkout of the toolkit and the interpreter that runs it."""

    name: str
    folder: Path
    python: str
    env: dict[str, str]


def checkout(name: str, folder: Path) -> Checkout:
    """``folder``'s checkout: its own ``.venv`` if it has one, else this interpreter with ``folder`` imported first."""
    folder = folder.resolve()
    venv = folder / ".venv" / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if venv.exists():
        return Checkout(name, folder, str(venv), env)
    return Checkout(name, folder, sys.executable, {**env, "PYTHONPATH": str(folder)})


def readme_main_job(folder: Path) -> list[str]:
    """The arguments after ``iam`` of the README's first command (``compare ...``), its ``--out`` value left out."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    first = block.splitlines()[0]
    words = shlex.split(first[first.index("iam compare") :])[1:]
    if "--out" in words:
        at = words.index("--out")
        del words[at : at + 2]
    return words


def time_command(argv: list[str], where: Checkout) -> tuple[float, int]:
    """Seconds from start to exit of ``argv`` run in ``where``'s folder, and its exit code."""
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=where.folder, env=where.env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started, done.returncode


def main_job(where: Checkout) -> tuple[float, int]:
    """One run of ``where``'s README main job, its results in a temporary folder."""
    with tempfile.TemporaryDirectory() as out:
        return time_command([where.python, "-m", "iam", *readme_main_job(where.folder), "--out", out], where)


def suite(where: Checkout) -> tuple[float, int]:
    """One run of ``where``'s test suite as its README gives it (its own pytest options)."""
    return time_command([where.python, "-m", "pytest", "-p", "no:cacheprovider", "-q"], where)


WARM_UP = (
    "import chess; from search import Limits; from search.chess.engine import ChessSearch; "
    "ChessSearch().search(chess.Board(), Limits(depth=2)); ChessSearch().score_moves(chess.Board(), 2)"
)
"""Loads (or, the first time in a folder, compiles) a compiled chess core, so that no timing holds that once."""


def warm_up(where: Checkout) -> None:
    """Compiles ``where``'s chess core into its cache if it has a compiled one (untimed)."""
    if (where.folder / "search" / "chess" / "engine.py").exists():
        subprocess.run([where.python, "-c", WARM_UP], cwd=where.folder, env=where.env, check=True,
                       capture_output=True)


def measure(this: Checkout, other: Checkout, *, main_repeats: int, suite_repeats: int) -> pd.DataFrame:
    """Every timing, the checkouts taking turns: one row per task, checkout and repetition."""
    rows = []
    for task, run, repeats in (("main job", main_job, main_repeats), ("test suite", suite, suite_repeats)):
        for repetition in range(repeats):
            order = (this, other) if repetition % 2 == 0 else (other, this)
            for where in order:
                seconds, code = run(where)
                rows.append({"task": task, "checkout": where.name, "repetition": repetition, "seconds": seconds,
                             "exit_code": code, "load_1min": os.getloadavg()[0]})
                print(f"{task:10} {where.name:5} #{repetition}: {seconds:7.1f} s (exit {code})", flush=True)
    return pd.DataFrame(rows)


def summary(timings: pd.DataFrame) -> pd.DataFrame:
    """Per task: the median seconds in each checkout and the ratio other / this."""
    rows = []
    for task, group in timings.groupby("task", sort=False):
        this = statistics.median(group.loc[group.checkout == "this", "seconds"])
        other = statistics.median(group.loc[group.checkout == "other", "seconds"])
        rows.append({"task": task, "runs": int((group.checkout == "this").sum()), "this_s": this, "other_s": other,
                     "other_over_this": other / this, "all_exit_0": bool((group.exit_code == 0).all())})
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--main-repeats", type=int, default=3)
    parser.add_argument("--suite-repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks"))
    args = parser.parse_args()
    this, other = checkout("this", ROOT), checkout("other", args.other)
    print(f"this:  {this.folder} ({this.python})\nother: {other.folder} ({other.python})")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), flush=True)
    for where in (this, other):
        warm_up(where)
    timings = measure(this, other, main_repeats=args.main_repeats, suite_repeats=args.suite_repeats)
    print("load average after:  {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    table = summary(timings)
    args.out.mkdir(parents=True, exist_ok=True)
    timings.to_csv(args.out / "suite_and_main.csv", index=False)
    table.to_csv(args.out / "suite_and_main_summary.csv", index=False)
    print(table.to_markdown(index=False, floatfmt=".2f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
