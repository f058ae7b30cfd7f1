"""``iam evaluate MODEL PGN``: an IAM model of "Tester" measured on the tiny PGN, its files and its refusals.

Without --player the model's own name ("Tester, Tom") chooses the games: four usable
games (the illegal one skipped, "Tester, T." another spelling), 5 + 4 + 3 + 2 = 14 moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from iam.cli import main
from iam.games.player_games import read_games
from iam.measure.predictors import load_predictor

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny.pgn"


@pytest.fixture(scope="module")
def tester_model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("evaluate") / "tester.json"
    assert main(["train", "--predictor", "iam", str(TINY), "--player", "Tester", "-o", str(path), "--quiet"]) == 0
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    """``iam evaluate ARGV``, of every game unless ARGV names a split."""
    split = [] if "--split" in argv else ["--split", "all"]
    code = main(["evaluate", *argv, *split])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _hand_top1(model_path: Path, player: str) -> tuple[int, int]:
    """(hits, positions) of the model's most believed move over every move of ``player`` in the tiny games."""
    model = load_predictor(model_path)
    games, _ = read_games([TINY], player=player, quiet=True)
    hits = positions = 0
    for game in games:
        board = game.board()
        for move in game.moves:
            if board.turn == game.color:
                beliefs = model.predict_proba(board)
                hits += bool(beliefs) and max(beliefs, key=beliefs.get) == move
                positions += 1
            board.push(move)
    return hits, positions


def test_the_figures_are_the_hand_counted_ones(tester_model, capsys):
    code, out, err = _run(capsys, str(tester_model), str(TINY), "--json")
    assert code == 0
    payload = json.loads(out)
    (run,) = payload["runs"]
    hits, positions = _hand_top1(tester_model, "Tester, Tom")
    assert payload["model"] == str(tester_model) and payload["player"] == "Tester, Tom"
    assert run["test_positions"] == positions == 14 and payload["test_games"] == 4
    assert run["top1"] == pytest.approx(hits / positions) and run["predictor"] == "iam" and run["train_games"] == 5
    assert 0 <= run["top1"] <= run["top3"] <= run["coverage"] <= 1
    assert run["top1_ci"][0] <= run["top1"] <= run["top1_ci"][1]
    assert "note: 1 games skipped ({'illegal move': 1})" in err


def test_player_overrides_the_models_name(tester_model, capsys):
    """--player Tester takes every spelling: five games, 18 moves."""
    code, out, _ = _run(capsys, str(tester_model), str(TINY), "--player", "Tester", "--json", "--quiet")
    assert code == 0
    run = json.loads(out)["runs"][0]
    assert run["test_positions"] == _hand_top1(tester_model, "Tester")[1] == 18


def test_the_text_report_and_the_files_agree(tester_model, tmp_path, capsys):
    folder = tmp_path / "out"
    code, out, _ = _run(capsys, str(tester_model), str(TINY), "--out", str(folder), "--quiet")
    assert code == 0
    assert out.startswith(f"# Tester, Tom: {tester_model} on the given games\n\n4 games, 14 positions (games read: 4, "
                          "skipped: 1)")
    assert out.rstrip().endswith(
        f"written: {folder}/summary.csv, bands.csv, positions.csv, evaluation.json, evaluation.md"
    )
    assert sorted(p.name for p in folder.iterdir()) == [
        "bands.csv", "evaluation.json", "evaluation.md", "positions.csv", "summary.csv"
    ]
    assert (folder / "evaluation.md").read_text() == out[: out.index("written: ")].rstrip("\n") + "\n"
    positions = pd.read_csv(folder / "positions.csv")
    assert len(positions) == 14
    stored = json.loads((folder / "evaluation.json").read_text())
    assert stored["runs"][0]["test_positions"] == 14 and stored["model"] == str(tester_model)
    summary = pd.read_csv(folder / "summary.csv")
    assert summary["top1"].iloc[0] == pytest.approx(stored["runs"][0]["top1"])


