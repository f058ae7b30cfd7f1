"""The measurement shared by ply gain and guidance tuning (experiments.guided_depth): the positions sampled with
the game's continuation, the summary's arithmetic and its game bootstrap, the verdicts on changed moves and the
reference engine."""

from __future__ import annotations

import chess
import numpy as np
import pandas as pd
import pytest

from experiments.guided_depth import judge, sample_positions, stockfish_path, summarise, verdict
from iam.games.pgn import load_player_games


@pytest.fixture(scope="module")
def botvinnik60(bundled_head):
    """Botvinnik's first 60 games (48 training, of them 12 development games; 12 test games)."""
    return bundled_head(60)


def test_positions_are_the_opponents_turns_with_the_game_continuation(botvinnik60):
    games, _ = load_player_games([botvinnik60], player="Botvinnik")
    test = [g for g in games if g.split == "test"]
    positions = sample_positions(test, None, seed=0, line_plies=4)
    by_index = {g.index: g for g in test}
    for position in positions[:40]:
        board = chess.Board(position["start"])
        for uci in position["moves"]:
            board.push_uci(uci)
        modelled = chess.WHITE if position["modelled"] == 0 else chess.BLACK
        assert board.turn != modelled
        game = by_index[position["game"]]
        assert position["line"] == [m.uci() for m in game.moves[position["ply"] : position["ply"] + 4]]
    assert sample_positions(test, 5, seed=1) == sample_positions(test, 5, seed=1)
    assert len(sample_positions(test, 5, seed=1)) == 5


def _rows(**columns) -> pd.DataFrame:
    base = {
        "game": [4, 4, 9, 14],
        "budget": [100] * 4,
        "plain_depth": [2, 2, 4, 3],
        "guided_depth": [3, 2, 5, 3],
        "ply_gain_pct": [50.0, 0.0, 25.0, 0.0],
        "plain_line_depth": [2.0, 2.0, 4.0, 3.0],
        "guided_line_depth": [2.0, 3.0, 6.0, 3.0],
        "line_gain_pct": [0.0, 50.0, 50.0, 0.0],
        "plain_seconds": [1.0] * 4,
        "guided_seconds": [2.0] * 4,
        "predictor_seconds": [0.5] * 4,
        "move_changed": [True, False, False, False],
    }
    base.update(columns)
    return pd.DataFrame(base)


def test_summary_arithmetic():
    (entry,) = summarise(_rows(), seed=0).to_dict(orient="records")
    assert entry["mean_ply_gain_pct"] == pytest.approx(18.75)
    assert entry["median_ply_gain_pct"] == pytest.approx(12.5)
    assert entry["depth_ratio_gain_pct"] == pytest.approx(100 * (13 / 11 - 1))
    assert entry["mean_line_gain_pct"] == pytest.approx(25.0)
    assert entry["line_ratio_gain_pct"] == pytest.approx(100 * (14 / 11 - 1))
    assert entry["deeper_pct"] == 50 and entry["shallower_pct"] == 0 and entry["line_deeper_pct"] == 50
    assert entry["predictor_share_pct"] == pytest.approx(25.0)
    assert entry["move_changed_pct"] == 25.0 and entry["games"] == 3 and entry["unfinished"] == 0
    lo, hi = entry["ci95"]
    assert lo <= 18.75 <= hi and lo >= 0.0 and hi <= 50.0


def test_summary_counts_unfinished_positions_and_leaves_them_out_of_the_gain():
    rows = _rows(plain_depth=[0, 2, 4, 3], ply_gain_pct=[np.nan, 0.0, 25.0, 0.0])
    (entry,) = summarise(rows, seed=0).to_dict(orient="records")
    assert entry["unfinished"] == 1 and entry["positions"] == 4
    assert entry["mean_ply_gain_pct"] == pytest.approx(25.0 / 3)


def test_game_bootstrap_interval_is_degenerate_for_one_game_and_wide_for_differing_games():
    same = _rows(game=[4, 4, 4, 4])
    (entry,) = summarise(same, seed=0).to_dict(orient="records")
    assert entry["ci95"] == [pytest.approx(18.75), pytest.approx(18.75)]  # one game: every resample is the sample
    spread = _rows(game=[4, 9, 14, 19], ply_gain_pct=[0.0, 0.0, 100.0, 100.0])
    (entry,) = summarise(spread, seed=0).to_dict(orient="records")
    assert entry["ci95"][0] < 50.0 < entry["ci95"][1]


def test_verdicts():
    """A changed move is judged by the reference's scores of both moves, within the equality margin."""
    row = {"move_changed": True, "reference_plain_cp": -30, "reference_guided_cp": 25}
    assert verdict(row) == "guided"
    assert verdict({**row, "reference_guided_cp": -25}) == "equal"
    assert verdict({**row, "reference_guided_cp": -300}) == "plain"
    assert verdict({**row, "move_changed": False}) == "same move"
    assert verdict({**row, "reference_guided_cp": None}) is None


@pytest.mark.skipif(stockfish_path() is None, reason="Debian's stockfish is not installed")
def test_the_reference_engine_prefers_the_move_that_keeps_the_queen():
    board = chess.Board("4k3/8/8/3q4/8/8/3Q4/4K3 w - - 0 1")  # White's queen can take Black's
    rows = [{"move_changed": True, "plain_move": "d2d1", "guided_move": "d2d5"}]
    judge(rows, board, stockfish_path(), depth=8)
    (row,) = rows
    assert row["reference_prefers"] == "guided"
    assert row["reference_guided_cp"] > 500 > row["reference_plain_cp"]
