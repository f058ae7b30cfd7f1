"""The search thread's owner: one ``bestmove`` per ``go`` on every path (ends at once, raises, waits for
stop, races stop, overruns, cannot start)."""

from __future__ import annotations

import threading
import time

import pytest

from search.chess.uci.session import SearchRun, SearchSession

HANG_GUARD = 30.0  # generous: these waits guard against a hang, not a speed


class Lines:
    """The session's output, thread-safe, with an event per ``bestmove``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.answered = threading.Event()

    def send(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith("bestmove"):
            self.answered.set()

    def answers(self) -> list[str]:
        return [line for line in self.lines if line.startswith("bestmove")]


def session_of(late: float = 0.05) -> tuple[SearchSession, Lines]:
    out = Lines()
    return SearchSession(out.send, late=late), out


def test_a_search_that_ends_at_once_answers_once_with_its_move():
    session, out = session_of()
    session.start(lambda run: "e2e4", "a2a3", released=True, seconds=None)
    assert out.answered.wait(HANG_GUARD)
    session.stop()
    assert out.answers() == ["bestmove e2e4"]


def test_a_search_that_raises_answers_with_its_deepest_offer_after_a_note():
    def broken(run: SearchRun) -> str:
        run.offer("g1f3")
        raise ZeroDivisionError("broke")

    session, out = session_of()
    session.start(broken, "a2a3", released=True, seconds=None)
    assert out.answered.wait(HANG_GUARD)
    session.stop()
    assert out.lines == ["info string search error: ZeroDivisionError: broke", "bestmove g1f3"]


def test_a_search_that_raises_before_any_offer_answers_the_fallback():
    def broken(run: SearchRun) -> str:
        raise RuntimeError("at once")

    session, out = session_of()
    session.start(broken, "a2a3", released=True, seconds=None)
    session.stop()
    assert out.answers() == ["bestmove a2a3"]


def test_an_unreleased_search_answers_only_on_stop_and_once():
    session, out = session_of()
    session.start(lambda run: "e2e4", "a2a3", released=False, seconds=None)
    assert not out.answered.wait(0.2)
    session.stop()
    session.stop()  # nothing running: nothing to say
    assert out.answers() == ["bestmove e2e4"]


@pytest.mark.parametrize("pause", [0.0, 0.0005, 0.002])
def test_stop_racing_the_searchs_own_end_answers_exactly_once(pause):
    session, out = session_of()
    for _ in range(200):
        session.start(lambda run: "e2e4", "a2a3", released=True, seconds=0.0)
        if pause:
            time.sleep(pause)
        session.stop()
    assert len(out.answers()) == 200


def test_a_new_start_answers_the_running_search_first():
    session, out = session_of()

    def until_stopped(run: SearchRun) -> str:
        run.stop.wait(HANG_GUARD)
        return "d2d4"

    session.start(until_stopped, "a2a3", released=False, seconds=None)
    session.start(lambda run: "e2e4", "a2a3", released=True, seconds=None)
    session.stop()
    assert out.answers() == ["bestmove d2d4", "bestmove e2e4"]


def test_an_overrunning_search_is_answered_for_with_its_offer_and_its_later_lines_dropped():
    gate = threading.Event()

    def overrun(run: SearchRun) -> str:
        run.offer("c2c4")
        gate.wait(HANG_GUARD)  # deaf to its stop, past its time
        run.send("info depth 9")
        return "e2e4"

    session, out = session_of(late=0.05)
    session.start(overrun, "a2a3", released=True, seconds=0.05)
    assert out.answered.wait(HANG_GUARD)
    assert out.answers() == ["bestmove c2c4"] and session.current is not None and session.current.stop.is_set()
    gate.set()
    session.stop()
    assert out.lines == ["bestmove c2c4"]


def test_stop_answers_for_a_deaf_search_then_waits_for_its_thread():
    gate = threading.Event()

    def deaf(run: SearchRun) -> str:
        gate.wait(HANG_GUARD)
        return "e2e4"

    session, out = session_of(late=0.05)
    session.start(deaf, "a2a3", released=False, seconds=None)
    stopper = threading.Thread(target=session.stop)
    stopper.start()
    assert out.answered.wait(HANG_GUARD)
    assert out.answers() == ["bestmove a2a3"] and stopper.is_alive()  # answered, the thread still running
    gate.set()
    stopper.join(HANG_GUARD)
    assert not stopper.is_alive() and out.answers() == ["bestmove a2a3"] and session.thread is None


def test_release_lets_a_pondering_search_answer_and_stops_it_after_its_time():
    session, out = session_of()

    def ponder(run: SearchRun) -> str:
        run.stop.wait(HANG_GUARD)
        return "e2e4"

    session.start(ponder, "a2a3", released=False, seconds=None)
    started = time.perf_counter()
    session.release(0.05)
    assert out.answered.wait(HANG_GUARD)
    assert out.answers() == ["bestmove e2e4"] and time.perf_counter() - started >= 0.05
    session.stop()
    assert out.answers() == ["bestmove e2e4"]


def test_release_that_waits_for_stop_does_not_answer():
    session, out = session_of()
    session.start(lambda run: "e2e4", "a2a3", released=False, seconds=None)
    session.release(None, wait_for_stop=True)
    assert not out.answered.wait(0.2)
    session.stop()
    assert out.answers() == ["bestmove e2e4"]


def test_a_thread_that_cannot_start_is_answered_at_once(monkeypatch):
    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    session, out = session_of()
    session.start(lambda run: "e2e4", "a2a3", released=True, seconds=None)
    monkeypatch.undo()
    assert out.lines == ["info string search not started: can't start new thread", "bestmove a2a3"]
    session.stop()
    assert out.answers() == ["bestmove a2a3"]


def test_finish_waits_only_for_a_released_search():
    session, out = session_of()
    session.start(lambda run: (time.sleep(0.05), "e2e4")[1], "a2a3", released=True, seconds=None)
    session.finish(HANG_GUARD)
    assert out.answers() == ["bestmove e2e4"]
    session.start(lambda run: "d2d4", "a2a3", released=False, seconds=None)
    started = time.perf_counter()
    session.finish(HANG_GUARD)
    assert time.perf_counter() - started < HANG_GUARD and out.answers() == ["bestmove e2e4"]
    session.stop()


def test_stop_answers_for_a_deaf_search_after_a_short_wait_by_default():
    """The default wait for a deaf thread leaves most of a GUI's 100 ms to a busy machine (0.05 s did not)."""
    from search.chess.uci.session import LATE_ANSWER

    gate = threading.Event()
    out = Lines()
    session = SearchSession(out.send)
    session.start(lambda run: gate.wait(HANG_GUARD) and "e2e4", "a2a3", released=False, seconds=None)
    stopped = time.perf_counter()
    stopper = threading.Thread(target=session.stop)
    stopper.start()
    assert out.answered.wait(HANG_GUARD)
    waited = time.perf_counter() - stopped
    gate.set()
    stopper.join(HANG_GUARD)
    assert session.late == LATE_ANSWER <= 0.02 and waited >= LATE_ANSWER and out.answers() == ["bestmove a2a3"]
