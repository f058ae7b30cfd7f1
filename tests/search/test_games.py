"""The small games refuse illegal actions instead of ignoring them."""

import pytest

from search.games import Nim, TicTacToe
from search.games.seeds import seed000_game


def test_tictactoe_refuses_a_taken_cell_and_stops_after_a_win():
    game = TicTacToe()
    state = game.result(game.initial_state(), 4)
    with pytest.raises(ValueError, match="taken"):
        game.result(state, 4)
    for cell in (0, 3, 1, 5):  # O 0, X 3, O 1, X 5: X has the middle row
        state = game.result(state, cell)
    assert TicTacToe.winner(state) == 0
    assert game.is_terminal(state) and game.actions(state) == ()
    assert game.utility(state, 0) == 1 and game.utility(state, 1) == -1
    with pytest.raises(ValueError, match="over"):
        game.result(state, 2)


def test_nim_refuses_impossible_takes():
    game = Nim((1, 3))
    with pytest.raises(ValueError):
        game.result(game.initial_state(), (0, 2))
    with pytest.raises(ValueError):
        game.result(game.initial_state(), (2, 1))
    with pytest.raises(ValueError):
        Nim(())


def test_tree_game_refuses_unknown_actions():
    with pytest.raises(ValueError, match="no action"):
        seed000_game().result((), "A4")
