"""iam.progress.progress: yields every item in order; no bar when quiet or when stderr is not a terminal."""

import io
import sys

from iam.progress import progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_items_come_through_in_order_and_nothing_is_drawn_off_a_terminal(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    assert list(progress(range(5), desc="counting")) == [0, 1, 2, 3, 4]
    assert list(progress(x * 2 for x in range(3))) == [0, 2, 4]
    assert stream.getvalue() == ""


def test_on_a_terminal_a_bar_is_drawn_unless_quiet(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(progress(range(3), quiet=True)) == [0, 1, 2]
    assert terminal.getvalue() == ""
    assert list(progress(range(3), desc="counting")) == [0, 1, 2]
    assert "counting" in terminal.getvalue()
