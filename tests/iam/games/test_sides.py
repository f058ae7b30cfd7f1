"""iam.games.sides: the common player of a set of games, and reading the games from one side."""

import chess
import pytest

from iam.errors import DataError, ParameterError
from iam.games.sides import SIDES, common_player, side_games


def _pgn(tmp_path, games, name="games.pgn"):
    texts = [
        f'[Event "E{i}"]\n[White "{white}"]\n[Black "{black}"]\n[Result "*"]\n\n{moves} *\n'
        for i, (white, black, moves) in enumerate(games)
    ]
    path = tmp_path / name
    path.write_text("\n".join(texts), encoding="utf-8")
    return path


def test_common_player_finds_the_one_name_in_every_game():
    assert common_player([("Tal", "Petrosian"), ("Spassky", "Tal"), (" Tal ", "?")]) == "Tal"


def test_unknown_names_do_not_count():
    """'?' and empty names are nobody: they cannot be common to the games."""
    with pytest.raises(ParameterError, match="no player name is common to all 2 games"):
        common_player([("?", "A"), ("?", "B")])


def test_two_names_in_every_game_cannot_be_told_apart():
    with pytest.raises(ParameterError, match="'A' and 'B' both play in every game") as caught:
        common_player([("A", "B"), ("B", "A")])
    assert caught.value.parameter == "side" and caught.value.value == "auto"


def test_no_games_have_no_common_player():
    with pytest.raises(ParameterError, match="no player name is common to all 0 games"):
        common_player([])


def test_auto_reads_the_common_players_side_of_each_game(tmp_path):
    games = [("Ann", "Bob", "1. e4 e5 2. Nf3"), ("Cid", "Ann", "1. d4 d5 2. c4 e6"), ("Ann", "Dan", "1. c4")]
    path = _pgn(tmp_path, games)
    games, report, player = side_games([path], "auto")
    assert player == "Ann"
    assert [g.color for g in games] == [chess.WHITE, chess.BLACK, chess.WHITE]
    assert [g.player_moves for g in games] == [2, 2, 1]
    assert report.used == 3


@pytest.mark.parametrize(("side", "color"), [("white", chess.WHITE), ("black", chess.BLACK)])
def test_a_named_side_reads_that_colour_of_every_game(tmp_path, side, color):
    path = _pgn(tmp_path, [("Ann", "Bob", "1. e4 e5 2. Nf3"), ("Ann", "Bob", "1. d4 d5")])
    games, _, player = side_games([path], side)
    assert player == f"the {side} player"
    assert [g.color for g in games] == [color, color]
    assert [g.index for g in games] == [0, 1]


def test_a_match_between_the_same_two_players_needs_a_side(tmp_path):
    path = _pgn(tmp_path, [("Ann", "Bob", "1. e4 e5"), ("Bob", "Ann", "1. d4 d5")])
    with pytest.raises(ParameterError, match="both play in every game"):
        side_games([path], "auto")


def test_an_unknown_side_is_refused(tmp_path):
    path = _pgn(tmp_path, [("Ann", "Bob", "1. e4 e5")])
    with pytest.raises(ParameterError, match="one of white, black, auto") as caught:
        side_games([path], "left")
    assert caught.value.parameter == "side"
    assert SIDES == ("white", "black", "auto")


def test_no_usable_game_is_a_data_error_naming_the_file(tmp_path):
    """Black never moves in a one-ply game: nothing is left to read for black."""
    path = _pgn(tmp_path, [("Ann", "Bob", "1. e4")])
    with pytest.raises(DataError, match="no usable game in .*games.pgn"):
        side_games([path], "black")
