"""The learning-curve experiment end to end on a small PGN."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments import learning_curve
from iam.cli import main as iam_main
from iam.cli.experiment import experiments

from .conftest import run_on

FIGURES = ("coverage", "top1", "top3", "log_loss", "ece")


@pytest.fixture(scope="module")
def result(botvinnik40, tmp_path_factory):
    out = tmp_path_factory.mktemp("learning-curve")
    options = ["--train-games", "12,3,6", "--max-positions", "150", "--resamples", "300", "--jobs", "2"]
    payload = run_on(botvinnik40, "learning-curve", *options, "--out", str(out))
    return payload, out


def test_registry_knows_learning_curve():
    assert experiments()["learning-curve"].run is learning_curve.run


def test_one_run_per_size_asked_with_sane_figures(result):
    payload, _ = result
    assert payload["training_games_available"] == 32 and payload["max_positions"] == 150
    assert [run["train_games"] for run in payload["runs"]] == [3, 6, 12]
    for run in payload["runs"]:
        assert run["test_positions"] == payload["test_positions"] == 150
        for name in FIGURES:
            low, high = run[f"{name}_ci"]
            assert low <= run[name] <= high, name
        for name in ("coverage", "top1", "top3", "ece"):
            assert 0 <= run[f"{name}_ci"][0] and run[f"{name}_ci"][1] <= 1
        assert run["top1"] <= run["top3"] <= run["coverage"]
        assert run["log_loss"] >= 0


def test_out_folder_has_the_curve_and_its_plot(result):
    payload, out = result
    assert sorted(path.name for path in out.iterdir()) == [
        "learning_curve.csv", "learning_curve.png", "results.json", "summary.md",
    ]  # fmt: skip
    curve = pd.read_csv(out / "learning_curve.csv")
    assert curve["train_games"].tolist() == [3, 6, 12]
    assert curve["top3_hi"].tolist() == pytest.approx([run["top3_ci"][1] for run in payload["runs"]])
    assert "# Botvinnik: learning curve" in (out / "summary.md").read_text()


def test_sizes_beyond_the_training_games_become_all_of_them(botvinnik40):
    payload = run_on(
        botvinnik40, "learning-curve", "--train-games", "500,all,4", "--max-positions", "40", "--resamples", "50"
    )
    assert [run["train_games"] for run in payload["runs"]] == [4, 32]


@pytest.mark.parametrize(
    "options",
    [
        ["--player", "Nobody Atall"],
        ["--player", "Botvinnik", "--train-games", "-5"],
        ["--player", "Botvinnik", "--max-positions", "0"],
    ],
)
def test_bad_input_is_a_one_line_error(botvinnik40, options, capsys):
    assert iam_main(["experiment", "learning-curve", "--pgn", str(botvinnik40), *options, "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("iam: error:")
