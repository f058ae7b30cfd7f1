"""Abusive command lines: one line ``iam: error: ...``, exit code 2, never a traceback."""

from __future__ import annotations

import io
import os
import shutil
import sys

import pytest

from iam.cli import main
from iam.cli._common import usable_jobs
from iam.errors import IAMError


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("train", "{pgn}", "--player", "Tester", "--seed", "-1", "-o", "{dir}/m.json"), "--seed must be between 0"),
        (("train", "{pgn}", "--player", "Tester", "--seed", str(2**40), "-o", "{dir}/m.json"), "--seed must be"),
        (("compare", "{pgn}", "--player", "Tester", "--seed", "-2"), "--seed must be"),
        (("compare", "{pgn}", "--player", "Tester", "--jobs", "0"), "--jobs must be at least 1"),
        (("match", "a", "b", "--timeout", "nan"), "--timeout must be a finite number, not nan"),
        (("match", "a", "b", "--timeout", "inf"), "--timeout must be a finite number, not inf"),
        (("experiment", "node-counts", "--time-cap", "nan"), "--time-cap must be a finite number, not nan"),
        (("experiment", "node-counts", "--time-cap=-inf"), "--time-cap must be a finite number, not -inf"),
        (("identify", "{pgn}", "--models", "{pgn}", "--model-weight", "NaN"), "--model-weight must be a finite number"),
        (("uci", "--exploit-margin", "nan"), "--exploit-margin must be a finite number, not nan"),
        (
            ("train", "{pgn}", "--player", "Tester", "--prior-strength", "nan", "-o", "{dir}/m.json"),
            "--prior-strength must be",
        ),
        (("match", "a", "b", "--movetime", "9" * 30), "--movetime must be at most"),
        (("train", "{pgn}", "--player", "Tester", "-o", "{pgn}"), "is an input file"),
        (("train", "/dev/zero", "--player", "Tester", "-o", "{dir}/m.json"), "not a regular file"),
        (("predict", "/dev/zero"), "not a regular file"),
        (("train", "{dir}/" + "a" * 5000, "--player", "Tester", "-o", "{dir}/m.json"), "cannot open"),
        (("compare", "{pgn}", "--player", "Tester", "--out", "{dir}/" + "a" * 5000), "File name too long"),
        (("experiment", "learning-curve", "--pgn", "{pgn}", "--player", "Tester", "--resamples", "9" * 25),
         "--resamples must be between 1 and"),
        (
            ("prepare", "{pgn}", "--player", "Tester", "--engine-lines", "-1", "--out", "{dir}/o"),
            "--engine-lines must be at least 0",
        ),
        (
            ("experiment", "prepare", "--pgn", "{pgn}", "--player", "Tester", "--engine-lines", "-3"),
            "--engine-lines must be at least 0",
        ),
    ],
)
def test_abusive_arguments_are_one_line_errors(tmp_path, tiny_pgn, capsys, argv, message):
    pgn = tmp_path / "games.pgn"
    shutil.copy(tiny_pgn, pgn)
    before = pgn.read_bytes()
    code, err = _run(capsys, *(arg.format(pgn=pgn, dir=tmp_path) for arg in argv))
    assert code == 2 and err.startswith("iam: error: ") and message in err and err.count("\n") == 1
    assert pgn.read_bytes() == before


def test_jobs_are_capped_at_the_cpus():
    assert usable_jobs(1_000_000_000) == (os.cpu_count() or 1)
    with pytest.raises(IAMError):
        usable_jobs(0)


def test_a_file_name_that_is_not_utf8_under_a_strict_locale(tmp_path, tiny_pgn, monkeypatch):
    strict = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", strict)
    name = os.fsdecode(b"model-\xff.json")
    assert main(["train", str(tiny_pgn), "--player", "Tester", "-o", str(tmp_path / name), "--quiet"]) == 0
    strict.flush()
    assert b"model-\\udcff.json" in strict.buffer.getvalue()
    assert os.path.exists(tmp_path / name)


def test_belief_bands_on_games_too_few_for_any_prediction(tmp_path, tiny_pgn, capsys):
    """No top prediction in any band: the reliability plot has nothing for its log scale."""
    code, err = _run(capsys, "experiment", "belief-bands", "--pgn", str(tiny_pgn), "--player", "Tester",
                     "--train-games", "2", "--quiet", "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert (tmp_path / "out" / "reliability.png").exists() or any((tmp_path / "out").glob("*.png"))


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("link", "is a symbolic link"),
        ("dangling", "is a symbolic link"),
        ("loop", "is a symbolic link"),
        ("fifo", "not a regular file"),
        ("folder", "is a folder"),
        ("cache", "is an input file or cache"),
        ("engine-cache", "is an input file or cache"),
    ],
)
def test_an_output_must_be_a_regular_file_or_a_new_path(tmp_path, tiny_pgn, capsys, target, message):
    pgn = tmp_path / "games.pgn"
    shutil.copy(tiny_pgn, pgn)
    kept = tmp_path / "kept.json"
    kept.write_text("{}")
    (tmp_path / "link").symlink_to(kept)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    extra = {
        "cache": ["--search-cache", str(tmp_path / "cache")],
        "engine-cache": ["--engine", "/bin/true", "--engine-cache", str(tmp_path / "./engine-cache")],
    }.get(target, [])
    code, err = _run(capsys, "train", str(pgn), "--player", "Tester", *extra, "-o", str(tmp_path / target))
    assert code == 2 and err.startswith("iam: error: -o ") and message in err and err.count("\n") == 1
    assert kept.read_text() == "{}" and (tmp_path / "link").is_symlink() and (tmp_path / "fifo").is_fifo()
    assert not (tmp_path / "cache").exists() and not (tmp_path / "engine-cache").exists()


def test_a_symbolic_link_loop_as_input_is_one_line(tmp_path, capsys):
    (tmp_path / "loop.pgn").symlink_to(tmp_path / "loop.pgn")
    for argv in (
        ["train", str(tmp_path / "loop.pgn"), "--player", "Tester", "-o", str(tmp_path / "m.json")],
        ["compare", str(tmp_path / "loop.pgn"), "--player", "Tester"],
    ):
        code, err = _run(capsys, *argv)
        assert code == 2 and err.startswith("iam: error: ") and "loop.pgn" in err and err.count("\n") == 1


def test_match_refuses_a_device_as_its_game_file(tmp_path, capsys):
    os.mkfifo(tmp_path / "fifo")
    code, err = _run(capsys, "match", "a", "b", "--pgn", str(tmp_path / "fifo"))
    assert code == 2 and "--pgn" in err and "not a regular file" in err and (tmp_path / "fifo").is_fifo()


@pytest.mark.parametrize(
    "argv",
    [
        ["experiment", "stylometry", "--players", "Botvinnik", "Tal", "Botvinnik", "--pgn", "{pgn}"],
        ["experiment", "stylometry", "--players", "Botvinnik, M.", "botvinnik m", "--pgn", "{pgn}"],
        ["identify", "{pgn}", "--players", "Tal", "TAL", "--pgn", "{pgn}"],
    ],
)
def test_the_same_player_named_twice_is_refused_before_any_work(tmp_path, capsys, argv):
    code, err = _run(capsys, *(arg.format(pgn=tmp_path / "missing.pgn") for arg in argv))
    assert code == 2 and "--players names the same player twice" in err and err.count("\n") == 1
