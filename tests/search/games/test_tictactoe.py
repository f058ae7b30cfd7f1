"""search.games.tictactoe: turns, every winning line, draws, keys, and the known game-tree counts."""

from functools import cache

import pytest

from search.games.tictactoe import TicTacToe

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def test_x_moves_first_and_turns_alternate():
    game = TicTacToe()
    state = game.initial_state()
    assert state == (0,) * 9 and game.to_move(state) == 0
    state = game.result(state, 4)
    assert state[4] == 1 and game.to_move(state) == 1
    state = game.result(state, 0)
    assert state[0] == 2 and game.to_move(state) == 0
    assert game.actions(state) == (1, 2, 3, 5, 6, 7, 8)


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("mark", [1, 2])
def test_every_line_wins_for_its_owner(line, mark):
    state = tuple(mark if i in line else 0 for i in range(9))
    game = TicTacToe()
    assert TicTacToe.winner(state) == mark - 1
    assert game.is_terminal(state) and game.actions(state) == ()
    assert game.utility(state, mark - 1) == 1.0 and game.utility(state, 2 - mark) == -1.0


def test_a_full_board_without_a_line_is_a_draw():
    draw = (1, 2, 1, 1, 2, 2, 2, 1, 1)
    game = TicTacToe()
    assert TicTacToe.winner(draw) is None
    assert game.is_terminal(draw)
    assert game.utility(draw, 0) == game.utility(draw, 1) == 0.0


def test_an_unfinished_board_is_not_terminal():
    state = (1, 2, 1, 0, 0, 0, 0, 0, 0)
    game = TicTacToe()
    assert not game.is_terminal(state) and TicTacToe.winner(state) is None


def test_results_are_refused_on_taken_cells_and_finished_games():
    game = TicTacToe()
    with pytest.raises(ValueError, match="taken"):
        game.result((1, 0, 0, 0, 0, 0, 0, 0, 0), 0)
    with pytest.raises(ValueError, match="over"):
        game.result((1, 1, 1, 2, 2, 0, 0, 0, 0), 8)


def test_keys_depend_on_the_marks_and_the_seed():
    """Equal boards share a key; the same cell with X or O does not; seeds give other keys."""
    game = TicTacToe()
    x_centre = (0, 0, 0, 0, 1, 0, 0, 0, 0)
    o_centre = (0, 0, 0, 0, 2, 0, 0, 0, 0)
    assert game.key(x_centre) == TicTacToe().key(x_centre)
    assert game.key(x_centre) != game.key(o_centre)
    assert game.key(game.initial_state()) == 0
    assert TicTacToe(seed=1).key(x_centre) != game.key(x_centre)


def test_the_game_tree_has_the_known_counts():
    """255,168 possible games: X wins 131,184, O wins 77,904, 46,080 draws (a classic count)."""
    game = TicTacToe()

    @cache
    def outcomes(state):
        if game.is_terminal(state):
            winner = TicTacToe.winner(state)
            return (int(winner == 0), int(winner == 1), int(winner is None))
        totals = [0, 0, 0]
        for action in game.actions(state):
            for i, n in enumerate(outcomes(game.result(state, action))):
                totals[i] += n
        return tuple(totals)

    assert outcomes(game.initial_state()) == (131_184, 77_904, 46_080)