def test_max_positions_samples_whole_games(tester_model, capsys):
    """At most N positions, made of whole games: 6 positions can be the 4 + 2 games, or fewer."""
    code, out, _ = _run(capsys, str(tester_model), str(TINY), "--max-positions", "6", "--json", "--quiet")
    assert code == 0
    payload = json.loads(out)
    assert payload["runs"][0]["test_positions"] <= 6 and payload["test_games"] < 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--max-positions", "0"], "--max-positions must be at least 1"),
        (["--seed", "-1"], None),
    ],
)
def test_bad_options_are_one_line_errors(tester_model, capsys, argv, message):
    code, out, err = _run(capsys, str(tester_model), str(TINY), *argv)
    assert code == 2 and out == "" and err.startswith("iam: error: ") and err.count("\n") == 1
    if message is not None:
        assert err == f"iam: error: {message}\n"


def test_a_player_without_games_in_the_file_is_one_line(tester_model, capsys):
    code, out, err = _run(capsys, str(tester_model), str(TINY), "--player", "Nobody Atall")
    assert code == 2 and out == "" and err.startswith("iam: error: ") and err.count("\n") == 1


def _evaluate(capsys, *argv: str) -> tuple[int, dict, str]:
    """``iam evaluate ARGV --json`` as given (its default split), with the payload and stderr."""
    code = main(["evaluate", *argv, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else {}, captured.err


def test_by_default_only_test_games_are_scored_and_training_games_among_them_are_named(tester_model, capsys):
    """Tester, Tom's games are tiny games 1, 3, 4 (skipped), 5 and 6: the test game is game 6 (number 4), 2 moves,
    and the model was trained on it."""
    code, payload, err = _evaluate(capsys, str(tester_model), str(TINY), "--player", "Tester, Tom")
    assert code == 0 and payload["split"] == "test"
    assert payload["test_games"] == 1 and payload["runs"][0]["test_positions"] == 2
    assert payload["training_games_scored"] == 1
    assert "iam: warning: 1 of the 1 games scored are games the model was trained on: these figures are not " \
        "held-out figures" in err


def test_a_model_of_the_training_games_is_scored_on_the_test_games_without_warning(tmp_path, capsys):
    model = tmp_path / "train-split.json"
    argv = ["train", "--predictor", "iam", str(TINY), "--player", "Tester, Tom", "--split", "train", "-o", str(model)]
    assert main([*argv, "--quiet"]) == 0
    assert load_predictor(model).training_games_.split == "train"
    capsys.readouterr()
    code, payload, err = _evaluate(capsys, str(model), str(TINY))
    assert code == 0 and payload["test_games"] == 1 and payload["training_games_scored"] == 0
    assert "warning" not in err
    code, payload, err = _evaluate(capsys, str(model), str(TINY), "--split", "dev")  # tiny game 5: 3 moves
    assert code == 0 and payload["split"] == "dev" and payload["runs"][0]["test_positions"] == 3
    assert "iam: warning: 1 of the 1 games scored are games the model was trained on" in err


def test_a_model_file_that_does_not_record_its_games_loads_and_is_said_so(tester_model, tmp_path, capsys):
    document = json.loads(tester_model.read_text())
    for key in ("split", "game_digests"):
        del document["training"][key]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document))
    assert load_predictor(old).training_games_ is None
    code, payload, err = _evaluate(capsys, str(old), str(TINY), "--player", "Tester, Tom")
    assert code == 0 and payload["test_games"] == 1 and payload["training_games_scored"] is None
    assert "iam: note: the model file does not record the games it was trained on" in err and "warning" not in err


def test_a_split_without_games_is_an_error_line(tester_model, tmp_path, capsys):
    three = tmp_path / "three.pgn"
    three.write_text(TINY.read_text().split('[Event "Tiny 4')[0])  # tiny games 1 to 3: two of Tester, Tom's
    code, out, err = _run(capsys, str(tester_model), str(three), "--player", "Tester, Tom", "--split", "test")
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == (
        "iam: error: none of the player's 2 games is a test game (numbered in file order); give --split all to score "
        "them all"
    )
