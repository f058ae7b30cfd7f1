"""A process's start: ``uci`` answered while the engine is built, every other command after it, in order."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import time

import pytest

from search.chess.uci.identity import ENGINE_NAME, Identity
from search.chess.uci.startup import serve

HANG_GUARD = 60.0  # generous: guards against a hang, not a speed


class FakeEngine:
    """Records the commands it is given and when each was read."""

    def __init__(self, out: io.StringIO) -> None:
        self.out = out
        self.handled: list[tuple[str, float | None]] = []

    def handle(self, line: str, read_at: float | None = None) -> bool:
        self.handled.append((line, read_at))
        if line == "isready":
            self.out.write("readyok\n")
        return line != "quit"

    def run(self, lines) -> None:
        for line in lines:
            if not self.handle(line):
                return


def serve_with_gate(lines: list[str]):
    """Serve ``lines`` with an engine whose build waits for the returned gate; the output, the engine, the thread."""
    out = io.StringIO()
    gate = threading.Event()
    engine = FakeEngine(out)

    def build():
        gate.wait(HANG_GUARD)
        return engine

    thread = threading.Thread(target=serve, args=(Identity(), build, lines, out))
    thread.start()
    return out, engine, gate, thread


def test_uci_is_answered_before_the_engine_is_built_and_isready_after():
    out, engine, gate, thread = serve_with_gate(["uci", "isready", "position startpos", "quit"])
    deadline = time.perf_counter() + HANG_GUARD
    while "uciok" not in out.getvalue() and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert out.getvalue().splitlines() == Identity().lines() and not engine.handled  # nothing but uci yet
    gate.set()
    thread.join(HANG_GUARD)
    assert out.getvalue().splitlines()[-1] == "readyok"
    assert [line for line, _ in engine.handled] == ["isready", "position startpos", "quit"]


def test_a_command_read_while_building_keeps_the_time_it_was_read():
    out, engine, gate, thread = serve_with_gate(["go movetime 500"])
    time.sleep(0.2)
    released = time.perf_counter()
    gate.set()
    thread.join(HANG_GUARD)
    (line, read_at), = engine.handled
    assert line == "go movetime 500" and read_at is not None and read_at <= released - 0.15


def test_quit_before_the_engine_is_built_ends_at_once():
    out, engine, gate, thread = serve_with_gate(["uci", "quit", "isready"])
    thread.join(HANG_GUARD)
    assert not thread.is_alive() and not engine.handled and "readyok" not in out.getvalue()
    gate.set()


def test_an_error_while_building_reaches_the_command_loop():
    def broken():
        raise ImportError("no core")

    with pytest.raises(ImportError, match="no core"):
        serve(Identity(), broken, ["isready"], io.StringIO())


def test_a_fresh_engine_process_answers_uci_before_isready_and_searches_after():
    done = subprocess.run(
        [sys.executable, "-m", "iam", "uci"], input="uci\nisready\nposition startpos\ngo depth 2\n",
        capture_output=True, text=True, timeout=120,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == f"id name {ENGINE_NAME}" and lines.index("uciok") < lines.index("readyok")
    assert lines[-1].startswith("bestmove ") and done.returncode == 0


def test_an_engine_process_hands_the_interpreter_lock_over_every_millisecond(monkeypatch):
    from search.chess.uci import startup

    before = sys.getswitchinterval()
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    try:
        assert startup.main() == 0
        assert sys.getswitchinterval() == pytest.approx(startup.SWITCH_INTERVAL) and startup.SWITCH_INTERVAL <= 0.001
    finally:
        sys.setswitchinterval(before)
