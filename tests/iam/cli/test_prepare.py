"""``iam prepare``: the files it writes, and one-line errors for bad input."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat

import chess
import chess.pgn
import chess.polyglot
import pytest

from iam.cli import main
from iam.cli.prepare import add_engine_lines, engine_lines
from iam.errors import DataError
from iam.prepare.dossier import PrepareConfig, ScoringSettings, open_scorer
from iam.prepare.scoring import EngineScorer
from iam.runtime import Runtime


@pytest.fixture(scope="module")
def small_pgn(bundled_head):
    return bundled_head(30)


@pytest.fixture(scope="module")
def model_file(small_pgn, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.json"
    argv = ["train", "--predictor", "iam", "--belief", "rules", str(small_pgn), "--player", "Botvinnik"]
    assert main([*argv, "-o", str(path), "--quiet"]) == 0
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_prepare_writes_the_dossier_and_a_readable_book(small_pgn, model_file, tmp_path, capsys):
    out = tmp_path / "dossier"
    code, _, err = run(capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--model", str(model_file),
                       "--color", "white", "--plies", "3", "--search-depth", "1", "--out", str(out), "--quiet")
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == {
        "dossier.html", "dossier.md", "dossier.json", "lines.pgn", "book.bin", "repertoire.pgn", "prepared.json"
    }
    data = json.loads((out / "dossier.json").read_text())
    assert [side["color"] for side in data["sides"]] == ["white"]
    assert "toolkit's own search" in data["judged_by"]
    prepared = json.loads((out / "prepared.json").read_text())
    root = prepared["sides"][0]["nodes"][0]
    assert prepared["format"] == "iam-prepared-lines" and root["path"] == "" and not root["our_turn"]
    with chess.polyglot.open_reader(out / "book.bin") as reader:  # he is White: his first moves, by his beliefs
        first = {entry.move.uci(): entry.weight for entry in reader.find_all(chess.Board())}
    assert first == {reply["move"]: max(1, round(reply["belief"] * 1000)) for reply in root["replies"]}
    with open(out / "repertoire.pgn", encoding="utf-8") as stream:
        game = chess.pgn.read_game(stream)
        assert chess.pgn.read_game(stream) is None  # one game: his colour White only
    assert game.headers["White"] == "Botvinnik" and [v.move.uci() for v in game.variations] == [
        reply["move"] for reply in root["replies"] if reply["followed"]
    ] + [reply["move"] for reply in root["replies"] if not reply["followed"]]
    lines = data["sides"][0]["lines"]
    board = chess.Board()
    board.push_uci(lines[0]["moves"][0])
    with chess.polyglot.open_reader(out / "book.bin") as reader:
        assert reader.find(board).move.uci() == lines[0]["moves"][1]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--min-games", "1000"], "--min-games must be at most 13, not 1000: Botvinnik has 13 games with white"),
        (["--plies", "0"], "--plies"),
        (["--half-life", "0"], "--half-life"),
        (["--prior-strength", "0"], "--prior-strength must be positive"),
        (["--population-strength", "-1"], "--population-strength must be at least 0"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--search-depth", "1000"], "--search-depth must be from 1 to 12, not 1000"),
        (["--habit-loss", "-5"], "--habit-loss must be at least 0, not -5"),
        (["--engine-depth", "500"], "--engine-depth must be from 1 to 60, not 500"),
    ],
)
def test_bad_options_are_one_line_errors(small_pgn, model_file, tmp_path, capsys, options, message):
    code, _, err = run(capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--model", str(model_file),
                       "--out", str(tmp_path / "o"), "--quiet", *options)
    assert code == 2 and err.startswith("iam: error:") and message in err and err.count("\n") == 1


def test_a_name_two_people_share_is_refused_unless_partial_names(small_pgn, model_file, tmp_path, capsys):
    """A dossier against "Botvinnik" must not mix in another Botvinnik's games."""
    shared = tmp_path / "two.pgn"
    text = small_pgn.read_text(encoding="utf-8")
    shared.write_text(text.replace("Botvinnik, Mikhail", "Botvinnik, Igor", 3), encoding="utf-8")
    argv = ["prepare", str(shared), "--player", "Botvinnik", "--model", str(model_file), "--plies", "2",
            "--search-depth", "1", "--color", "white", "--quiet"]
    code, _, err = run(capsys, *argv, "--out", str(tmp_path / "o"))
    assert code == 2 and "it matches different people" in err and err.count("\n") == 1
    assert not (tmp_path / "o" / "dossier.md").exists()
    code, _, err = run(capsys, *argv, "--partial-names", "--out", str(tmp_path / "o"))
    assert code == 0 and (tmp_path / "o" / "dossier.md").exists()


def test_no_games_of_a_colour(tmp_path, model_file, capsys):
    pgn = tmp_path / "one.pgn"
    pgn.write_text('[White "A"]\n[Black "X"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n', encoding="utf-8")
    code, _, err = run(capsys, "prepare", str(pgn), "--player", "X", "--model", str(model_file), "--color", "white",
                       "--out", str(tmp_path / "o"), "--quiet")
    assert code == 2 and "no games with white" in err and err.count("\n") == 1


