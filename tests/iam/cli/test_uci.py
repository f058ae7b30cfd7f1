"""``iam uci``: the engine its flags build (guided, exploiting, imitating, with a book), the model file option's
loader, and bad flags as one error line with exit code 2."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import sys
import threading

import chess
import pytest

from iam.cli import main as iam_main
from iam.cli.uci import check_book
from iam.errors import IAMError
from search.chess.uci import ENGINE_NAME, EngineModel, UciEngine


def test_model_option_errors_are_one_line(tmp_path, capsys):
    assert iam_main(["uci", "--model", str(tmp_path / "missing.json")]) == 2
    assert "model file not found" in capsys.readouterr().err
    foreign = tmp_path / "model.json"
    foreign.write_text("{}")
    assert iam_main(["uci", "--model", str(foreign)]) == 2
    assert "not an IAM model file" in capsys.readouterr().err
    assert iam_main(["uci", "--player-color", "white"]) == 2
    assert "needs --model" in capsys.readouterr().err


def test_the_sampling_option_is_renamed_and_the_old_name_still_works(capsys):
    assert iam_main(["uci", "--sample-temperature", "0.5"]) == 2
    assert "--sample-temperature, --seed, --unsure-below, --strength and --blunder-rate need --imitate" in (
        capsys.readouterr().err
    )
    assert iam_main(["uci", "--temperature", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--temperature is renamed --sample-temperature" in err and "need --imitate" in err


def test_the_model_file_option_loads_a_model_and_a_bad_file_is_one_line(small_model, tmp_path):
    from iam.cli.uci import model_loader

    path = tmp_path / "botvinnik.json"
    small_model.save(path)
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(loader=model_loader(None)))
    engine.run(["uci", f"setoption name ModelFile value {path}"])
    assert "option name ModelFile type string default <empty>" in out.getvalue()
    assert engine.predictor is not None and engine.name.endswith("(guided by a model of Botvinnik, Mikhail)")
    engine.run(["position startpos moves e2e4", "go depth 2"])
    assert "info string guided search" in out.getvalue() or "info string predictor" in out.getvalue()
    engine.run([
        f"setoption name ModelFile value {tmp_path / 'missing.json'}", "setoption name ModelFile value <empty>",
    ])
    notes = [line for line in out.getvalue().splitlines() if line.startswith("info string ignored setoption")]
    assert len(notes) == 1 and "missing.json" in notes[0]
    assert engine.predictor is None and engine.name == ENGINE_NAME
    plain = io.StringIO()
    UciEngine(output=plain).run(["uci"])
    assert "ModelFile" not in plain.getvalue()  # no way to read model files: not offered


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--exploit", "0.5"], "--exploit needs --model"),
        (["--model", "m.json", "--exploit", "0.5", "--player-color", "black"], "leave out --player-color"),
        (["--model", "m.json", "--imitate", "m.json"], "give either --model"),
        (["--seed", "3"], "need --imitate"),
        (["--strength", "0.5"], "need --imitate"),
        (["--blunder-rate", "0.1"], "need --imitate"),
        (["--imitate", "m.json", "--strength", "2"], "strength must be in [0, 1], got 2.0"),
        (["--exploit-share", "1"], "--exploit-share takes a share between 0 and 1, not 1"),
        (["--exploit-contempt", "-1"], "--exploit-contempt takes a finite number at least 0, not -1"),
        (["--exploit-contempt", "0.5"], "--exploit-contempt needs --exploit"),
        (["--exploit-reduce", "1"], "--exploit-reduce takes a belief in [0, 1), not 1"),
        (["--exploit-reduce", "0.1"], "--exploit-reduce needs --exploit"),
        (["--check-engine", "stockfish"], "need --imitate"),
        (["--imitate", "m.json", "--check-depth", "4"], "--check-depth and --check-games need --check-engine"),
        (["--imitate", "m.json", "--check-engine", "/no/such/engine"], "engine /no/such/engine not found"),
        (["--imitate", "m.json", "--check-engine", "stockfish", "--check-depth", "0"], "at least 1, not 0"),
        (["--piece-values", "100,300"], "--piece-values takes five centipawn values from 1 to 10000"),
        (["--piece-values", "a,b,c,d,e"], "--piece-values takes five numbers (pawn knight bishop rook queen)"),
    ],
)
def test_flags_that_do_not_go_together_are_one_line_errors(flags, message, capsys):
    """Each check on the flags stops the command before any model file is read or the engine starts."""
    assert iam_main(["uci", *flags]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1


def test_a_book_is_whole_sixteen_byte_entries(tmp_path):
    """A polyglot book of one entry passes; an empty file, a size that is not a multiple of 16 and a missing
    file are each one-line errors naming the path."""
    from iam.prepare.book import write_book

    board = chess.Board()
    good = tmp_path / "book.bin"
    write_book([(board, chess.Move.from_uci("e2e4"), 1.0)], good)
    assert good.stat().st_size == 16
    check_book(str(good))
    empty, odd = tmp_path / "empty.bin", tmp_path / "odd.bin"
    empty.write_bytes(b"")
    odd.write_bytes(good.read_bytes() + b"x")
    for bad, message in ((empty, "its size, 0 bytes"), (odd, "its size, 17 bytes"), (tmp_path / "no.bin", "cannot")):
        with pytest.raises(IAMError, match=message) as raised:
            check_book(str(bad))
        assert str(bad) in str(raised.value) and "\n" not in str(raised.value)


def test_the_flags_build_a_guided_an_exploiting_and_an_imitating_engine(small_model, tmp_path, monkeypatch):
    """With ``--model`` the engine is guided by the model of its player, with ``--exploit`` it exploits him (at the
    weight given), with ``--imitate`` it plays as him, without a flag it is the plain engine; each answers ``go``
    with a legal move. (The engine the command builds runs here on a list of commands instead of standard input.)"""
    import iam.cli.uci as command

    path = tmp_path / "botvinnik.json"
    small_model.save(path)
    player = small_model.player_
    sessions = []

    def run_engine(model, exploit_settings=None, **settings):
        if model.pending is not None:  # what the engine's start does after uciok
            model = dataclasses.replace(model, predictor=model.pending(), pending=None)
        if callable(exploit_settings):
            settings["exploit_settings"] = exploit_settings()
        out = io.StringIO()
        UciEngine(output=out, model=model, **settings).run(["uci", "position startpos moves e2e4", "go depth 1"])
        sessions.append(out.getvalue().splitlines())
        return 0

    monkeypatch.setattr(command, "main", run_engine)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    cases = {
        (): ENGINE_NAME,
        ("--model", str(path)): f"{ENGINE_NAME} (guided by a model of {player})",
        ("--model", str(path), "--exploit", "0.3"): f"{ENGINE_NAME} (exploiting a model of {player})",
        ("--imitate", str(path)): f"{ENGINE_NAME} (playing as a model of {player})",
    }
    for flags, name in cases.items():
        assert iam_main(["uci", *flags]) == 0
        lines = sessions[-1]
        assert f"id name {name}" in lines, flags
        assert lines[-1].startswith("bestmove ") and chess.Move.from_uci(lines[-1].split()[1]) in after_e4.legal_moves
    assert f"info string exploiting a model of {player} (weight 0.3)" in sessions[2]
    assert f"info string imitating a model of {player}" in sessions[3]


class _Output(io.StringIO):
    """Standard output that tells when ``uciok`` has been written."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if "uciok" in text:
            self.answered.set()
        return written


