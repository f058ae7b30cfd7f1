"""The move ranker through the command line: train, predict, evaluate with comparison rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from iam.cli import main


@pytest.fixture(scope="module")
def small_pgn(bundled_head) -> Path:
    """Botvinnik's first 30 bundled games: 24 training games, 6 test games."""
    return bundled_head(30)


@pytest.fixture(scope="module")
def ranker_file(quick_ranker) -> Path:
    """The shared quick ranker: two families, trained by the command on Botvinnik's first 40 bundled games."""
    return quick_ranker


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_ranker_is_the_default_and_predict_explains_it(ranker_file, capsys):
    code, out, _ = run(capsys, "predict", str(ranker_file), "--moves", "d2d4", "g8f6", "c2c4", "--top", "3", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["predictor"] == "ranker" and len(payload["predictions"]) == 3
    beliefs = [p["belief"] for p in payload["predictions"]]
    assert beliefs == sorted(beliefs, reverse=True) and sum(beliefs) <= 1.0
    assert all(f["family"] in ("move", "habits") for p in payload["predictions"] for f in p["features"])
    code, out, _ = run(capsys, "predict", str(ranker_file), "--moves", "e2e4")
    assert code == 0 and " 1. " in out and "%" in out


def test_the_reply_policy_is_fitted_only_when_asked(bundled_head, tmp_path):
    from iam.ranker import MoveRanker

    argv = ["train", str(bundled_head(10)), "--player", "Botvinnik", "--families", "move,habits", "--train-positions",
            "60", "--quiet"]
    assert main([*argv, "-o", str(tmp_path / "plain.json.gz")]) == 0
    plain = MoveRanker.load(tmp_path / "plain.json.gz")
    assert plain.reply_positions == 0 and plain.reply_policy_ is None
    path = tmp_path / "replies.json.gz"
    assert main([*argv, "--reply-positions", "400", "-o", str(path)]) == 0
    fitted = MoveRanker.load(path)
    assert fitted.reply_positions == 400 and fitted.reply_policy_ is not None
    assert np.array_equal(fitted.coef_, plain.coef_)  # the ranker itself is the same


def test_a_single_ranker_run_gives_its_workers_to_the_features_with_the_same_figures(bundled_head, capsys):
    # 12 training games, 3 test games: each fold's positions still go to the two workers in pieces
    argv = ["compare", str(bundled_head(15)), "--player", "Botvinnik", "--train-games", "all", "--predictor", "ranker",
            "--max-positions", "40", "--families", "move,habits", "--train-positions", "150", "--json", "--quiet"]
    figures = []
    for jobs in ("1", "2"):
        code, out, _ = run(capsys, *argv, "--jobs", jobs)
        assert code == 0
        (only,) = json.loads(out)["runs"]
        figures.append((only["top1"], only["log_loss"], only["test_positions"]))
    assert figures[0] == figures[1] and figures[0][2] == 40


def test_inspect_shows_the_chunks_of_the_rankers_iam_model(ranker_file, capsys):
    code, out, _ = run(capsys, "inspect", str(ranker_file), "--top", "2", "--json")
    assert code == 0 and json.loads(out)["player"]


def test_evaluate_compares_predictors_in_one_table(small_pgn, capsys):
    code, out, _ = run(
        capsys, "compare", str(small_pgn), "--player", "Botvinnik", "--train-games", "12,all", "--predictor",
        "ranker,opening-memory,random", "--max-positions", "60", "--families", "move,habits", "--train-positions",
        "150", "--json", "--quiet",
    )
    assert code == 0
    runs = json.loads(out)["runs"]
    assert [(r["predictor"], r["train_games"]) for r in runs] == [
        ("ranker", 12), ("ranker", 24), ("opening-memory", 12), ("opening-memory", 24), ("random", 24)
    ]
    assert {r["test_positions"] for r in runs} == {60}
    ranker, random = runs[1], runs[-1]
    assert ranker["coverage"] == 1.0 and random["coverage"] == 1.0
    assert ranker["top1"] > random["top1"] + 0.1  # far above chance, even from 24 games


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "--predictor", "psychic"], "--predictor takes"),
        (["compare", "--predictor", "engine-best"], "needs --engine"),
        (["compare", "--families", "move,telepathy"], "--families takes"),
        (["compare", "--families", "engine"], "needs --engine"),
        (["compare", "--max-positions", "0"], "--max-positions"),
        (["compare", "--families", ""], "--families takes"),
        (["compare", "--families", "engine", "--engine", "/bin/true"], "besides engine"),
        (["compare", "--search-depth", "0"], "--search-depth"),
        (["train", "x.pgn", "--player", "x", "--train-positions", "0", "-o", "m.json"], "--train-positions"),
        (["train", "x.pgn", "--player", "x", "--reply-positions", "-1", "-o", "m.json"], "--reply-positions"),
    ],
)
def test_bad_ranker_options_are_one_line_errors(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.pgn").write_text('[White "x"]\n[Black "y"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n')
    code, _, err = run(capsys, *argv, "--quiet")
    assert code == 2 and message in err and "Traceback" not in err


def test_evaluate_gives_intervals_and_runs_each_training_size_once(tiny_pgn, capsys):
    # The player has four training games here: 12, 22, 80 and all are the same four, one run.
    code, out, _ = run(
        capsys, "compare", str(tiny_pgn), "--player", "Tester", "--predictor", "iam", "--json", "--quiet"
    )
    assert code == 0
    runs = json.loads(out)["runs"]
    assert [(r["predictor"], r["train_games"]) for r in runs] == [("iam", 4)]
    low, high = runs[0]["top1_ci"]
    assert low <= runs[0]["top1"] <= high
