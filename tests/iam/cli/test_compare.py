"""``iam compare``: predictors retrained on the tiny PGN, known answers for the uniform guesser, one-line refusals.

"Tester" (every spelling) has five usable games in the tiny PGN; the game of index 4
(1. d4 Nf6 2. c4 e6 3. Nf3 b6, Tester Black) is his only test game: three positions,
with 20, 22 and 28 legal moves.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import chess
import pandas as pd
import pytest

from iam.cli import main

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny.pgn"
TEST_GAME = "d4 Nf6 c4 e6 Nf3 b6".split()


def _legal_counts() -> list[int]:
    board, counts = chess.Board(), []
    for san in TEST_GAME:
        if board.turn == chess.BLACK:
            counts.append(board.legal_moves.count())
        board.push_san(san)
    return counts


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["compare", str(TINY), "--player", "Tester", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _runs(capsys, *argv: str) -> dict:
    code, out, _ = _run(capsys, *argv, "--json", "--quiet")
    assert code == 0
    return json.loads(out)


def test_the_uniform_guesser_has_the_known_log_loss_and_brier_score(capsys):
    """Belief 1/n on each of n legal moves: log loss mean(log n), Brier score over the moves mean(1 - 1/n)."""
    payload = _runs(capsys, "--predictor", "random", "--train-games", "all")
    (run,) = payload["runs"]
    counts = _legal_counts()
    assert counts == [20, 22, 28]
    assert payload["player"] == "Tester" and payload["test_games"] == 1 and run["test_positions"] == 3
    assert run["predictor"] == "random" and run["train_games"] == 4 and run["coverage"] == 1.0
    assert run["log_loss"] == pytest.approx(sum(math.log(n) for n in counts) / 3)
    assert run["brier_moves"] == pytest.approx(sum(1 - 1 / n for n in counts) / 3)


def test_one_run_per_trained_predictor_and_size_in_order(capsys):
    """Sizes 2 and all (the four training games) for each trained predictor; the floor belief where none is held."""
    payload = _runs(capsys, "--predictor", "opening-memory,random", "--train-games", "2,all")
    runs = [(run["predictor"], run["train_games"]) for run in payload["runs"]]
    assert ("opening-memory", 2) in runs and ("opening-memory", 4) in runs and ("random", 4) in runs
    assert all(run["test_positions"] == 3 for run in payload["runs"])
    memory = next(run for run in payload["runs"] if run["predictor"] == "opening-memory")
    # 3. Nf3 never followed 1. d4 Nf6 2. c4 e6 in his training games: nothing remembered, the floor belief 1e-4
    assert memory["coverage"] == 0 and memory["log_loss"] == pytest.approx(-math.log(1e-4))
    for run in payload["runs"]:
        assert sum(band["predictions"] for band in run["bands"]) == round(run["coverage"] * run["test_positions"])


def test_the_text_report_and_the_files(tmp_path, capsys):
    folder = tmp_path / "cmp"
    code, out, _ = _run(capsys, "--predictor", "random", "--train-games", "all", "--out", str(folder), "--quiet")
    assert code == 0
    assert out.startswith("# Tester: held-out evaluation\n\n1 test games, 3 test positions (games read: 5, skipped: 1)")
    assert "Belief bands: hits/predictions (hit rate) of each test position's top prediction" in out
    assert sorted(p.name for p in folder.iterdir()) == [
        "bands.csv", "evaluation.json", "evaluation.md", "positions.csv", "summary.csv"
    ]
    assert len(pd.read_csv(folder / "positions.csv")) == 3
    assert json.loads((folder / "evaluation.json").read_text())["runs"][0]["predictor"] == "random"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--predictor", "foo"], "--predictor takes 'all' or some of "),
        (["--predictor", ","], "--predictor takes 'all' or some of "),
        (["--predictor", "engine-best"], "engine-best needs --engine PATH"),
        (["--train-games", "0"], "--train-games must be positive numbers or 'all', not '0'"),
        (["--train-games", "x"], "--train-games must be positive numbers or 'all', not 'x'"),
        (["--max-positions", "0"], "--max-positions must be at least 1"),
    ],
)
def test_bad_options_are_one_line_errors(capsys, argv, message):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.startswith(f"iam: error: {message}") and err.count("\n") == 1


def test_a_player_without_test_games_is_refused(tmp_path, capsys):
    """Two games: both are training games (indices 0 and 1), none is a test game."""
    two = tmp_path / "two.pgn"
    two.write_text("\n\n".join(TINY.read_text().split("\n\n")[:4]) + "\n")
    code = main(["compare", str(two), "--player", "Tester", "--predictor", "random", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err == "iam: error: Tester needs at least one training and one test game (found 2 games)\n"