@pytest.mark.parametrize("flag", ["--imitate", "--model"])
def test_uci_is_answered_before_the_model_is_read_and_isready_after(small_model, tmp_path, monkeypatch, flag):
    """The engine's name comes from the model file's first bytes: ``uciok`` goes out before the model is read,
    ``readyok`` once it is, and the ``go`` after it plays with the model."""
    import iam.measure.predictors as predictors

    path = tmp_path / "botvinnik.json.gz"
    small_model.save(path)
    out = _Output()
    real = predictors.load_predictor
    read_after_uciok = []

    def load(*args, **kwargs):
        read_after_uciok.append(out.answered.wait(10))
        return real(*args, **kwargs)

    monkeypatch.setattr(predictors, "load_predictor", load)
    monkeypatch.setattr(sys, "stdin", io.StringIO("uci\nisready\nposition startpos moves e2e4\ngo depth 1\n"))
    monkeypatch.setattr(sys, "stdout", out)
    assert iam_main(["uci", flag, str(path)]) == 0
    lines = out.getvalue().splitlines()
    assert read_after_uciok == [True]
    assert f"id name {ENGINE_NAME} (" in lines[0] and small_model.player_ in lines[0]
    assert lines.index("uciok") < lines.index("readyok") and lines[-1].startswith("bestmove ")


