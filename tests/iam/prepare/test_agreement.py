"""The own search's agreement with a reference judge: which moves are judged, their losses, the figures, the rule."""

import math
import shutil

import chess
import pandas as pd
import pytest

from iam.prepare.agreement import (
    LOSS_CAP,
    JudgedMove,
    agreement,
    choose_depth,
    judge_losses,
    judged_moves,
    move_loss,
)
from iam.prepare.scoring import EngineScorer, SearchScorer

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")

QUEEN_EN_PRISE = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
"""White to move: Nxh4 wins the queen Black left en prise; any other move leaves it alone."""


def _moves() -> list[JudgedMove]:
    return [
        JudgedMove("X", 3, 4, QUEEN_EN_PRISE, "f3h4", True),
        JudgedMove("X", 3, 4, QUEEN_EN_PRISE, "a2a3", False),
        JudgedMove("X", 8, 0, chess.STARTING_FEN, "e2e4", True),
        JudgedMove("X", 8, 0, chess.STARTING_FEN, "g1h3", False),
    ]


@pytest.fixture(scope="module")
def capablanca(bundled_master):
    """Capablanca's bundled games (read once per run, read-only)."""
    return bundled_master("Capablanca")


def test_judged_moves_come_from_development_games_only_his_move_and_one_other(capablanca):
    moves = judged_moves(capablanca, "Capablanca", positions=20, plies=24, seed=3)
    by_index = {game.index: game for game in capablanca}
    assert len(moves) == 40
    assert {move.game % 5 for move in moves} == {3}
    for played, other in zip(moves[::2], moves[1::2]):
        assert played.played and not other.played and played.fen == other.fen
        game = by_index[played.game]
        board = game.board()
        for move in game.moves[: played.ply]:
            board.push(move)
        assert board.fen() == played.fen and board.turn == game.color and played.ply < 24
        assert played.move == game.moves[played.ply].uci()
        assert other.move != played.move and chess.Move.from_uci(other.move) in board.legal_moves
    assert len({move.fen for move in moves}) == 20
    assert judged_moves(capablanca, "Capablanca", positions=20, plies=24, seed=3) == moves
    assert judged_moves(capablanca, "Capablanca", positions=20, plies=24, seed=4) != moves


def test_a_move_loses_what_the_best_move_scores_more():
    board = chess.Board(QUEEN_EN_PRISE)
    scorer = SearchScorer(2)
    assert move_loss(scorer, board, chess.Move.from_uci("f3h4")) == 0
    assert move_loss(scorer, board, chess.Move.from_uci("a2a3")) > 700


def test_the_search_at_the_reference_depth_agrees_with_it_exactly():
    losses = judge_losses(_moves(), SearchScorer(2), (1, 2), clock=iter(range(100)).__next__)
    assert losses["loss_2"].tolist() == losses["reference_loss"].tolist()
    assert losses["reference_loss"].iloc[0] == 0 and losses["reference_loss"].iloc[1] > 700
    assert set(losses["seconds_2"]) == {1}  # one tick of the clock per position searched
    table = agreement(losses).set_index(["depth", "moves"])
    exact = table.loc[(2, "all")]
    assert exact["mean_abs_error"] == 0 and exact["precision"] == 1 and exact["recall"] == 1
    assert exact["spearman"] == pytest.approx(1.0)
    assert exact["positions"] == 2 and exact["judged"] == 4
    assert table.loc[(2, "played"), "judged"] == 2


def test_agreement_counts_flags_errors_and_times_per_position():
    losses = pd.DataFrame(
        {
            "fen": ["a", "a", "b", "b", "c"],
            "played": [True, False, True, False, True],
            "reference_loss": [0, 60, 200, 10, 5000],
            "loss_1": [0, 70, 20, 80, 1200],
            "seconds_1": [0.1, 0.1, 0.3, 0.3, 0.8],
        }
    )
    table = agreement(losses, habit_loss=50).set_index("moves")
    everything = table.loc["all"]
    # flagged: 60->70, 10->80, 5000->1200; the reference's costly: 60, 200, 5000
    assert everything["flagged"] == 3 and everything["reference_costly"] == 3
    assert everything["precision"] == pytest.approx(2 / 3) and everything["recall"] == pytest.approx(2 / 3)
    assert everything["f1"] == pytest.approx(2 / 3)
    assert LOSS_CAP == 1000  # the last move's error is 0 once both are capped
    assert everything["mean_abs_error"] == pytest.approx((0 + 10 + 180 + 70 + 0) / 5)
    assert everything["median_seconds"] == pytest.approx(0.3) and everything["mean_seconds"] == pytest.approx(0.4)
    assert everything["positions"] == 3
    played = table.loc["played"]
    # played: 0->0, 200->20, 5000->1200: one flag, right; one costly move missed
    assert played["precision"] == 1 and played["recall"] == pytest.approx(0.5)


def test_agreement_without_a_flag_has_no_precision():
    losses = pd.DataFrame(
        {"fen": ["a", "b"], "played": [True, True], "reference_loss": [0, 90], "loss_1": [0, 10], "seconds_1": [0, 0]}
    )
    row = agreement(losses).iloc[0]
    assert math.isnan(row["precision"]) and row["recall"] == 0


def _table(rows):
    return pd.DataFrame(
        [{"depth": d, "moves": "all", "median_seconds": s, "precision": p, "recall": r,
          "f1": 2 * p * r / (p + r)} for d, s, p, r in rows]
    )


def test_the_rule_takes_the_shallowest_depth_close_to_the_best_on_both_counts():
    table = _table([(1, 0.001, 0.60, 0.90), (2, 0.01, 0.70, 0.85), (3, 0.05, 0.79, 0.88), (4, 0.3, 0.80, 0.90),
                    (5, 0.6, 0.95, 0.95)])
    assert choose_depth(table) == 3  # depth 5 is too slow; depth 3 is 1 point and 2 points short of depth 4
    assert choose_depth(table, precision_margin=0.005) == 4
    assert choose_depth(table, max_seconds=1.0) == 5


def test_the_rule_falls_back_on_f1_and_needs_an_eligible_depth():
    table = _table([(1, 0.001, 0.90, 0.30), (2, 0.01, 0.70, 0.90), (3, 0.05, 0.80, 0.80)])
    assert choose_depth(table) == 3  # best precision at 1, best recall at 2: neither close to both
    with pytest.raises(ValueError, match="no depth"):
        choose_depth(table, max_seconds=0.0001)


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_stockfish_judges_the_queen_left_en_prise(tmp_path):
    reference = EngineScorer(STOCKFISH, depth=8, cache=str(tmp_path / "cache.sqlite"), lines=3)
    try:
        losses = judge_losses(_moves()[:2], reference, (1,))
    finally:
        reference.close()
    assert losses["reference_loss"].tolist()[0] == 0
    assert losses["reference_loss"].tolist()[1] > 500  # a queen, on the engine's scale
    assert losses["loss_1"].tolist()[1] > 700
