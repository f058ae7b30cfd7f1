"""iam.progress: every item comes through in order; a bar on a terminal, a line naming the phase elsewhere, nothing
when quiet."""

import io
import sys

from iam.progress import phase, progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_off_a_terminal_the_phase_is_one_line_when_its_work_starts(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    counted = progress(range(5), desc="counting")
    assert stream.getvalue() == ""  # not before the work starts
    assert list(counted) == [0, 1, 2, 3, 4]
    assert list(progress(x * 2 for x in range(3))) == [0, 2, 4]  # no phase named, nothing said
    phase("fitting")
    assert stream.getvalue() == "iam: counting ...\niam: fitting ...\n"


def test_quiet_says_nothing_anywhere(monkeypatch):
    for stream in (io.StringIO(), _Terminal()):
        monkeypatch.setattr(sys, "stderr", stream)
        assert list(progress(range(3), quiet=True, desc="counting")) == [0, 1, 2]
        phase("fitting", quiet=True)
        assert stream.getvalue() == ""


def test_on_a_terminal_a_bar_is_drawn(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(progress(range(3), desc="counting")) == [0, 1, 2]
    assert "counting" in terminal.getvalue() and "iam: counting ..." not in terminal.getvalue()
