"""``iam drill`` in a pseudo-terminal: a line played right, a mistake shown, the schedule file afterwards; and one-line
errors for bad input."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iam.cli import main

from ..prepare.drill.prepared_tree import card_of, prepared_at, write_prepared

ROOT = Path(__file__).resolve().parents[3]


def _read_until(master: int, pattern: str, seen: list[str], timeout: float = 60.0) -> str | None:
    """Read the terminal until ``pattern`` shows in what is new, or the program ends (None)."""
    deadline, text = time.monotonic() + timeout, ""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096).decode("utf-8", "replace")
        except OSError:
            return None
        if not chunk:
            return None
        text += chunk
        seen.append(chunk)
        if re.search(pattern, text):
            return text
    raise AssertionError(f"no {pattern!r} within {timeout} s; the terminal showed:\n{''.join(seen)}")


def test_a_drill_in_a_terminal_plays_a_line_right_and_a_mistake_and_keeps_the_schedule(tmp_path):
    folder = write_prepared(tmp_path / "dossier")
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "iam", "drill", str(folder), "--now", "2026-11-28T20:00", "--seed", "5",
            "--lines", "3"]
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, close_fds=True)
    os.close(slave)
    seen: list[str] = []
    answers: list[tuple[str, bool]] = []
    try:
        while (shown := _read_until(master, r"Your move \((white|black)\): ", seen)) is not None:
            fen = re.findall(r"Position: (\S+ \S+ \S+ \S+ \S+ \S+)", "".join(seen))[-1]
            wrong = len(answers) == 1  # the second position asked is answered wrong
            answers.append((card_of(fen), not wrong))
            os.write(master, b"h3\n" if wrong else prepared_at(fen)[0].encode() + b"\n")
            assert "Your move" in shown
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        os.close(master)
    text = "".join(seen)
    assert "Right: e4" in text and re.search(r"Mistake: the prepared move is \w+", text)
    assert re.search(r"He plays (e5|c5|d5) \(his probability \d+%\)", text)
    schedule = json.loads((folder / "drill-schedule.json").read_text())
    assert schedule["format"] == "iam-drill-schedule" and len(answers) >= 3
    for name, card in schedule["cards"].items():
        mine = [right for card_name, right in answers if card_name == name]
        assert (card["right"], card["wrong"]) == (mine.count(True), mine.count(False))
        assert card["box"] == (0 if not mine[-1] else 1)
        assert card["due"] == ("2026-11-28T20:00:00+00:00" if not mine[-1] else "2026-11-29T20:00:00+00:00")
    assert {name for name, _ in answers} == set(schedule["cards"])


@pytest.mark.parametrize(
    ("options", "message"),
    [(["--now", "tomorrow"], "--now must be a time such as"), (["--lines", "0"], "--lines must be at least 1")],
)
def test_bad_options_are_one_line_errors(tmp_path, capsys, options, message):
    folder = write_prepared(tmp_path / "dossier")
    code = main(["drill", str(folder), *options])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("iam: error:") and message in err and err.count("\n") == 1


def test_a_folder_without_prepared_lines_is_a_one_line_error(tmp_path, capsys):
    code = main(["drill", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "holds no prepared.json" in err and err.count("\n") == 1
