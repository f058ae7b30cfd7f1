"""Rote (text) memory on a tiny PGN, and his repertoire read from it."""

from __future__ import annotations

import chess

from iam.chunks.rote import OpeningChoices, RoteEntry, RoteMemory, opening_repertoire
from iam.games.pgn import load_player_games


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


def test_positions_are_remembered_however_they_were_reached(tiny_pgn):
    games, _ = load_player_games([tiny_pgn], player="Tester")
    memory = RoteMemory.learn(games, min_games=2)
    # Both of Tester's games as Black went 1. d4 Nf6 2. c4 e6; 1. c4 Nf6 2. d4 transposes.
    board = chess.Board()
    for uci in ["c2c4", "g8f6", "d2d4"]:
        board.push_uci(uci)
    assert memory.lookup_moves("startpos", board.move_stack) is None  # this sequence was never played
    assert memory.lookup(board).counts == {"e7e6": 2}
    # The position alone (a FEN, no history) finds the same entry.
    assert memory.lookup(chess.Board(board.fen())).counts == {"e7e6": 2}
    # The sequence entry wins when there is one: after 1. e4 e5 2. Nf3 Nc6 (two games) Bb5.
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6"]:
        board.push_uci(uci)
    assert memory.lookup(board).key == "startpos|e2e4 e7e5 g1f3 b8c6"
    # Positions seen in one game only are not remembered; nor are the opponent's.
    assert memory.lookup(chess.Board("r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4")) is None
    # Exactly the five positions where Tester was to move in two games (EPD keys, no move counters).
    assert {epd: entry.counts for epd, entry in memory.positions.items()} == {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -": {"e2e4": 2},
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -": {"g1f3": 2},
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -": {"f1b5": 2},
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -": {"g8f6": 2},
        "rnbqkb1r/pppppppp/5n2/8/2PP4/8/PP2PPPP/RNBQKBNR b KQkq -": {"e7e6": 2},
    }


def _after(*sans: str) -> str:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board.epd()


def _memory() -> RoteMemory:
    positions = {
        _after(): {"d2d4": 9, "e2e4": 4, "c2c4": 2, "g1f3": 1},
        _after("e4"): {"c7c5": 3, "e7e5": 3},
        _after("d4"): {"g8f6": 5},
        _after("d4", "Nf6"): {"c2c4": 9},  # his move as White later on: not a first move
    }
    return RoteMemory(positions={epd: RoteEntry(epd, counts) for epd, counts in positions.items()})


def test_his_first_moves_and_replies_most_played_first():
    repertoire = opening_repertoire(_memory(), top=3)
    assert repertoire.white == OpeningChoices("", (("1. d4", 9), ("1. e4", 4), ("1. c4", 2)), games=16)
    assert repertoire.black == (  # the first move he met most first; a tie in games between replies: by move
        OpeningChoices("1. e4", (("1... c5", 3), ("1... e5", 3)), games=6),
        OpeningChoices("1. d4", (("1... Nf6", 5),), games=5),
    )
    assert repertoire.lines() == [
        "as White: 1. d4 (9 games), 1. e4 (4 games), 1. c4 (2 games)",
        "as Black after 1. e4: 1... c5 (3 games), 1... e5 (3 games)",
        "as Black after 1. d4: 1... Nf6 (5 games)",
    ]


def test_the_json_and_an_empty_memory():
    data = opening_repertoire(_memory(), top=1).to_dict()
    assert data["white"] == [{"move": "1. d4", "games": 9}]
    assert data["black"][1] == {"after": "1. d4", "replies": [{"move": "1... Nf6", "games": 5}]}
    empty = opening_repertoire(RoteMemory())
    assert empty.white is None and empty.black == ()
    assert empty.lines() == ["none: no opening position of his was reached in enough games to be remembered"]
