"""search.chess.selfplay: games between piece values at a node budget, both colours, deterministic."""

import chess
import pytest

from search.chess.pst import PieceValues
from search.chess.selfplay import PairGames, piece_values, play_game, play_pair

BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # White mates at once with Ra8


def test_a_pair_plays_each_colour_once_and_scores_from_a():
    pair = play_pair(PieceValues.standard(), None, chess.Board(BACK_RANK), nodes=300)
    assert pair == PairGames(scores=(1.0, 0.0), plies=(1, 1), endings=("checkmate", "checkmate"))


def test_a_game_past_the_move_limit_is_a_draw():
    assert play_game(None, None, chess.Board(), nodes=200, max_plies=4) == (0.5, 4, "move limit")


def test_a_finished_start_is_scored_at_once():
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert play_game(None, None, stalemate, nodes=100) == (0.5, 0, "stalemate")


def test_games_are_the_same_when_played_again():
    start = chess.Board("r1bqk1nr/ppp2ppp/2np4/b3p3/2B1P3/2P2N2/P2P1PPP/RNBQ1RK1 w kq -")
    a, b = piece_values((100, 300, 320, 500, 900)), piece_values((300, 100, 100, 900, 500))
    first = play_pair(a, b, start, nodes=300, max_plies=40)
    assert play_pair(a, b, start, nodes=300, max_plies=40) == first


def test_a_player_that_prizes_pawns_over_queens_loses_to_the_standard_values():
    start = chess.Board("r1bqk1nr/ppp2ppp/2np4/b3p3/2B1P3/2P2N2/P2P1PPP/RNBQ1RK1 w kq -")
    pair = play_pair(PieceValues.standard(), piece_values((900, 100, 100, 100, 50)), start, nodes=500)
    assert sum(pair.scores) >= 1.5


def test_budgets_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        play_game(None, None, chess.Board(), nodes=0)
