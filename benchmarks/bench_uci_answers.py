"""Does every ``go`` of a fresh ``iam uci`` process get exactly one ``bestmove``, in time?

    .venv/bin/python benchmarks/bench_uci_answers.py [--processes 2000] [--parallel 2] [--model FILE] [--json]
        [--checkpoint FILE [--resume]]

Each process is a fresh ``iam uci`` (plain; and with ``--model FILE``: guided by the
model, imitating it, exploiting it): ``uci``, ``isready``, then every ``go`` form of
:data:`FORMS` in turn, each after ``position`` and ``isready``, the form the process
starts with rotating from one process to the next (so every form is some process's
first ``go``). Processes run in blocks of 20, every second block beside a busy neighbour
(a process spinning on a core); the load average is sampled as each process ends. A
``go`` is *missing* when no ``bestmove`` came within :data:`GIVE_UP` seconds (a depth or
node limit alone: :data:`GIVE_UP_UNTIMED`),
*duplicated* when a second one came before the ``readyok`` of the ``isready`` sent
after the first, *early* when it came before the ``stop`` or ``ponderhit`` it must wait
for, *illegal* when its move is not legal (``0000`` where there is none),
and, for a form with a time limit, *late* when it came more than :data:`LATE` after its
budget (the ``movetime`` or the clock's share; from ``stop`` or ``ponderhit`` for the
forms that send one). A form with a depth or node limit alone has no budget: its worst
answer time is reported apart (an imitating or exploiting engine asks its model
whatever the limit). Printed: the counts per mode and form, the median time to
``uciok`` and ``readyok``, the worst lateness of the timed forms and the slowest answer
of the untimed ones, and each late answer (mode, neighbour, form, how late, the load).
A long run can be taken in several sittings: ``--checkpoint`` keeps the counts of the
whole blocks done, with digests of the toolkit's sources and of the model file, and
``--resume`` goes on from the next block (refused when the code, the model or the
parallelism differ). The test suite runs a few dozen of these processes
(tests/search/chess/uci/test_answers.py).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import os
import select
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GIVE_UP = 8.0
"""Seconds after which a ``go`` with a time limit (or its ``stop``) without ``bestmove`` counts as missing."""
GIVE_UP_UNTIMED = 60.0
"""The same for a ``go`` with a depth or node limit alone: a guided or exploiting engine asks its model
at some of the nodes whatever the limit, and on a loaded machine that takes seconds."""
LATE = 0.100
"""Seconds past its budget after which an answer counts as late."""
MATED = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1"
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"


@dataclass(frozen=True)
class Form:
    """One way to ask for a move: the position, the ``go``, and what follows it (``stop`` or
    ``ponderhit`` after ``after`` seconds, or nothing)."""

    name: str
    go: str
    budget: float | None
    """Seconds the answer may take, from the ``go`` (or from the follow-up, when there is one);
    None: no time limit (a depth or node limit alone)."""
    fen: str = MIDDLEGAME
    follow: str | None = None
    after: float = 0.0
    early: bool = False
    """Whether the engine may answer before the follow-up (a bare ``go`` has a time of its own)."""


FORMS = (
    Form("movetime 0", "go movetime 0", 0.0),
    Form("movetime -1", "go movetime -1", 0.0),
    Form("movetime 1", "go movetime 1", 0.001),
    Form("movetime 50", "go movetime 50", 0.05),
    Form("depth 0", "go depth 0", None),
    Form("depth 1", "go depth 1", None),
    Form("nodes 0", "go nodes 0", None),
    Form("nodes 1", "go nodes 1", None),
    Form("clock -5", "go wtime -5 btime -5", 0.0),
    Form("clock 10", "go wtime 10 btime 10", 0.01),
    Form("clock 2 s + 0.1 s", "go wtime 2000 btime 2000 winc 100 binc 100", 2.0 / 40 + 0.8 * 0.1),
    Form("nodes 5000", "go nodes 5000", None),
    Form("mate 1", "go mate 1", None, fen=MATE_IN_ONE),
    Form("mate in one, movetime 100", "go movetime 100", 0.1, fen=MATE_IN_ONE),
    Form("mated", "go movetime 50", 0.05, fen=MATED),
    Form("stalemate", "go depth 3", None, fen=STALEMATE),
    Form("infinite+stop", "go infinite", 0.0, follow="stop", after=0.1),
    Form("bare go+stop", "go", 0.0, follow="stop", after=0.1, early=True),
    Form("ponder+ponderhit", "go ponder wtime 1000 btime 1000", 0.025, follow="ponderhit", after=0.05),
    Form("stop racing the end", "go depth 1", 0.0, follow="stop", after=0.0),  # timed from the stop
)


@dataclass
class Tally:
    """What one mode's processes answered, per form."""

    gos: Counter = field(default_factory=Counter)
    missing: Counter = field(default_factory=Counter)
    duplicated: Counter = field(default_factory=Counter)
    early: Counter = field(default_factory=Counter)
    late: Counter = field(default_factory=Counter)
    illegal: Counter = field(default_factory=Counter)
    worst: float = 0.0
    """The largest lateness of a timed form (seconds past its budget)."""
    slowest_untimed: float = 0.0
    """The longest answer of a form without a time limit (seconds)."""
    uciok: list[float] = field(default_factory=list)
    readyok: list[float] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    """Processes that did not start or did not quit, with why."""
    late_answers: list[list] = field(default_factory=list)
    """Each late answer: its form, milliseconds past the budget, and the load average (1 min) then."""

    def add(self, other: Tally) -> None:
        for name in ("gos", "missing", "duplicated", "early", "late", "illegal"):
            getattr(self, name).update(getattr(other, name))
        self.worst = max(self.worst, other.worst)
        self.slowest_untimed = max(self.slowest_untimed, other.slowest_untimed)
        self.uciok += other.uciok
        self.readyok += other.readyok
        self.broken += other.broken
        self.late_answers += other.late_answers

    def to_dict(self) -> dict[str, object]:
        """Every count and list, as JSON keeps them (:meth:`from_dict` reads them back)."""
        return {item.name: dict(value) if isinstance(value, Counter) else value
                for item in dataclasses.fields(self) for value in [getattr(self, item.name)]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tally:
        fields: dict[str, Any] = {
            name: Counter(value) if isinstance(value, dict) else value for name, value in data.items()
        }
        return cls(**fields)

    def failures(self) -> int:
        """Missing, duplicated and early answers, illegal moves and broken processes: what must never happen."""
        return sum(self.missing.values()) + sum(self.duplicated.values()) + sum(self.early.values()) + sum(
            self.illegal.values()
        ) + len(self.broken)


class Engine:
    """A running engine process, read line by line with the time each line arrived."""

    def __init__(self, command: Sequence[str]) -> None:
        self.started = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        self._buffer = b""

    def send(self, line: str) -> float:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        return time.perf_counter()

    def lines(self, timeout: float) -> Iterator[tuple[str, float]]:
        """The lines that arrive within ``timeout`` seconds, each with its time (unbuffered: a line
        waiting in a reader's buffer is never missed)."""
        stdout = self.process.stdout
        assert stdout is not None
        end = time.perf_counter() + timeout
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                yield line.decode(errors="replace").strip(), time.perf_counter()
            left = end - time.perf_counter()
            if left <= 0:
                return
            ready, _, _ = select.select([stdout], [], [], left)
            if ready:
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    return
                self._buffer += chunk

    def until(self, word: str, timeout: float) -> tuple[list[str], float | None]:
        """The lines up to the first that starts with ``word`` and its arrival time (None: not within ``timeout``)."""
        seen = []
        for line, at in self.lines(timeout):
            seen.append(line)
            if line.startswith(word):
                return seen, at
        return seen, None

    def close(self) -> bool:
        """Send ``quit``; whether the process ended within a few seconds (else it is killed)."""
        try:
            self.send("quit")
            self.process.wait(10)
            return True
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
            return False


def _legal(answer: str, fen: str) -> bool:
    board = chess.Board(fen)
    words = answer.split()
    if len(words) < 2:
        return False
    if words[1] == "0000":
        return not any(board.legal_moves)
    try:
        return chess.Move.from_uci(words[1]) in board.legal_moves
    except ValueError:
        return False


def _await_answer(engine: Engine, form: Form, tally: Tally) -> tuple[list[str], float | None, float | None]:
    """Send ``form``'s ``go`` (and its follow-up): the lines up to its ``bestmove``, when that came
    (None: missing) and the time its budget counts from (None: it answered early, as a bare ``go`` may)."""
    clock: float | None = engine.send(form.go)
    if form.follow is not None:
        if form.after:
            seen, answered = engine.until("bestmove", form.after)
            if answered is not None:
                if not form.early:
                    tally.early[form.name] += 1  # answered before it was told to
                engine.send(form.follow)  # the follow-up must not bring a second answer
                return seen, answered, None
        clock = engine.send(form.follow)
    seen, answered = engine.until("bestmove", GIVE_UP if form.budget is not None else GIVE_UP_UNTIMED)
    return seen, answered, clock


def ask(engine: Engine, form: Form, tally: Tally) -> None:
    """One ``go`` of ``form``: its answers counted in ``tally``."""
    tally.gos[form.name] += 1
    engine.send(f"position fen {form.fen}")
    engine.send("isready")
    _, ready = engine.until("readyok", 60)
    if ready is None:
        tally.broken.append(f"{form.name}: no readyok")
        return
    seen, answered, clock = _await_answer(engine, form, tally)
    if answered is None:
        tally.missing[form.name] += 1
        return
    if clock is None:
        pass  # answered before its follow-up: counted as early where that is wrong, never late
    elif form.budget is None:
        tally.slowest_untimed = max(tally.slowest_untimed, answered - clock)
    else:
        lateness = answered - clock - form.budget
        tally.worst = max(tally.worst, lateness)
        if lateness > LATE:
            tally.late[form.name] += 1
            tally.late_answers.append([form.name, round(lateness * 1000), round(os.getloadavg()[0], 1)])
    if not _legal(seen[-1], form.fen):
        tally.illegal[form.name] += 1
    engine.send("isready")
    after, _ = engine.until("readyok", 60)
    if any(line.startswith("bestmove") for line in after):
        tally.duplicated[form.name] += 1


def run_process(command: Sequence[str], first: int, forms: Sequence[Form] = FORMS) -> Tally:
    """A fresh engine: ``uci``, ``isready``, then each form, starting from ``forms[first]``."""
    tally = Tally()
    engine = Engine(command)
    try:
        engine.send("uci")
        _, uciok = engine.until("uciok", 60)
        engine.send("isready")
        _, readyok = engine.until("readyok", 120)
        if uciok is None or readyok is None:
            tally.broken.append(f"no {'uciok' if uciok is None else 'readyok'}")
            return tally
        tally.uciok.append(uciok - engine.started)
        tally.readyok.append(readyok - engine.started)
        for index in range(len(forms)):
            ask(engine, forms[(first + index) % len(forms)], tally)
    finally:
        if not engine.close():
            tally.broken.append("did not quit")
    return tally


class BusyNeighbour:
    """A process spinning on one core for as long as the ``with`` block runs."""

    def __enter__(self) -> BusyNeighbour:
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.wait()


BLOCK = 20
"""Processes run in blocks of this many, every second block beside a busy neighbour."""


def run_many(
    commands: dict[str, list[str]], processes: int, parallel: int,
    on_process: Callable[[str, bool, Tally], None] | None = None,
    first_block: int = 0, on_block: Callable[[int], None] | None = None,
) -> dict[str, Tally]:
    """``processes`` fresh engines spread over the modes of ``commands``, ``parallel`` at a time, in
    blocks of :data:`BLOCK`, every second block beside a busy neighbour (so a run stopped early has
    both), from block ``first_block`` on. ``on_process`` sees each process's mode, whether it had the
    neighbour, and its tally; ``on_block`` the number of blocks done after each."""
    tallies = {name: Tally() for name in commands}
    jobs = [(name, index) for index in range(processes) for name in [list(commands)[index % len(commands)]]]
    lock = threading.Lock()

    def one(job: tuple[str, int], busy: bool) -> None:
        name, index = job
        tally = run_process(commands[name], index // len(commands))
        with lock:
            tallies[name].add(tally)
            if on_process is not None:
                on_process(name, busy, tally)

    for block, start in enumerate(range(0, len(jobs), BLOCK)):
        if block < first_block:
            continue
        busy = block % 2 == 1
        with contextlib.ExitStack() as stack:
            if busy:
                stack.enter_context(BusyNeighbour())
            pool = stack.enter_context(ThreadPoolExecutor(parallel))
            list(pool.map(one, jobs[start : start + BLOCK], [busy] * BLOCK))
        if on_block is not None:
            on_block(block + 1)
    return tallies


def _commands(model: str | None) -> dict[str, list[str]]:
    base = [sys.executable, "-m", "iam", "uci"]
    commands = {"plain": base}
    if model is not None:
        commands["model"] = [*base, "--model", model]
        commands["imitate"] = [*base, "--imitate", model]
        commands["exploit"] = [*base, "--model", model, "--exploit", "0.5"]
    return commands


def _summary(tallies: dict[str, Tally]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, tally in tallies.items():
        out[name] = {
            "processes": len(tally.uciok) + len(tally.broken),
            "gos": sum(tally.gos.values()),
            "missing": dict(tally.missing), "duplicated": dict(tally.duplicated), "early": dict(tally.early),
            "late": dict(tally.late), "illegal": dict(tally.illegal), "broken": tally.broken[:10],
            "worst_lateness_ms": round(tally.worst * 1000),
            "slowest_untimed_ms": round(tally.slowest_untimed * 1000),
            "uciok_median_s": round(statistics.median(tally.uciok), 3) if tally.uciok else None,
            "readyok_median_s": round(statistics.median(tally.readyok), 3) if tally.readyok else None,
            "late_answers": tally.late_answers,
        }
    return out


def _code(model: str | None) -> dict[str, str]:
    """What a resumed run must share with the sitting before: a digest of the toolkit's sources (every ``.py``
    file of ``iam`` and ``search``, and ``pyproject.toml``) and of the model file."""
    sources = hashlib.sha256()
    for path in sorted([*ROOT.glob("iam/**/*.py"), *ROOT.glob("search/**/*.py"), ROOT / "pyproject.toml"]):
        sources.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest = "" if model is None else hashlib.sha256(Path(model).read_bytes()).hexdigest()[:16]
    return {"sources": sources.hexdigest()[:16], "model": digest}


def _resumed(path: Path, run: dict[str, object]) -> tuple[int, dict[str, Tally], list[float], float]:
    """The whole blocks done of the run a checkpoint holds: their count, tallies, loads and seconds."""
    saved = json.loads(path.read_text())
    done = saved.get("resume")
    if not isinstance(done, dict) or "blocks" not in done:
        raise SystemExit(f"{path}: no run to resume in it")
    if done["run"] != run:
        raise SystemExit(f"{path}: the checkpoint's run differs: {done['run']} against {run}")
    split = {key: Tally.from_dict(value) for key, value in done["split"].items()}
    return done["blocks"], split, list(done["loads"]), float(done["seconds"])


def _mode_totals(split: dict[str, Tally]) -> dict[str, Tally]:
    """Each mode's tally, with and without the neighbour together."""
    totals: dict[str, Tally] = {}
    for key, tally in split.items():
        totals.setdefault(key.split(",")[0], Tally()).add(tally)
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2000)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--model", help="a model file (iam train): adds the guided, imitating and exploiting modes")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--checkpoint", type=Path,
        help="JSON file rewritten after each process with the counts so far, per mode and neighbour, and the load",
    )
    parser.add_argument("--resume", action="store_true", help="go on from the whole blocks the checkpoint holds")
    args = parser.parse_args()
    if args.resume and (args.checkpoint is None or not args.checkpoint.exists()):
        parser.error("--resume needs the --checkpoint file of the run to go on with")
    run = {"parallel": args.parallel, **_code(args.model)}  # --processes may grow: block b is the same in any run
    first_block, before = 0, 0.0
    split: dict[str, Tally] = {}
    loads: list[float] = []
    if args.resume:
        first_block, split, loads, before = _resumed(args.checkpoint, run)
    started = time.perf_counter() - before
    lock = threading.Lock()
    kept: dict[str, object] = {}

    def write(partial: dict[str, object]) -> None:
        args.checkpoint.with_suffix(".tmp").write_text(json.dumps({**partial, "resume": kept}, indent=2))
        args.checkpoint.with_suffix(".tmp").replace(args.checkpoint)

    def seen(name: str, busy: bool, tally: Tally) -> None:
        with lock:
            split.setdefault(f"{name}, {'busy neighbour' if busy else 'no neighbour'}", Tally()).add(tally)
            loads.append(os.getloadavg()[0])
            if args.checkpoint is not None:
                write({"seconds": round(time.perf_counter() - started), "load_1min": _spread(loads),
                       "modes": _summary(split)})

    def block_done(blocks: int) -> None:
        with lock:
            kept.update(blocks=blocks, run=run, seconds=time.perf_counter() - started, loads=list(loads),
                        split={key: tally.to_dict() for key, tally in split.items()})
            if args.checkpoint is not None:
                write({"seconds": round(time.perf_counter() - started), "load_1min": _spread(loads),
                       "modes": _summary(split)})

    run_many(_commands(args.model), args.processes, args.parallel, seen, first_block, block_done)
    summary = _summary({**_mode_totals(split), **split})
    if args.json:
        print(json.dumps({"load_1min": _spread(loads), "modes": summary}, indent=2))
        return 0
    _print(summary, loads)
    print(f"{time.perf_counter() - started:.0f} s in all")
    return 0


def _print(summary: dict[str, object], loads: list[float]) -> None:
    """The table of counts, one line per mode and per mode and neighbour, each kind of failure under it."""
    for name, figures in summary.items():
        assert isinstance(figures, dict)
        print(
            f"{name:8} processes {figures['processes']:5}  gos {figures['gos']:6}  "
            f"missing {sum(figures['missing'].values())}  duplicated {sum(figures['duplicated'].values())}  "
            f"early {sum(figures['early'].values())}  "
            f"illegal {sum(figures['illegal'].values())}  late {sum(figures['late'].values())}  "
            f"worst {figures['worst_lateness_ms']} ms past budget  untimed {figures['slowest_untimed_ms']} ms  "
            f"uciok {figures['uciok_median_s']} s  readyok {figures['readyok_median_s']} s"
        )
        for kind in ("missing", "duplicated", "early", "illegal", "late"):
            if figures[kind]:
                print(f"    {kind}: {figures[kind]}")
        if figures["broken"]:
            print(f"    broken: {figures['broken']}")
    print(f"load average (1 min) as the processes ended: {_spread(loads)}")


def _spread(values: list[float]) -> dict[str, float] | None:
    """The least, median and largest of ``values`` (None: none)."""
    if not values:
        return None
    return {"min": round(min(values), 1), "median": round(statistics.median(values), 1), "max": round(max(values), 1)}


if __name__ == "__main__":
    sys.exit(main())
