"""``iam predict``: moves in SAN or UCI, the position after a game (--pgn, --ply), errors naming the move."""

from __future__ import annotations

import io
import json

import chess.pgn
import pytest

from iam.cli import main


def _predictions(capsys, *argv: str) -> dict:
    assert main(["predict", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_san_and_uci_give_the_same_position(quick_ranker, capsys):
    san = _predictions(capsys, str(quick_ranker), "--moves", "d4", "Nf6", "c4", "e6", "--top", "3")
    uci = _predictions(capsys, str(quick_ranker), "--moves", "d2d4", "g8f6", "c2c4", "e7e6", "--top", "3")
    mixed = _predictions(capsys, str(quick_ranker), "--moves", "d4", "g8f6", "c4", "e6", "--top", "3")
    assert san == uci == mixed
    assert san["fen"] == "rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3"
    words = san["predictions"][0]["features"][0]
    assert words["feature"] and words["words"] != words["feature"]  # the column name and its words


def test_the_position_after_a_game_or_a_ply(quick_ranker, later_games, capsys):
    after = _predictions(capsys, str(quick_ranker), "--pgn", str(later_games), "--ply", "4")
    game = chess.pgn.read_game(io.StringIO(later_games.read_text()))
    moves = [move.uci() for move in list(game.mainline_moves())[:4]]
    from_moves = _predictions(capsys, str(quick_ranker), "--moves", *moves)
    assert (after["fen"], after["predictions"]) == (from_moves["fen"], from_moves["predictions"])
    assert (after["player_color"], from_moves["player_color"]) == ("white", None)  # his name is White's in the game
    last = _predictions(
        capsys, str(quick_ranker), "--pgn", str(later_games), "--ply", str(len(list(game.mainline_moves())) - 1)
    )
    assert last["fen"] != after["fen"]


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        (["Nf3", "d5", "d3", "e5", "Nd2"], "iam: error: ambiguous move Nd2 (ply 5) in "),
        (["e4", "Ke2", "e5"], "iam: error: illegal move Ke2 (ply 2) in "),
        (["e4", "hello"], "iam: error: 'hello' (ply 2) is not a move in SAN (Nf3) or UCI (g1f3) notation"),
    ],
)
def test_a_bad_move_is_named_with_its_ply(quick_ranker, capsys, moves, message):
    assert main(["predict", str(quick_ranker), "--moves", *moves]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_ply_out_of_the_game_and_ply_without_a_game(quick_ranker, later_games, capsys):
    assert main(["predict", str(quick_ranker), "--pgn", str(later_games), "--ply", "9999"]) == 2
    assert "--ply must be from 0 to" in capsys.readouterr().err
    assert main(["predict", str(quick_ranker), "--ply", "3"]) == 2
    assert "--ply needs --pgn" in capsys.readouterr().err
