"""Time management: the budget of a ``go`` worked out by hand from its clock words, and when a search waits for stop."""

from __future__ import annotations

import chess
import pytest

from search.chess.uci.clock import (
    FALLBACK_SECONDS,
    UNTIMED_SECONDS,
    _waits_for_stop,
    allotted_time,
    clock_problem,
    time_budget,
)
from search.chess.uci.protocol import GoClock, GoCommand, parse_go

SAFETY = 0.030  # the seconds kept back, as documented


def go(text: str) -> GoCommand:
    return parse_go(text.split())


@pytest.mark.parametrize(
    "text, turn, seconds",
    [
        ("wtime 60000 btime 30000", chess.WHITE, 60 / 40),  # a fortieth of the mover's clock
        ("wtime 60000 btime 30000", chess.BLACK, 30 / 40),
        ("wtime 60000 btime 30000 winc 2000 binc 1000", chess.WHITE, 1.5 + 0.8 * 2.0),  # most of the increment
        ("wtime 60000 btime 30000 winc 2000 binc 1000", chess.BLACK, 0.75 + 0.8 * 1.0),
        ("wtime 10000 btime 10000 movestogo 5", chess.WHITE, 10 / 5),
        ("wtime 5000 btime 9000 movestogo 1", chess.WHITE, 5.0 - SAFETY),  # never the whole clock
        ("wtime 100 btime 100 winc 5000", chess.WHITE, 0.1 - SAFETY),  # nor more than is on it
        ("wtime 0 btime 0", chess.WHITE, 0.0),
        ("wtime 20 btime 20", chess.BLACK, 0.0),  # less than the margin: nothing, not a negative time
        ("movetime 1500", chess.WHITE, 1.5),
        ("movetime 1500 wtime 100 btime 100", chess.BLACK, 1.5),  # movetime is obeyed over the clock
        ("movetime 0", chess.WHITE, 0.0),
        ("", chess.WHITE, UNTIMED_SECONDS),  # a bare go ends on its own
        ("mate 2", chess.BLACK, UNTIMED_SECONDS),
        ("btime 5000", chess.WHITE, FALLBACK_SECONDS),  # clock words without the mover's clock
        ("depth 3 winc 100", chess.WHITE, FALLBACK_SECONDS),
        ("wtime 5000 movestogo 10", chess.BLACK, FALLBACK_SECONDS),
    ],
)
def test_the_allotted_time_and_the_search_budget(text, turn, seconds):
    """The allotted time from ``go`` to ``bestmove``; the search itself gets that less the safety margin."""
    assert allotted_time(go(text), turn) == pytest.approx(seconds)
    assert time_budget(go(text), turn) == pytest.approx(max(0.0, seconds - SAFETY))


@pytest.mark.parametrize(
    "text", ["infinite", "ponder wtime 8000 btime 8000", "infinite movetime 100", "depth 4", "nodes 1000",
             "depth 4 nodes 1000"],
)
def test_pondering_infinite_and_depth_or_node_limits_have_no_time_limit(text):
    assert allotted_time(go(text), chess.WHITE) is None and time_budget(go(text), chess.WHITE) is None


def test_the_budget_reads_the_clock_values_as_milliseconds():
    command = GoCommand(clock=GoClock(wtime=400_000, btime=1, winc=0, binc=0, movestogo=None))
    assert allotted_time(command, chess.WHITE) == pytest.approx(10.0)
    assert allotted_time(command, chess.BLACK) == 0.0


@pytest.mark.parametrize(
    "text, turn, missing",
    [("btime 5000", chess.WHITE, "wtime"), ("wtime 5000", chess.BLACK, "btime"), ("movestogo 20", chess.WHITE, "wtime"),
     ("winc 100 binc 100", chess.BLACK, "btime"), ("depth 5 binc 10", chess.WHITE, "wtime")],
)
def test_a_clock_without_the_movers_time_is_a_problem_naming_it(text, turn, missing):
    assert clock_problem(go(text), turn) == f"go without {missing} for the side to move; searching 1 s"


@pytest.mark.parametrize(
    "text, turn",
    [("", chess.WHITE), ("depth 3", chess.BLACK), ("wtime 1000", chess.WHITE), ("btime 1000", chess.BLACK),
     ("infinite btime 1000", chess.WHITE), ("movetime 100 btime 1000", chess.WHITE), ("winc 0 binc 0", chess.WHITE)],
)
def test_no_clock_problem_with_the_movers_time_or_without_clock_words(text, turn):
    """The mover's clock sent, no clock words at all (zero increments are none), or a movetime or infinite go."""
    assert clock_problem(go(text), turn) is None


@pytest.mark.parametrize(
    "text, waits",
    [("infinite", True), ("infinite depth 3", True), ("ponder", True), ("depth 3", False), ("nodes 10", False),
     ("mate 2", False), ("movetime 50", False), ("wtime 1000 btime 1000", False), ("", False)],
)
def test_only_infinite_or_a_search_without_any_limit_waits_for_stop(text, waits):
    command = go(text)
    assert _waits_for_stop(command, time_budget(command, chess.WHITE)) is waits
