"""The ``iam`` command line: the documented contract and one-line errors for bad input."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from iam.cli import main

BAND_NAMES = ["<25%", "25-30%", "30-40%", "40-50%", ">50%"]


@pytest.fixture(scope="module")
def small_pgn(bundled_head) -> Path:
    """Botvinnik's first 50 games as a PGN file of its own (40 training, 10 test games)."""
    return bundled_head(50)


@pytest.fixture(scope="module")
def trained(small_pgn, tmp_path_factory) -> tuple[Path, dict]:
    """The IAM model of all 50 games, trained once for the module by the command, and the summary it printed."""
    path = tmp_path_factory.mktemp("model") / "botvinnik.json.gz"
    argv = ["train", "--predictor", "iam", str(small_pgn), "--player", "botvinnik", "--json", "-o", str(path),
            "--quiet"]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(argv) == 0
    return path, json.loads(buffer.getvalue())


@pytest.fixture(scope="module")
def model_file(trained) -> Path:
    return trained[0]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_train_prints_the_summary(small_pgn, trained, tmp_path, capsys):
    code, out, _ = run(
        capsys, "train", "--predictor", "iam", str(small_pgn), "--player", "Botvinnik", "--split", "train", "-o",
        str(tmp_path / "m.json"), "--quiet",
    )
    assert code == 0
    assert "player's games: 50; used: 40" in out
    assert "left out by request: 0 by colour, 10 by split" in out
    assert "after the noise filter" in out and "'Botvinnik, Mikhail' (50)" in out
    _, summary = trained  # the same command on every game, with --json
    assert summary["games"]["used"] == 50 and summary["chunks"]["stored"] > 0 and summary["positions"] > 1000


