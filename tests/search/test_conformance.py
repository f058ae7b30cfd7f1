"""Every game honours the protocol along random playouts (explicit seeds)."""

import math
import random

import chess
import pytest

from search import CHANCE
from search.chess.endgames import ChessEndgame
from search.chess.game import ChessGame
from search.game import distance_shifted
from search.games import Nim, TicTacToe
from search.games.seeds import (
    coin_flip_game,
    seed000_game,
    seed001_game,
    seed003_expectimax_game,
    three_player_game,
)


def check_playouts(game, *, seed, playouts, max_plies=200):
    rng = random.Random(seed)
    caps = game.capabilities
    for _ in range(playouts):
        state = game.initial_state()
        cursor = game.cursor(state)
        for ply in range(max_plies):
            key = game.key(state)
            assert cursor.key() == key
            mover = game.to_move(state)
            assert cursor.to_move() == mover
            assert mover is CHANCE or 0 <= mover < caps.players
            if game.is_terminal(state):
                assert cursor.is_terminal()
                utilities = game.utilities(state)
                assert len(utilities) == caps.players
                # A cursor scores distance-scored wins from its root, ``ply`` plies away.
                seen_from_root = tuple(distance_shifted(u, ply, caps.win_bound) for u in utilities)
                assert seen_from_root == tuple(cursor.utilities())
                assert cursor.win_bound == caps.win_bound
                if caps.zero_sum:
                    assert math.isclose(sum(utilities), 0.0, abs_tol=1e-9)
                break
            assert not cursor.is_terminal()
            assert cursor.stand_pat_allowed() == game.stand_pat_allowed(state)
            actions = list(game.actions(state))
            assert actions, "a non-terminal state must have actions"
            assert list(cursor.actions()) == actions
            assert len(set(actions)) == len(actions)
            if mover is CHANCE:
                outcomes = game.chance_outcomes(state)
                assert [a for a, _ in outcomes] == actions
                assert math.isclose(sum(p for _, p in outcomes), 1.0)
                assert all(p >= 0 for _, p in outcomes)
            action = rng.choice(actions)
            child = game.result(state, action)
            assert game.key(state) == key, "result must not change its input"
            cursor.push(action)
            assert cursor.ply == ply + 1
            assert cursor.key() == game.key(child)
            state = child
        else:
            assert max_plies < 200, "game did not end"
        # Popping back to the root restores the root.
        while cursor.ply:
            cursor.pop()
        assert cursor.key() == game.key(game.initial_state())
        with pytest.raises(IndexError):
            cursor.pop()


@pytest.mark.parametrize(
    "game",
    [
        TicTacToe(), Nim(), Nim((1, 3, 5)), seed000_game(), seed001_game(),
        coin_flip_game(), seed003_expectimax_game(), three_player_game(),
    ],
    ids=["tictactoe", "ii-nim", "nim-135", "seed000", "seed001", "coin-flip", "seed003", "three-player"],
)
def test_small_games_conform(game):
    check_playouts(game, seed=1, playouts=30)


def test_chess_conforms():
    check_playouts(ChessGame(), seed=2, playouts=3, max_plies=60)


def test_chess_conforms_in_an_endgame_with_promotions_and_castling():
    game = ChessGame("r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1")
    check_playouts(game, seed=3, playouts=6, max_plies=40)


def test_chess_endgame_conforms():
    check_playouts(ChessEndgame("KR", "K"), seed=4, playouts=10, max_plies=30)


def test_chess_cursor_keys_are_polyglot_keys_along_a_game():
    # Castling, en passant and promotion all change the incremental key correctly.
    board = chess.Board()
    cursor = ChessGame().cursor(board)
    game = "e2e4 g8f6 e4e5 d7d5 e5d6 e7e6 d6c7 f8e7 c7b8q e8g8 g1f3 a7a5 f1e2 a5a4 e1g1 b7b5 a2a3 b5b4"
    for uci in game.split():
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move)
        board.push(move)
        cursor.push(move)
        assert cursor.key() == chess.polyglot.zobrist_hash(board), uci
