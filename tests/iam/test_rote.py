"""Rote (text) memory on a tiny PGN."""

from __future__ import annotations

import chess

from iam.pgn import load_player_games
from iam.rote import RoteMemory


def test_remembered_openings_predict_the_continuation(tiny_pgn):
    games, _ = load_player_games([tiny_pgn], player="Tester")
    memory = RoteMemory.learn(games, min_games=2)
    start = memory.lookup(chess.Board())
    assert start is not None and start.counts == {"e2e4": 2}  # two games as White from the start
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6"]:
        board.push_uci(uci)
    entry = memory.lookup(board)
    assert entry.counts == {"f1b5": 2} and entry.shares() == {"f1b5": 1.0}
    board.push_uci("f1b5")
    board.push_uci("a7a6")  # the games diverged here (a6 once, Nf6 once): only one game each
    assert memory.lookup(board) is None
    # as Black, after 1.d4: Nf6 in both games
    black = chess.Board()
    black.push_uci("d2d4")
    assert memory.lookup(black).counts == {"g8f6": 2}


def test_min_games_and_max_ply(tiny_pgn):
    games, _ = load_player_games([tiny_pgn], player="Tester")
    once = RoteMemory.learn(games, min_games=1)
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]:
        board.push_uci(uci)
    assert once.lookup(board).counts == {"b5a4": 1}
    short = RoteMemory.learn(games, min_games=1, max_ply=4)
    assert short.lookup(board) is None
    assert all(len(key.split("|")[1].split()) < 4 for key in short.entries)


def test_games_from_a_set_up_position_are_keyed_by_their_start(tiny_pgn):
    games, _ = load_player_games([tiny_pgn], player="Tester")
    memory = RoteMemory.learn(games, min_games=1)
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K2R w K - 0 1")
    assert memory.lookup(board).counts == {"e1g1": 1}
    assert memory.lookup(chess.Board()).counts == {"e2e4": 2}
