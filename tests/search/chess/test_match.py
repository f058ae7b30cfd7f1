"""Engine matches: the Elo arithmetic, and real games between UCI engines."""

import math
import sys
import time

import chess
import chess.engine
import pytest

from search.chess.match import MatchError, elo_estimate, engine_command, load_openings, play_match

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1"


def test_elo_of_an_even_score_is_zero_with_a_symmetric_interval():
    estimate = elo_estimate(10, 5, 10)
    assert estimate.score == 0.5 and estimate.elo == 0
    assert estimate.low == pytest.approx(-estimate.high)
    assert estimate.low < 0 < estimate.high


def test_elo_of_three_to_one():
    estimate = elo_estimate(75, 0, 25)
    assert estimate.elo == pytest.approx(400 * math.log10(3))
    assert estimate.low < estimate.elo < estimate.high
    wider = elo_estimate(6, 0, 2)
    assert wider.elo == pytest.approx(estimate.elo)
    assert wider.high - wider.low > estimate.high - estimate.low  # fewer games, less certainty


def test_a_clean_sweep_is_bounded_on_one_side_only():
    estimate = elo_estimate(4, 0, 0)
    assert estimate.elo == math.inf and estimate.high == math.inf
    assert 0 < estimate.low < math.inf  # but four wins do bound it from below
    assert elo_estimate(0, 0, 2).high < math.inf
    with pytest.raises(ValueError):
        elo_estimate(0, 0, 0)


def test_openings_files(tmp_path):
    fens = tmp_path / "openings.epd"
    fens.write_text(f"# comment\n{MATE_IN_ONE}\n4k3/8/8/8/8/8/8/R3K3 w - - bm Ra8;\n")
    boards = load_openings(fens)
    assert [b.fen() for b in boards][0] == MATE_IN_ONE
    pgn = tmp_path / "openings.pgn"
    pgn.write_text('[Event "x"]\n\n1. e4 e5 2. Nf3 *\n\n[Event "y"]\n\n1. d4 *\n')
    boards = load_openings(pgn)
    assert [len(b.move_stack) for b in boards] == [3, 1]
    bad = tmp_path / "bad.txt"
    bad.write_text("not a position\n")
    with pytest.raises(MatchError, match="bad.txt:1"):
        load_openings(bad)
    with pytest.raises(MatchError, match="not found"):
        load_openings(tmp_path / "missing.epd")
    empty = tmp_path / "empty.epd"
    empty.write_text("# nothing\n")
    with pytest.raises(MatchError, match="no openings"):
        load_openings(empty)


def test_engine_commands():
    assert engine_command("iam uci", known={"iam": ["python", "-m", "iam"]})[-1] == "uci"
    with pytest.raises(MatchError, match="not found"):
        engine_command("no-such-engine-here --flag")


# An engine that fails at its first go (crashes, or hangs without answering) and
# leaves a mark; started again, it finds the mark and is our ordinary engine.
FLAKY_ENGINE = """
import os, sys, time
mark, mode = sys.argv[1], sys.argv[2]
if os.path.exists(mark):
    os.execv(sys.executable, [sys.executable, "-m", "iam", "uci"])
for line in sys.stdin:
    word = (line.split() or [""])[0]
    if word == "uci":
        print("id name Flaky", flush=True)
        print("uciok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        open(mark, "w").close()
        if mode == "crash":
            sys.exit(3)
        time.sleep(3600)
    elif word == "quit":
        break
"""


@pytest.mark.parametrize("mode", ["crash", "hang"])
def test_a_failing_engine_loses_one_game_and_is_restarted(mode, tmp_path):
    script = tmp_path / "flaky.py"
    script.write_text(FLAKY_ENGINE)
    flaky = [sys.executable, str(script), str(tmp_path / "failed-once"), mode]
    ours = [sys.executable, "-m", "iam", "uci"]
    started = time.perf_counter()
    estimate, records, names = play_match(
        flaky, ours, games=3, limit=chess.engine.Limit(nodes=200),
        openings=[chess.Board(MATE_IN_ONE)], move_timeout=1.5,
    )
    assert time.perf_counter() - started < 60
    # Game 1: A (White) fails and forfeits. Game 2: B mates. Game 3: A, restarted, mates.
    assert [r.result for r in records] == ["0-1", "1-0", "1-0"]
    assert (estimate.wins, estimate.draws, estimate.losses) == (1, 0, 2)
    assert [r.forfeited_by for r in records] == ["A", None, None]
    assert {r.opening for r in records} == {chess.Board(MATE_IN_ONE).fen()}  # forfeits included
    assert [r.score_for_a for r in records] == [0.0, 0.0, 1.0]
    reason = "crashed" if mode == "crash" else "did not move within 1.5 s"
    assert reason in records[0].termination
    assert records[0].game.headers["Termination"] == records[0].termination
    assert records[2].game.headers["Termination"] == "checkmate"
