"""The ply-gain experiment end to end on a tiny data set, and its summary arithmetic."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments.ply_gain import bootstrap_mean, parse_budgets, sample_positions, summarise
from iam.bundled import default_pgn
from iam.cli import main
from iam.pgn import load_player_games


@pytest.fixture(scope="module")
def tiny_pgn(tmp_path_factory):
    """Botvinnik's first 30 games (24 training, 6 test)."""
    text = default_pgn().read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("pgn") / "botvinnik30.pgn"
    path.write_text("".join("[Event " + g for g in text.split("[Event ")[1:31]), encoding="utf-8")
    return path


def test_ply_gain_runs_end_to_end(tiny_pgn, tmp_path, capsys):
    argv = ["experiment", "ply-gain", "--pgn", str(tiny_pgn), "--player", "Botvinnik", "--max-positions", "3",
            "--budgets", "300,900", "--no-reference", "--json", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    rows, summary = payload["rows"], payload["summary"]
    assert len(rows) == 3 * 2 and [s["budget"] for s in summary] == [300, 900]
    for row in rows:
        assert {"position", "budget", "plain_depth", "guided_depth", "plain_move", "guided_move"} <= set(row)
        assert row["plain_depth"] >= 1 and row["guided_depth"] >= 1
        assert row["plain_nodes"] <= row["budget"] + 1 and row["guided_nodes"] <= row["budget"] + 1
        assert row["move_changed"] == (row["plain_move"] != row["guided_move"])
        assert row["predictor_calls"] >= 0 and row["predictor_seconds"] <= row["guided_seconds"]
    for entry in summary:
        lo, hi = entry["ci95"]
        assert lo <= entry["mean_ply_gain_pct"] <= hi
        assert 0 <= entry["move_changed_pct"] <= 100
    assert {p.name for p in tmp_path.iterdir()} == {"rows.csv", "summary.csv", "results.json", "summary.md", "ply_gain.png"}


def test_positions_are_the_opponents_turns_of_test_games(tiny_pgn):
    games, _ = load_player_games([tiny_pgn], player="Botvinnik")
    test = [g for g in games if g.split == "test"]
    positions = sample_positions(test, None, seed=0)
    import chess

    for position in positions[:40]:
        board = chess.Board(position["start"])
        for uci in position["moves"]:
            board.push_uci(uci)
        modelled = chess.WHITE if position["modelled"] == 0 else chess.BLACK
        assert board.turn != modelled
    assert sample_positions(test, 5, seed=1) == sample_positions(test, 5, seed=1)
    assert len(sample_positions(test, 5, seed=1)) == 5


def test_summary_arithmetic():
    rows = pd.DataFrame(
        {
            "budget": [100, 100, 100, 100],
            "plain_depth": [2, 2, 4, 3],
            "guided_depth": [3, 2, 5, 3],
            "ply_gain_pct": [50.0, 0.0, 25.0, 0.0],
            "plain_seconds": [1.0] * 4,
            "guided_seconds": [2.0] * 4,
            "predictor_seconds": [0.5] * 4,
            "move_changed": [True, False, False, False],
        }
    )
    (entry,) = summarise(rows, seed=0).to_dict(orient="records")
    assert entry["mean_ply_gain_pct"] == pytest.approx(18.75)
    assert entry["median_ply_gain_pct"] == pytest.approx(12.5)
    assert entry["deeper_pct"] == 50 and entry["shallower_pct"] == 0
    assert entry["predictor_share_pct"] == pytest.approx(25.0)
    assert entry["move_changed_pct"] == 25.0


def test_bootstrap_interval():
    assert bootstrap_mean(np.full(30, 7.0), seed=0) == (7.0, 7.0)
    values = np.random.default_rng(5).normal(10, 3, size=400)
    low, high = bootstrap_mean(values, seed=0)
    assert low < values.mean() < high and high - low < 1.0


@pytest.mark.parametrize(("text", "ok"), [("5000,200", True), ("abc", False), ("5", False), ("", False)])
def test_budgets_parsing(text, ok):
    from iam.errors import DataError

    if ok:
        assert parse_budgets(text) == [200, 5000]
    else:
        with pytest.raises(DataError):
            parse_budgets(text)
