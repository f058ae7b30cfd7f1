"""Hostile UCI input: every go is answered with a legal bestmove, nothing kills the engine."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time

import chess

from search.chess.uci import EngineModel, UciEngine

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1"


def _session(*lines: str) -> tuple[list[str], UciEngine]:
    out = io.StringIO()
    engine = UciEngine(output=out)
    engine.run(lines)
    return out.getvalue().splitlines(), engine


def _bestmoves(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("bestmove")]


def test_huge_numbers_in_go_are_capped_not_fatal():
    lines, _ = _session("position startpos", "go movetime " + "9" * 400, "stop", "go depth " + "9" * 5000, "stop")
    assert len(_bestmoves(lines)) == 2
    assert all(chess.Move.from_uci(move) in chess.Board().legal_moves for move in _bestmoves(lines))


def test_pondering_with_huge_clocks_then_ponderhit(monkeypatch):
    errors: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    clock = "9" * 400
    lines, _ = _session("position startpos", f"go ponder wtime {clock} btime {clock}", "ponderhit", "stop")
    assert len(_bestmoves(lines)) == 1 and errors == []


def test_unknown_go_words_still_get_a_bestmove():
    lines, _ = _session("position startpos", "go movetime 50 wibble", "isready")
    notes = [line for line in lines if line.startswith("info string ignored in go")]
    assert len(notes) == 1 and "wibble" in notes[0]
    lines, _ = _session("position startpos", "go depth x movetime 50")
    assert len(_bestmoves(lines)) == 1
    lines, _ = _session("position startpos", "go depth \u00b2 movetime 50")  # a digit to isdigit, not to int
    assert len(_bestmoves(lines)) == 1 and any("needs a number" in line for line in lines)


def test_searchmoves_restricts_the_root():
    # e1e8 mates at once; restricted to two quiet moves the engine must pick one of them.
    lines, _ = _session(f"position fen {MATE_IN_ONE}", "go depth 3 searchmoves g1f1 h2h3")
    assert _bestmoves(lines) in (["g1f1"], ["h2h3"])
    lines, _ = _session(f"position fen {MATE_IN_ONE}", "go movetime 100 searchmoves e1e8")
    assert _bestmoves(lines) == ["e1e8"]
    lines, _ = _session("position startpos", "go depth 1 searchmoves e7e5")  # not legal here: all moves
    assert any("no legal move" in line for line in lines) and len(_bestmoves(lines)) == 1


def test_an_invalid_position_is_reported_and_never_keeps_the_previous_one():
    lines, engine = _session("position startpos moves e2e4 e7e5", "position startpos moves g1f3 zzzz b8c6")
    assert engine.board.move_stack == [chess.Move.from_uci("g1f3")]  # the valid part, not e4 e5
    assert any(line.startswith("info string invalid position") and "zzzz" in line for line in lines)
    lines, engine = _session("position startpos moves e2e4", "position fen 8/8/8/8/8/8/8/8 w - - 0 1")
    assert engine.board == chess.Board()
    assert any(line.startswith("info string invalid position") for line in lines)
    fen = f"4k3/8/8/8/8/8/4P3/4K3 w - - 0 {2**63 - 1}"
    lines, engine = _session(f"position fen {fen}", "go depth 2")
    assert _bestmoves(lines)[0] in {move.uci() for move in chess.Board(fen).legal_moves}


def test_a_byte_that_is_not_utf8_on_stdin_under_a_strict_locale():
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    done = subprocess.run(
        [sys.executable, "-m", "iam", "uci"],
        input=b"\xff\xfe hello\nuci\nposition startpos\ngo depth 1\nisready\nquit\n",
        capture_output=True, env=env, timeout=60,
    )
    out = done.stdout.decode()
    assert done.returncode == 0 and "readyok" in out and "bestmove" in out, done.stderr.decode()[-500:]
    assert "Traceback" not in done.stderr.decode()


def test_the_end_of_input_does_not_wait_days_for_a_huge_movetime():
    out = io.StringIO()
    engine = UciEngine(output=out, end_of_input_wait=0.3)
    started = time.perf_counter()
    engine.run(["position startpos", "go movetime " + "9" * 400])
    assert time.perf_counter() - started < 5.0
    assert len(_bestmoves(out.getvalue().splitlines())) == 1


class _Uniform:
    """A move predictor that believes every legal move alike (the guided search's hook is used)."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = list(board.legal_moves)
        return {move: 0.9 / len(moves) for move in moves}


def test_searchmoves_restricts_the_root_of_the_guided_search_too():
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(_Uniform(), modelled_color=chess.BLACK))
    engine.run([f"position fen {MATE_IN_ONE}", "go depth 3 searchmoves h2h4"])
    assert _bestmoves(out.getvalue().splitlines()) == ["h2h4"]
    assert "search error" not in out.getvalue()