def test_predict_json_contract(model_file, capsys):
    code, out, _ = run(
        capsys, "predict", str(model_file), "--moves", "d2d4", "g8f6", "c2c4", "e7e6", "--top", "3", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["fen"].startswith("rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w")
    predictions = payload["predictions"]
    assert 1 <= len(predictions) <= 3
    assert [p["belief"] for p in predictions] == sorted((p["belief"] for p in predictions), reverse=True)
    for p in predictions:
        assert {"move", "san", "belief", "sources"} <= set(p)
        assert 0 < p["belief"] <= 1 and isinstance(p["sources"], list)
    code, out, _ = run(
        capsys, "predict", str(model_file), "--fen",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    )
    assert code == 0 and "1." in out and "%" in out


def test_evaluate_json_contract(small_pgn, tmp_path, capsys):
    out_dir = tmp_path / "results"
    code, out, _ = run(
        capsys, "compare", "--predictor", "iam", str(small_pgn), "--player", "Botvinnik", "--train-games", "12,all",
        "--json", "--out", str(out_dir), "--quiet",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["player"] == "Botvinnik"
    assert [r["train_games"] for r in payload["runs"]] == [12, 40]
    for run_ in payload["runs"]:
        assert {"train_games", "test_positions", "coverage", "top1", "top3", "ece", "brier", "bands"} <= set(run_)
        assert [b["band"] for b in run_["bands"]] == BAND_NAMES
        assert sum(b["predictions"] for b in run_["bands"]) == round(run_["coverage"] * run_["test_positions"])
        assert sum(b["hits"] for b in run_["bands"]) == round(run_["top1"] * run_["test_positions"])
        assert 0 <= run_["top1"] <= run_["top3"] <= run_["coverage"] <= 1
    written = {"summary.csv", "bands.csv", "positions.csv", "evaluation.json", "evaluation.md"}
    assert {p.name for p in out_dir.iterdir()} == written


def test_inspect_lists_chunks_and_draws_svg(model_file, tmp_path, capsys):
    code, out, _ = run(capsys, "inspect", str(model_file), "--top", "2", "--svg", str(tmp_path / "svg"))
    assert code == 0 and "#1 " in out and "#2 " in out
    svgs = sorted(p.name for p in (tmp_path / "svg").iterdir())
    assert svgs == ["chunk-1.svg", "chunk-2.svg"]
    assert (tmp_path / "svg" / "chunk-1.svg").read_text().startswith("<svg")
    code, out, _ = run(capsys, "inspect", str(model_file), "--top", "1", "--json")
    assert json.loads(out)["top_chunks"][0]["rank"] == 1


def bad_inputs(tmp_path: Path, small_pgn: Path, model_file: Path) -> list[tuple[list[str], str]]:
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    binary = tmp_path / "noise.pgn"
    binary.write_bytes(bytes(range(256)) * 8)
    corrupt = tmp_path / "corrupt.json.gz"
    corrupt.write_bytes(model_file.read_bytes()[:100])
    old = tmp_path / "old.json"
    content = json.loads(gzip.decompress(model_file.read_bytes()))
    content["version"] = 0
    old.write_text(json.dumps(content))
    garbled_gz = tmp_path / "garbled.pgn.gz"
    garbled_gz.write_bytes(gzip.compress(small_pgn.read_bytes())[:12] + bytes(range(256)) * 4)
    cut_zst = tmp_path / "cut.pgn.zst"
    packed = zstandard.ZstdCompressor().compress(small_pgn.read_bytes())
    cut_zst.write_bytes(packed[: len(packed) * 7 // 10])
    model = str(model_file)
    truncated = tmp_path / "truncated.json"
    plain = json.dumps(json.loads(gzip.decompress(model_file.read_bytes())))
    truncated.write_text(plain[: len(plain) // 2])
    damaged = []
    for number, damage in enumerate(
        [
            lambda d: d["chunks"]["rows"][0].__setitem__(2, 10**30),
            lambda d: d["rule_weights"].update(large_patterns="0.15"),
            lambda d: next(iter(d["rote"]["sequences"].values())).update(notamove=2),
            lambda d: d["belief"]["coef"].__setitem__(0, float("nan")),
            lambda d: d["params"].update(random_state="zero"),
        ]
    ):
        data = json.loads(gzip.decompress(model_file.read_bytes()))
        damage(data)
        damaged.append(tmp_path / f"damaged{number}.json")
        damaged[-1].write_text(json.dumps(data))
    return [
        (["train", str(tmp_path / "missing.pgn"), "--player", "x", "-o", str(tmp_path / "o.json")], "not found"),
        (["train", str(empty), "--player", "x", "-o", str(tmp_path / "o.json")], "empty"),
        (["train", str(binary), "--player", "x", "-o", str(tmp_path / "o.json")], "no PGN games"),
        (["train", str(small_pgn), "--player", "Kasparov", "-o", str(tmp_path / "o.json")], "most common names"),
        (["train", str(garbled_gz), "--player", "x", "-o", str(tmp_path / "o.json")], "cannot read"),
        (["train", str(cut_zst), "--player", "Botvinnik", "-o", str(tmp_path / "o.json")], "truncated"),
        (["predict", model, "--fen", "not a fen"], "invalid FEN"),
        (["predict", model, "--fen", ""], "--fen is empty"),
        (["predict", model, "--fen", "  "], "--fen is empty"),
        (["predict", model, "--moves", "e2e5"], "illegal move e2e5"),
        (["predict", model, "--moves", "hello"], "not a move"),
        (["predict", str(corrupt)], "damaged gzip"),
        (["predict", str(old)], "version 0"),
        (["predict", str(tmp_path / "nomodel.json")], "not found"),
        (["predict", str(truncated)], "not valid JSON"),
        (["predict", str(damaged[0])], "too large"),
        (["predict", str(damaged[1])], "rule weight large_patterns must be a number"),
        (["predict", str(damaged[2])], "'notamove', not a move"),
        (["inspect", str(damaged[3])], "belief coef must be finite"),
        (["uci", "--model", str(damaged[4])], "random_state"),
        (["compare", str(small_pgn)], "--player is required"),
        (["compare", "--train-games", "ten"], "--train-games"),
    ]


def test_bad_input_is_one_line_and_exit_code_2(small_pgn, model_file, tmp_path, capsys, monkeypatch):
    for argv, expected in bad_inputs(tmp_path, small_pgn, model_file):
        # the engine answers ``uci`` before it reads the model: a file damaged inside is refused at ``isready``
        monkeypatch.setattr(sys, "stdin", io.StringIO("uci\nisready\n"))
        code, out, err = run(capsys, *argv, *(["--quiet"] if argv[0] in ("train", "compare") else []))
        assert code == 2, argv
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("iam: error: "), (argv, err)
        assert expected in lines[0], (argv, lines[0])
        assert "Traceback" not in err
    assert not (tmp_path / "o.json").exists()  # nothing written for a failed training


def test_the_console_script_reports_errors_without_a_traceback(tmp_path):
    executable = shutil.which("iam") or str(Path(sys.executable).parent / "iam")
    result = subprocess.run([executable, "predict", str(tmp_path / "none.json")], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("iam: error: model file not found")
    assert "Traceback" not in result.stderr
    help_text = subprocess.run([executable, "--help"], capture_output=True, text=True, check=True).stdout
    for command in ("train", "predict", "annotate", "evaluate", "compare", "inspect", "uci", "match", "experiment"):
        assert command in help_text


@pytest.mark.parametrize("count", [1, 2, 3])
def test_train_and_predict_on_one_to_three_games(bundled_head, tmp_path, capsys, count):
    model = tmp_path / "few.json"
    code, out, _ = run(
        capsys, "train", "--predictor", "iam", str(bundled_head(count)), "--player", "Botvinnik", "-o", str(model),
        "--json", "--quiet",
    )
    assert code == 0
    summary = json.loads(out)
    assert summary["games"]["used"] == count
    assert (summary["chunks"]["stored"] == 0) is (count == 1)
    code, out, _ = run(capsys, "predict", str(model), "--moves", "d2d4")
    assert code == 0 and "to move in" in out


def test_evaluate_with_a_single_training_game(bundled_head, capsys):
    code, out, _ = run(
        capsys, "compare", "--predictor", "iam", str(bundled_head(10)), "--player", "Botvinnik", "--train-games", "1",
        "--json", "--quiet",
    )
    assert code == 0
    (run_,) = json.loads(out)["runs"]
    assert run_["train_games"] == 1 and run_["test_positions"] > 0
    assert run_["coverage"] == 0.0 and run_["top1"] == 0.0  # nothing learned from one game, nothing predicted


def test_bad_output_places_fail_before_any_work(small_pgn, model_file, tmp_path, capsys, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the command started its work before checking where to write")

    monkeypatch.setattr("iam.cli._games.read_filtered", no_work)
    a_file = tmp_path / "a-file"
    a_file.write_text("keep me")
    cases = [
        (["compare", "--out", str(a_file)], "it is a file, not a folder"),
        (["compare", "--out", str(a_file / "sub")], "cannot create folder"),
        (["inspect", str(model_file), "--svg", str(a_file)], "it is a file, not a folder"),
        (["train", str(small_pgn), "--player", "Botvinnik", "-o", str(tmp_path)], "it is a folder"),
        (["train", str(small_pgn), "--player", "Botvinnik", "-o", str(tmp_path / ("x" * 300))], "too long"),
        (["train", str(small_pgn), "--player", "Botvinnik", "-o", str(a_file / "m.json")], "is not a folder"),
    ]
    for argv, expected in cases:
        code, _, err = run(capsys, *argv)
        assert code == 2, argv
        assert err.count("\n") == 1 and err.startswith("iam: error: ") and expected in err, (argv, err)
    assert a_file.read_text() == "keep me" and [p.name for p in tmp_path.iterdir()] == ["a-file"]


def test_a_failure_after_training_leaves_nothing_behind(small_pgn, tmp_path, capsys, monkeypatch):
    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", disk_full)
    code, _, err = run(
        capsys, "train", "--predictor", "iam", str(small_pgn), "--player", "Botvinnik", "--max-games", "3", "-o",
        str(tmp_path / "m.json"), "--quiet",
    )
    assert code == 2 and err == f"iam: error: cannot write {tmp_path / 'm.json'}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []  # neither the model nor its temporary file


def test_train_exposes_the_formed_games_filter(small_pgn, tmp_path, capsys):
    stored = {}
    for n in (0, 2):
        path = tmp_path / f"m{n}.json"
        code, out, _ = run(
            capsys, "train", "--predictor", "iam", str(small_pgn), "--player", "Botvinnik", "--min-formed-games",
            str(n), "--belief", "rules", "-o", str(path), "--json", "--quiet",
        )
        assert code == 0
        chunks = json.loads(out)["chunks"]
        stored[n] = chunks["stored"]
        assert json.loads(path.read_text())["params"]["min_formed_games"] == n
    assert stored[0] == chunks["after_noise_filter"] > stored[2] > 0
    code, _, err = run(
        capsys, "train", str(small_pgn), "--player", "Botvinnik", "--min-formed-games", "-1", "-o",
        str(tmp_path / "x.json"),
    )
    assert code == 2 and "--min-formed-games" in err


@pytest.mark.parametrize(
    ("player", "expected"),
    [
        ("Capablanca", "Capablanca.pgn"),
        ("capablanca, jose raul", "Capablanca.pgn"),
        ("Botvinnik", "Botvinnik.pgn"),
        ("Tal", "Botvinnik.pgn"),
        (None, "Botvinnik.pgn"),
    ],
)
def test_evaluate_without_a_pgn_reads_the_players_bundled_file(capsys, monkeypatch, player, expected):
    from iam.errors import DataError

    seen = {}

    def record(paths, games_filter, **options):
        seen.update(paths=paths, player=games_filter.player)
        raise DataError("stop here")

    monkeypatch.setattr("iam.cli._games.read_filtered", record)
    code, _, err = run(capsys, "compare", *(["--player", player] if player else []), "--quiet")
    assert code == 2 and "stop here" in err
    assert [Path(p).name for p in seen["paths"]] == [expected]
    assert seen["player"] == (player or "Botvinnik")


def test_predict_from_a_fen_alone_uses_the_remembered_position(model_file, capsys):
    import chess

    from iam.chunks.model import OpponentModel

    rote = OpponentModel.load(model_file).rote_
    later = {epd: entry for epd, entry in rote.positions.items() if epd != chess.Board().epd()}
    epd, entry = max(later.items(), key=lambda item: (item[1].games, item[0]))  # reached after some moves
    favourite = max(entry.counts, key=entry.counts.get)
    code, out, _ = run(capsys, "predict", str(model_file), "--fen", epd + " 0 12", "--json")
    assert code == 0
    top = json.loads(out)["predictions"][0]
    rote_sources = [s for s in top["sources"] if s["kind"] == "rote"]
    assert top["move"] == favourite and rote_sources[0]["games"] == entry.games
