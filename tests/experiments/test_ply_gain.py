"""The ply-gain experiment end to end on small data, its command line and its option parsing."""

from __future__ import annotations

import pytest

from iam.cli.experiments.ply_gain import parse_budgets, parse_times
from iam.games.heldout import DEVELOPMENT_REMAINDER

from .conftest import run_on


@pytest.fixture(scope="module")
def botvinnik60(bundled_head):
    """Botvinnik's first 60 games (48 training, of them 12 development games; 12 test games)."""
    return bundled_head(60)


def test_ply_gain_runs_end_to_end_and_the_model_steers_the_search(botvinnik60, tmp_path):
    payload = run_on(
        botvinnik60, "ply-gain", "--max-positions", "3", "--budgets", "1500,4000", "--no-reference",
        "--out", str(tmp_path),
    )
    rows, summary = payload["rows"], payload["summary"]
    assert len(rows) == 3 * 2 and [s["budget"] for s in summary] == [1500, 4000]
    assert payload["positions_from"] == "test" and payload["train_games"] == 48
    for row in rows:
        assert {"position", "budget", "plain_depth", "guided_depth", "plain_move", "guided_move"} <= set(row)
        assert row["plain_depth"] >= 1 and row["guided_depth"] >= 1
        # the fast core looks at its node budget every 1,024 nodes
        assert row["plain_nodes"] <= row["budget"] + 1024 and row["guided_nodes"] <= row["budget"] + 1024
        assert row["move_changed"] == (row["plain_move"] != row["guided_move"])
        assert row["predictor_seconds"] <= row["guided_seconds"]
        # a plain search's line depth and horizon are its nominal depth
        assert row["plain_line_depth"] == row["plain_depth"] == row["plain_horizon_mean"]
        assert row["guided_horizon_min"] <= row["guided_horizon_mean"] <= row["guided_horizon_max"]
        assert 1 <= row["guided_line_entered"] <= row["line_plies"] <= 16
    big = [row for row in rows if row["budget"] == 4000]
    assert all(row["predictor_calls"] > 0 for row in big)
    assert any(row["guided_nodes_changed"] > 0 for row in big)  # the model changed some nodes' plans
    for entry in summary:
        lo, hi = entry["ci95"]
        assert lo <= entry["mean_ply_gain_pct"] <= hi
        assert 0 <= entry["move_changed_pct"] <= 100 and entry["positions"] == 3
    assert {p.name for p in tmp_path.iterdir()} == {
        "rows.csv", "summary.csv", "results.json", "summary.md", "ply_gain.png", "gain_vs_top1.png"
    }


def test_time_budgets_give_plain_and_guided_search_the_same_time(botvinnik60):
    payload = run_on(
        botvinnik60, "ply-gain", "--max-positions", "2", "--budgets", "none", "--times", "0.3", "--no-reference"
    )
    rows, summary = payload["rows"], payload["summary"]
    assert len(rows) == 2 and [(s["limit"], s["budget"]) for s in summary] == [("time", 0.3)]
    for row in rows:
        assert row["limit"] == "time"
        # each search stops near its budget, whatever node count it reached
        assert 0.15 <= row["plain_seconds"] <= 1.0 and 0.15 <= row["guided_seconds"] <= 1.0
        assert row["plain_depth"] >= 1 and row["guided_depth"] >= 1


def test_a_ply_gain_run_needs_some_budget(botvinnik60, capsys):
    from iam.cli import main

    code = main(["experiment", "ply-gain", "--pgn", str(botvinnik60), "--budgets", "none", "--no-reference", "--quiet"])
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "iam: error: ply-gain needs node budgets (--budgets) or time budgets (--times)"
    )


def test_development_positions_never_come_from_test_games(botvinnik60):
    payload = run_on(
        botvinnik60, "ply-gain", "--positions", "dev", "--max-positions", "2", "--budgets", "300", "--no-reference"
    )
    games = {row["game"] for row in payload["rows"]}
    assert games and all(game % 5 == DEVELOPMENT_REMAINDER for game in games)
    assert payload["positions_from"] == "dev" and payload["train_games"] == 48 - 12  # fitted without them


@pytest.mark.parametrize(("text", "ok"), [("5000,200", True), ("abc", False), ("5", False), ("", False)])
def test_budgets_parsing(text, ok):
    from iam.errors import DataError

    if ok:
        assert parse_budgets(text) == [200, 5000]
    else:
        with pytest.raises(DataError):
            parse_budgets(text)


@pytest.mark.parametrize(("text", "ok"), [("2,0.5", True), ("0", False), ("x", False), ("-1", False)])
def test_times_parsing(text, ok):
    from iam.errors import DataError

    if ok:
        assert parse_times(text) == [0.5, 2.0]
    else:
        with pytest.raises(DataError):
            parse_times(text)


def test_predictors_on_the_fast_core_and_the_iam_model_on_the_generic_core(botvinnik60):
    payload = run_on(
        botvinnik60, "ply-gain", "--positions", "dev", "--max-positions", "3", "--budgets", "3000",
        "--predictor", "oracle,oracle@0.5,iam", "--no-reference",
    )
    assert payload["core"] == "fast" and payload["predictors"] == ["oracle", "oracle@0.5", "iam"]
    by_name = {entry["guidance"]: entry for entry in payload["summary"]}
    assert set(by_name) == {"oracle", "oracle@0.5", "iam"}
    assert by_name["oracle"]["predictor_top1"] == 1.0  # the oracle names the move played
    oracle_rows = [row for row in payload["rows"] if row["guidance"] == "oracle"]
    assert all(row["predictor_calls"] > 0 for row in oracle_rows)
    generic = run_on(
        botvinnik60, "ply-gain", "--positions", "dev", "--max-positions", "2", "--budgets", "300", "--core", "generic",
        "--no-reference",
    )
    assert generic["core"] == "generic" and [entry["guidance"] for entry in generic["summary"]] == ["iam"]
    assert all(row["plain_nodes"] <= 301 and row["guided_nodes"] <= 301 for row in generic["rows"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--predictor", "sunfish"], "unknown predictor 'sunfish'"),
        (["--predictor", "oracle@2"], "oracle@p takes an accuracy p in [0, 1], not '2'"),
        (["--predictor", "policy+ranker"], "'ranker' is too costly for every node"),
        (["--predictor", "policy+quick"], "'quick' is too costly for every node"),
        (["--predictor", "ranker+policy", "--core", "generic"], "the generic core reads one predictor at every node"),
    ],
)
def test_bad_predictors_are_refused_in_one_line(botvinnik60, capsys, options, message):
    from iam.cli import main

    code = main(
        ["experiment", "ply-gain", "--pgn", str(botvinnik60), "--no-reference", "--quiet", "--budgets", "300", *options]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("iam: error: ") and message in err and "\n" not in err
