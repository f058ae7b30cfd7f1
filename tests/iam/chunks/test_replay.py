"""iam.chunks.replay: the flat arrays of the player's moves, checked position by position against python-chess."""

import chess
import numpy as np

from iam.chunks.board import relative_bitboards
from iam.chunks.noise_filter import RESULT_CODES
from iam.chunks.replay import player_move_count, replay
from iam.games.pgn import PlayerGame


def _oracle(games):
    """(game, ply, relative bitboards after the move, moved-to mask, move number, white, result) per player move."""
    expected = []
    for g, game in enumerate(games):
        board = game.board()
        for ply, move in enumerate(game.moves):
            mine = board.turn == game.color
            number = board.fullmove_number
            before = board.occupied_co[game.color]
            board.push(move)
            if mine:
                moved = board.occupied_co[game.color] & ~before
                if game.color == chess.BLACK:
                    moved = chess.flip_vertical(moved)
                expected.append(
                    (g, ply, relative_bitboards(board, game.color), moved, number, game.color == chess.WHITE,
                     RESULT_CODES[game.result])
                )
    return expected


def _check(games):
    moves = replay(games)
    expected = _oracle(games)
    assert len(moves) == len(expected) == player_move_count(games)
    for i, (g, ply, bitboards, moved, number, white, result) in enumerate(expected):
        assert (moves.game[i], moves.ply[i]) == (g, ply)
        assert tuple(int(b) for b in moves.bitboards[i]) == bitboards
        assert int(moves.moved_to[i]) == moved
        assert moves.info.move_number[i] == number
        assert bool(moves.info.white[i]) == white and moves.info.result[i] == result
    return moves


def test_replay_matches_python_chess_on_bundled_games(botvinnik_games):
    """Both colours, captures, castling and promotions: every array entry equals the board's."""
    moves = _check(botvinnik_games[:6])
    assert set(moves.info.white.tolist()) == {True, False}


def _game(ucis, color, fen=chess.STARTING_FEN, result="win", index=0):
    return PlayerGame(
        index=index, color=color, start_fen=fen, moves=tuple(chess.Move.from_uci(u) for u in ucis), result=result
    )


def test_castling_puts_king_and_rook_in_moved_to_and_black_is_flipped():
    game = _game(["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1g1", "e8g8"], chess.BLACK, result="loss")
    moves = _check([game])
    last = int(moves.moved_to[-1])
    # Black's castling to g8 and f8, seen from Black's side: g1 and f1.
    assert last == chess.BB_G1 | chess.BB_F1
    assert moves.info.result.tolist() == [RESULT_CODES["loss"]] * 4


def test_a_set_up_position_with_black_to_move_first():
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40"
    moves = _check([_game(["e8d7", "e2e4", "d7d6"], chess.BLACK, fen=fen, result="draw")])
    assert moves.info.move_number.tolist() == [40, 41]
    assert moves.ply.tolist() == [0, 2]


def test_kept_boards_are_the_positions_before_the_asked_moves():
    games = [_game(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"], chess.WHITE), _game(["d2d4", "d7d5"], chess.BLACK)]
    moves = replay(games, keep=np.array([1, 3]))
    assert len(moves) == 4
    first, second = moves.kept_boards
    expected = chess.Board()
    for uci in ["e2e4", "e7e5"]:
        expected.push_uci(uci)
    assert first.fen() == expected.fen() and [m.uci() for m in first.move_stack] == ["e2e4", "e7e5"]
    after_d4 = chess.Board()
    after_d4.push_uci("d2d4")
    assert second.fen() == after_d4.fen()
    assert replay(games).kept_boards == ()


def test_no_games_give_empty_arrays():
    moves = replay([])
    assert len(moves) == 0 and moves.bitboards.shape == (0, 12) and player_move_count([]) == 0


def test_a_game_where_the_player_never_moves():
    game = _game(["e2e4"], chess.BLACK)
    assert len(replay([game])) == player_move_count([game]) == 0
    assert len(replay([game, _game(["e2e4"], chess.WHITE)])) == 1