def test_an_unwritable_out(small_pgn, model_file, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(
        capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--model", str(model_file), "--out", str(blocker),
        "--quiet",
    )
    assert code == 2 and err.startswith("iam: error: cannot write to")


def test_an_engine_that_dies(small_pgn, model_file, tmp_path, capsys):
    engine = tmp_path / "engine.sh"
    engine.write_text("#!/bin/sh\nexit 1\n")
    engine.chmod(engine.stat().st_mode | stat.S_IEXEC)
    code, _, err = run(capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--model", str(model_file),
                       "--plies", "2", "--engine", str(engine), "--engine-cache", str(tmp_path / "cache.sqlite"),
                       "--out", str(tmp_path / "o"), "--quiet")
    assert code == 2 and err.startswith("iam: error: engine") and err.count("\n") == 1


def test_his_games_take_the_header_filters(small_pgn, model_file, tmp_path, capsys):
    common = ("prepare", str(small_pgn), "--player", "Botvinnik", "--model", str(model_file), "--color", "white",
              "--plies", "2", "--search-depth", "1", "--quiet")
    code, _, err = run(capsys, *common, "--out", str(tmp_path / "all"))
    assert code == 0, err
    code, _, err = run(capsys, *common, "--min-plies", "80", "--out", str(tmp_path / "long"))
    assert code == 0, err
    every, long = (json.loads((tmp_path / name / "dossier.json").read_text()) for name in ("all", "long"))
    assert 0 < long["sides"][0]["games"] < every["sides"][0]["games"]
    code, _, err = run(capsys, *common, "--until", "1926", "--out", str(tmp_path / "early"))  # as it stood in 1926
    assert code == 0, err
    early = json.loads((tmp_path / "early" / "dossier.json").read_text())
    assert 0 < early["sides"][0]["games"] < every["sides"][0]["games"]
    code, _, err = run(capsys, *common, "--until", "1800", "--out", str(tmp_path / "none"))
    assert code == 2 and "left by the filters" in err and err.count("\n") == 1


def test_engine_lines_reach_the_scorer_and_zero_scores_every_move(tmp_path):
    parser = argparse.ArgumentParser()
    add_engine_lines(parser)
    assert engine_lines(parser.parse_args([])) == 3
    assert engine_lines(parser.parse_args(["--engine-lines", "0"])) is None
    assert engine_lines(parser.parse_args(["--engine-lines", "5"])) == 5
    for lines in (5, None):
        engine = Runtime(engine=str(tmp_path / "engine"))
        scorer = open_scorer(PrepareConfig("X", scoring=ScoringSettings(engine_lines=lines), runtime=engine))
        assert isinstance(scorer, EngineScorer) and scorer.analyser.lines == lines  # the engine starts on first need
        scorer.close()
    with pytest.raises(DataError, match="lines must be at least 1"):
        PrepareConfig("X", scoring=ScoringSettings(engine_lines=0))


def test_the_default_model_is_kept_for_the_next_dossier(small_pgn, tmp_path, capsys, monkeypatch):
    from iam.prepare import model_cache
    from iam.ranker import MoveRanker

    fits = []

    def small_fit(games, player, **_):  # the default model's fit takes a minute; a small ranker stands in for it
        fits.append(player)
        return MoveRanker(families=("move",), max_positions=40, prior="none").fit(games, player=player)

    monkeypatch.setattr(model_cache, "fit_default_model", small_fit)
    common = ("prepare", str(small_pgn), "--player", "Botvinnik", "--color", "white", "--plies", "2",
              "--search-depth", "1", "--model-cache", str(tmp_path / "models"))
    code, _, err = run(capsys, *common, "--out", str(tmp_path / "first"))
    assert code == 0 and f"the default model: fitted and kept in {tmp_path / 'models'}" in err
    code, _, err = run(capsys, *common, "--out", str(tmp_path / "second"))
    assert code == 0 and f"the default model: read from {tmp_path / 'models'}" in err and fits == ["Botvinnik"]
    first = json.loads((tmp_path / "first" / "dossier.json").read_text())
    second = json.loads((tmp_path / "second" / "dossier.json").read_text())
    assert first["sides"] == second["sides"]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--model-cache", str(blocker / "m"),
                       "--out", str(tmp_path / "third"), "--quiet")
    assert code == 2 and err.startswith("iam: error: cannot keep the fitted model in") and fits == ["Botvinnik"]


def test_an_engine_that_dies_under_the_default_model(small_pgn, tmp_path, capsys):
    engine = tmp_path / "engine.sh"
    engine.write_text("#!/bin/sh\nexit 1\n")
    engine.chmod(engine.stat().st_mode | stat.S_IEXEC)
    code, _, err = run(capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--no-model-cache", "--plies", "2",
                       "--engine", str(engine), "--engine-cache", str(tmp_path / "cache.sqlite"),
                       "--out", str(tmp_path / "o"), "--quiet")
    assert code == 2 and err.startswith("iam: error: ") and "engine" in err and err.count("\n") == 1


STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_two_engines_write_the_dossier_one_engine_writes(small_pgn, model_file, tmp_path, capsys):
    if (os.cpu_count() or 1) < 2:
        pytest.skip("--jobs is capped at the CPUs: one CPU runs one engine")
    written = {}
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        code, _, err = run(capsys, "prepare", str(small_pgn), "--player", "Botvinnik", "--model", str(model_file),
                           "--plies", "4", "--engine", STOCKFISH, "--engine-depth", "6",
                           "--engine-cache", str(tmp_path / f"{jobs}.sqlite"),
                           "--jobs", jobs, "--out", str(out), "--quiet")
        assert code == 0, err
        data = json.loads((out / "dossier.json").read_text())
        assert data["config"].pop("jobs") == int(jobs)
        data["config"].pop("engine_cache")
        written[jobs] = (data, (out / "lines.pgn").read_text(), (out / "book.bin").read_bytes())
    assert written["1"] == written["2"]
    assert written["1"][0]["sides"][0]["lines"] and written["1"][0]["sides"][1]["lines"]