def test_a_file_that_does_not_start_like_a_model_is_refused_before_uciok(tmp_path, capsys, monkeypatch):
    foreign = tmp_path / "model.json"
    foreign.write_text('{"format": "something else", "player": "X"}')
    monkeypatch.setattr(sys, "stdin", io.StringIO("uci\nisready\n"))
    assert iam_main(["uci", "--imitate", str(foreign)]) == 2
    captured = capsys.readouterr()
    assert "not an IAM model file" in captured.err and "readyok" not in captured.out


def _terminal_session(argv: list[str], answers: list[str], timeout: float = 120.0) -> str:
    """Run ``iam`` on a pseudo-terminal, typing each of ``answers`` at a prompt; everything it printed."""
    import os
    import pty
    import select
    import subprocess
    import time

    main_end, child_end = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "iam", *argv], stdin=child_end, stdout=child_end, stderr=child_end, close_fds=True,
    )
    os.close(child_end)
    seen, pending, deadline = b"", list(answers), time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main_end], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(main_end, 4096)
                except OSError:  # the child has ended
                    break
                if not chunk:
                    break
                seen += chunk
                if seen.rstrip().endswith(b"your move:") and pending and seen.count(b"your move:") > len(
                    answers) - len(pending):
                    os.write(main_end, pending.pop(0).encode() + b"\n")
            elif process.poll() is not None:
                break
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main_end)
    return seen.decode(errors="replace").replace("\r\n", "\n")


def test_a_game_in_the_terminal_answers_each_move_and_ends_when_the_user_resigns_or_quits(small_model, tmp_path):
    path = tmp_path / "botvinnik.json.gz"
    small_model.save(path)
    flags = ["play", str(path), "--movetime", "100", "--seed", "2"]
    text = _terminal_session(flags, ["e4", "Kxx", "Nf3", "resign"])
    assert f"You play White against a model of {small_model.player_}" in text
    assert "Not a legal move here: Kxx" in text and "You resign: 0-1." in text
    after_e4 = chess.Board()
    after_e4.push_san("e4")
    answers = [line.split("... ")[1].split()[0] for line in text.splitlines() if "... " in line]
    assert len(answers) == 2 and after_e4.parse_san(answers[0]) in after_e4.legal_moves
    again = _terminal_session(flags, ["e4", "Nf3", "resign"])
    assert [line.split("... ")[1].split()[0] for line in again.splitlines() if "... " in line] == answers
    as_black = _terminal_session([*flags, "--color", "black"], ["quit"])
    assert "You play Black" in as_black and "1. " in as_black and "Game left unfinished." in as_black


STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_a_check_engine_judges_the_imitations_moves_with_his_rate_by_it(small_model, tmp_path, monkeypatch):
    """``--check-engine``: offered as the UCI option ``CheckEngine``, started after ``uciok``, his rate by it measured
    on his training games before ``readyok`` and kept beside the model; ``iam play`` takes the same flags."""
    path = tmp_path / "botvinnik.json.gz"
    small_model.save(path)
    out = _Output()
    monkeypatch.setattr(sys, "stdin", io.StringIO("uci\nisready\nposition startpos moves e2e4\ngo movetime 500\n"))
    monkeypatch.setattr(sys, "stdout", out)
    assert iam_main(["uci", "--imitate", str(path), "--check-engine", STOCKFISH, "--check-depth", "2"]) == 0
    lines = out.getvalue().splitlines()
    assert f"option name CheckEngine type string default {STOCKFISH}" in lines
    assert lines.index("uciok") < lines.index("readyok") and lines[-1].startswith("bestmove ")
    cache = tmp_path / "botvinnik.json.gz.check-rates.json"
    rates = json.loads(cache.read_text())["rates"]
    assert len(rates) == 1 and "depth 2 | 1000 positions" in next(iter(rates))
    assert 0.0 <= next(iter(rates.values())) < 0.5  # a master's rate, even by a shallow judge
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    monkeypatch.setattr("builtins.input", lambda prompt: "quit")
    played = io.StringIO()
    monkeypatch.setattr(sys, "stdout", played)
    flags = ["play", str(path), "--color", "black", "--movetime", "300", "--check-engine", STOCKFISH]
    assert iam_main([*flags, "--check-depth", "2"]) == 0
    assert played.getvalue().splitlines()[1].startswith("1. ") and "Game left unfinished." in played.getvalue()
    assert json.loads(cache.read_text())["rates"] == rates  # read again, not measured
