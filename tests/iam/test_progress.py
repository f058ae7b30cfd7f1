"""iam.progress: every item comes through in order; a bar on a terminal, a line naming the phase elsewhere, nothing
when quiet."""

import io
import sys
import time

import pytest

import iam.progress
from iam.progress import phase, progress, withdraw


@pytest.fixture(autouse=True)
def at_once(monkeypatch):
    """Phases said as soon as they begin, unless a test sets a delay."""
    monkeypatch.setattr(iam.progress, "ANNOUNCE_AFTER", 0.0)


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


def _wait_for(stream: io.StringIO, text: str, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in stream.getvalue():
            return True
        time.sleep(0.01)
    return False


def test_a_phase_is_said_once_it_has_lasted_and_not_before(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(iam.progress, "ANNOUNCE_AFTER", 0.2)
    phase("fitting")
    assert stream.getvalue() == ""  # not yet: a short phase says nothing
    assert _wait_for(stream, "iam: fitting ...\n")
    assert stream.getvalue() == "iam: fitting ...\n"


def test_a_withdrawn_or_superseded_phase_is_never_said(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(iam.progress, "ANNOUNCE_AFTER", 0.3)
    phase("reading games")
    withdraw()  # the error that follows stands alone
    phase("fitting")
    phase("scoring")  # fitting ended before it was said
    assert _wait_for(stream, "iam: scoring ...\n")
    time.sleep(0.4)
    assert stream.getvalue() == "iam: scoring ...\n"
