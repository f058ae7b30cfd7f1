"""Evaluation figures on records with hand-computed answers."""

from __future__ import annotations

import chess
import chess.pgn
import numpy as np
import pandas as pd
import pytest

from iam.errors import DataError
from iam.games.pgn import PlayerGame
from iam.measure.evaluation import (
    RECORD_COLUMNS,
    EvaluationReport,
    EvaluationRun,
    band_table,
    calibrated_ece,
    evaluate,
    score_games,
    score_positions,
    summarise,
)


def records(rows) -> pd.DataFrame:
    """Records from (top_belief, hit, top3, played_belief, candidates) tuples."""
    data = []
    for i, (top, hit, top3, played, candidates) in enumerate(rows):
        data.append(
            (0, i, "e2e4", candidates, "e2e4" if candidates else "", top, hit, top3, played, top or 0.0,
             (top or 0.0) ** 2)
        )
    return pd.DataFrame(data, columns=RECORD_COLUMNS)


def test_band_table_counts_top_predictions_per_band():
    table = band_table(
        records(
            [
                (0.10, False, False, 0.0, 3),
                (0.20, True, True, 0.2, 3),
                (0.27, True, True, 0.27, 2),
                (0.35, False, True, 0.1, 4),
                (0.45, True, True, 0.45, 2),
                (0.90, True, True, 0.9, 1),
                (0.60, False, False, 0.0, 2),
                (np.nan, False, False, 0.0, 0),  # no prediction: in no band
            ]
        )
    )
    assert table["band"].tolist() == ["<25%", "25-30%", "30-40%", "40-50%", ">50%"]
    assert table["predictions"].tolist() == [2, 1, 1, 1, 2]
    assert table["hits"].tolist() == [1, 1, 0, 1, 1]
    assert table["rate"].tolist() == [0.5, 1.0, 0.0, 1.0, 0.5]


def test_summary_figures():
    rows = [
        (0.8, True, True, 0.8, 2),
        (0.8, False, True, 0.1, 2),
        (0.2, False, False, 0.0, 3),
        (np.nan, False, False, 0.0, 0),
    ]
    summary = summarise(records(rows))
    assert summary["test_positions"] == 4
    assert summary["coverage"] == pytest.approx(3 / 4)
    assert summary["top1"] == pytest.approx(1 / 4)
    assert summary["top3"] == pytest.approx(2 / 4)
    # ECE: bin 0.8 holds 2 predictions, accuracy 0.5 -> |1 - 1.6| = 0.6; bin 0.2: |0 - 0.2| = 0.2; / 3
    assert summary["ece"] == pytest.approx((0.6 + 0.2) / 3)
    assert summary["brier"] == pytest.approx(((0.8 - 1) ** 2 + 0.8**2 + 0.2**2) / 3)
    assert summary["log_loss"] == pytest.approx(-(np.log(0.8) + np.log(0.1) + 2 * np.log(1e-4)) / 4)


class FixedModel:
    """Always believes e2e4 (if legal) at 0.6 and d2d4 at 0.3."""

    def predict_proba(self, board):
        beliefs = {}
        for uci, belief in (("e2e4", 0.6), ("d2d4", 0.3)):
            move = chess.Move.from_uci(uci)
            if move in board.legal_moves:
                beliefs[move] = belief
        return beliefs


def test_score_positions_covers_the_players_moves_only():
    moves = tuple(chess.Move.from_uci(m) for m in ["d2d4", "g8f6", "c2c4", "e7e6"])
    game = PlayerGame(index=4, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=moves, result="win")
    scored = score_positions(FixedModel(), [game])
    assert scored["ply"].tolist() == [0, 2]
    first, second = scored.iloc[0], scored.iloc[1]
    assert (first["top_move"], first["hit"], first["top3"], first["played_belief"]) == ("e2e4", False, True, 0.3)
    assert second["candidates"] == 1 and second["top_move"] == "e2e4" and not second["top3"]


def test_the_ece_of_perfect_beliefs_is_the_sampling_noise_of_each_bin():
    # 400 beliefs of 0.5 in one bin: the hit rate is Binomial(400, 0.5) / 400, so the mean
    # ECE is E|rate - 0.5| = sqrt(2 / pi) * 0.5 / sqrt(400) = 0.01995.
    floor = calibrated_ece(np.full(400, 0.5), draws=4000, seed=1)
    assert floor.mean() == pytest.approx(np.sqrt(2 / np.pi) * 0.5 / 20, rel=0.05)
    # Beliefs of 0 and 1 are always right or always wrong: no noise at all.
    assert np.all(calibrated_ece(np.array([0.0, 1.0] * 50), draws=100) == 0.0)
    # Quadrupling the positions halves the floor.
    many = calibrated_ece(np.full(1600, 0.5), draws=4000, seed=1)
    assert many.mean() == pytest.approx(floor.mean() / 2, rel=0.08)


def _game(index: int) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(m) for m in ["d2d4", "g8f6"])
    return PlayerGame(index=index, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=moves, result="win")


@pytest.mark.parametrize(
    "run",
    [
        lambda games: score_positions(FixedModel(), games),
        lambda games: score_games(FixedModel(), games),
        lambda games: evaluate(games, player="X", train_sizes=[1]),
    ],
    ids=["score_positions", "score_games", "evaluate"],
)
def test_python_chess_games_are_refused_naming_player_games(run):
    with pytest.raises(TypeError, match=r"expects PlayerGame records \(from iam\.load_player_games\), not chess\.pgn"):
        run([chess.pgn.Game(), chess.pgn.Game()])


@pytest.mark.parametrize("indices, missing", [([0, 1, 2, 3], "test"), ([4, 9], "training")])
def test_evaluating_games_of_one_split_is_an_error_not_an_empty_report(indices, missing):
    with pytest.raises(DataError, match=f'hold no {missing} game \\(read them with split="all"\\)'):
        evaluate([_game(i) for i in indices], player="X", train_sizes=[1])


def test_a_printed_report_is_its_summary_figures_one_row_per_run():
    scored = records([(0.8, True, True, 0.8, 2), (0.6, False, True, 0.3, 2)])
    report = EvaluationReport("Botvinnik", 1, [EvaluationRun(12, scored), EvaluationRun(80, scored, "ranker")])
    log_loss = -(np.log(0.8) + np.log(0.3)) / 2
    assert str(report).splitlines() == [
        "Botvinnik: 1 test game, 2 runs",
        "predictor  train_games  positions  top1  top3   ece  log_loss",
        f"      iam           12          2 0.500 1.000 0.400     {log_loss:.3f}",
        f"   ranker           80          2 0.500 1.000 0.400     {log_loss:.3f}",
    ]
    assert repr(report) == str(report)
    assert repr(report.runs[1]) == "EvaluationRun('ranker', train_games=80, test_positions=2, top1=0.500, top3=1.000)"
    assert len(report.runs[0].records) == 2  # the data stay whole behind the short text
