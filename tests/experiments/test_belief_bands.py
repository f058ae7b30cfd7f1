"""The belief-band experiment end to end on a small PGN, and its one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments import belief_bands
from iam.cli import main as iam_main
from iam.cli.experiment import experiments
from iam.measure.bootstrap import interval, resample_games, summary_figures
from iam.measure.evaluation import ECE_BINS

from .conftest import run_on

BAND_NAMES = ["<25%", "25-30%", "30-40%", "40-50%", ">50%"]
FIGURES = ("coverage", "top1", "top3", "ece", "brier", "log_loss")


@pytest.fixture(scope="module")
def result(botvinnik40, tmp_path_factory):
    out = tmp_path_factory.mktemp("belief-bands")
    payload = run_on(botvinnik40, "belief-bands", "--train-games", "6,all", "--resamples", "300", "--out", str(out))
    return payload, out


def test_registry_knows_belief_bands():
    assert experiments()["belief-bands"].run is belief_bands.run


def test_json_has_the_shape_of_iam_evaluate_plus_intervals(result):
    payload, _ = result
    assert payload["player"] == "Botvinnik" and payload["test_games"] == 8 and payload["resamples"] == 300
    assert [run["train_games"] for run in payload["runs"]] == [6, 32]
    for run in payload["runs"]:
        assert run["test_positions"] == payload["test_positions"] > 300
        assert [band["band"] for band in run["bands"]] == BAND_NAMES
        positions = run["test_positions"]
        assert sum(band["predictions"] for band in run["bands"]) == round(run["coverage"] * positions)
        assert sum(band["hits"] for band in run["bands"]) == round(run["top1"] * positions)
        for name in FIGURES:
            low, high = run[f"{name}_ci"]
            assert low <= run[name] <= high, name
        for name in ("coverage", "top1", "top3", "ece", "brier"):
            assert 0 <= run[f"{name}_ci"][0] and run[f"{name}_ci"][1] <= 1
        assert run["top1"] <= run["top3"] <= 1
        for band in run["bands"]:
            if band["predictions"]:
                assert band["rate"] == pytest.approx(band["hits"] / band["predictions"])
                low, high = band["rate_ci"]
                assert 0 <= low <= band["rate"] <= high <= 1
            else:
                assert band["rate"] is None and band["rate_ci"] == [None, None]


def test_reliability_bins_partition_the_predictions(result):
    payload, _ = result
    for run in payload["runs"]:
        bins = run["reliability"]
        assert len(bins) == ECE_BINS
        assert sum(cell["predictions"] for cell in bins) == sum(band["predictions"] for band in run["bands"])
        hits = sum(round(cell["rate"] * cell["predictions"]) for cell in bins if cell["predictions"])
        assert hits == sum(band["hits"] for band in run["bands"])
        for cell in bins:
            if cell["predictions"]:
                low, high = cell["bin"]
                assert low - 1e-9 <= cell["mean_belief"] <= high + 1e-9
                assert cell["rate_ci"][0] <= cell["rate"] <= cell["rate_ci"][1]


def test_intervals_are_those_of_the_written_positions(result):
    payload, out = result
    positions = pd.read_csv(out / "positions.csv", keep_default_na=False, na_values=[""])
    run = payload["runs"][1]
    records = positions[positions["train_games"] == run["train_games"]]
    draws = resample_games(sorted(set(records["game"])), resamples=payload["resamples"], seed=0)
    point = summary_figures(records, draws.unit()).iloc[0]
    for name in FIGURES:
        assert point[name] == pytest.approx(run[name])
    # the same data, seed and resamples give the same interval; another seed a different one
    spawned = np.random.SeedSequence(payload["seed"]).spawn(2)[1]
    same = summary_figures(records, resample_games(draws.games, resamples=payload["resamples"], seed=spawned))
    assert list(interval(same["top1"])) == pytest.approx(run["top1_ci"])


def test_out_folder_has_tables_json_markdown_and_plots(result):
    payload, out = result
    names = sorted(path.name for path in out.iterdir())
    assert names == [
        "band_rates.png", "bands.csv", "positions.csv", "reliability.csv", "reliability.png",
        "results.json", "summary.csv", "summary.md",
    ]  # fmt: skip
    assert json.loads((out / "results.json").read_text())["runs"][0]["top1_ci"] == payload["runs"][0]["top1_ci"]
    bands = pd.read_csv(out / "bands.csv")
    assert list(bands.columns) == [
        "train_games", "band", "predictions", "hits", "rate", "rate_lo", "rate_hi", "mean_belief"
    ]
    summary = pd.read_csv(out / "summary.csv")
    assert summary["top1_lo"].tolist() == pytest.approx([run["top1_ci"][0] for run in payload["runs"]])
    text = (out / "summary.md").read_text()
    assert "# Botvinnik: belief bands" in text and ">50%" in text and "top-1" in text


def test_max_positions_caps_the_scored_positions(botvinnik40):
    payload = run_on(botvinnik40, "belief-bands", "--train-games", "4", "--max-positions", "70", "--resamples", "50")
    assert payload["test_positions"] == payload["runs"][0]["test_positions"] == 70
    assert payload["max_positions"] == 70


@pytest.mark.parametrize(
    "options",
    [
        ["--player", "Nobody Atall"],
        ["--player", "Botvinnik", "--train-games", "0"],
        ["--player", "Botvinnik", "--train-games", "12,x"],
        ["--player", "Botvinnik", "--train-games", ","],
        ["--player", "Botvinnik", "--max-positions", "0"],
        ["--player", "Botvinnik", "--resamples", "0"],
        ["--player", "Botvinnik", "--jobs", "0"],
    ],
)
def test_bad_input_is_a_one_line_error(botvinnik40, options, capsys):
    assert iam_main(["experiment", "belief-bands", "--pgn", str(botvinnik40), *options, "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("iam: error:") and captured.err.count("\n") == 1
    assert captured.out == ""
