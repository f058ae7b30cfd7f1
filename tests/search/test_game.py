"""The formal game: Capabilities, the defaults every Game inherits, the generic PathCursor, require and
distance_shifted."""

from __future__ import annotations

import pytest

from search.game import Capabilities, Game, PathCursor, distance_shifted, require


class Race(Game):
    """Players add 1 or 2 to a running total, alternately; whoever reaches ``goal`` wins ``win`` (scored by
    distance when ``bound`` is set). A state is ``(total, player to move)``."""

    def __init__(self, goal: int = 4, win: float = 100.0, bound: float | None = None, players: int = 2) -> None:
        self.goal, self.win = goal, win
        self.capabilities = Capabilities(players=players, win_bound=bound)

    def initial_state(self):
        return (0, 0)

    def to_move(self, state):
        return state[1]

    def actions(self, state):
        return () if self.is_terminal(state) else tuple(step for step in (1, 2) if state[0] + step <= self.goal)

    def result(self, state, action):
        return (state[0] + action, (state[1] + 1) % self.capabilities.players)

    def is_terminal(self, state):
        return state[0] >= self.goal

    def utility(self, state, player):
        winner = (state[1] - 1) % self.capabilities.players  # the player who moved last
        return self.win if player == winner else -self.win


def test_capabilities_default_to_a_plain_two_player_zero_sum_game():
    assert Capabilities() == Capabilities(players=2, zero_sum=True, chance=False, win_bound=None)
    assert Capabilities(players=1).players == 1


@pytest.mark.parametrize("players", [0, -3])
def test_capabilities_refuse_fewer_than_one_player(players):
    with pytest.raises(ValueError, match=f"a game needs at least one player, got {players}"):
        Capabilities(players=players)


def test_a_game_must_define_the_six_parts():
    with pytest.raises(TypeError):
        Game()  # type: ignore[abstract]


def test_the_defaults_a_game_inherits():
    game = Race()
    state = (4, 1)  # player 0 reached the goal
    assert game.utilities(state) == (100.0, -100.0)
    assert game.key((2, 0)) == (2, 0)
    assert game.noisy_actions((0, 0)) == () and game.stand_pat_allowed((0, 0)) is True
    assert game.action_priority((0, 0), 2) == 0
    with pytest.raises(ValueError, match="Race has no chance nodes"):
        game.chance_outcomes((0, 0))
    assert isinstance(game.cursor((1, 1)), PathCursor)
    assert Race(players=3).utilities((4, 2)) == (-100.0, 100.0, -100.0)


def test_the_path_cursor_walks_by_result_and_back():
    game = Race(goal=3)
    cursor = game.cursor(game.initial_state())
    assert (cursor.state, cursor.ply, cursor.to_move(), cursor.actions()) == ((0, 0), 0, 0, (1, 2))
    cursor.push(2)
    assert (cursor.state, cursor.ply, cursor.to_move(), cursor.actions()) == ((2, 1), 1, 1, (1,))
    cursor.push(1)
    assert cursor.is_terminal() and cursor.actions() == () and cursor.key() == (3, 0)
    assert cursor.utility(1) == 100.0 and cursor.utilities() == (-100.0, 100.0)  # no win bound: as the game says
    cursor.pop()
    cursor.pop()
    assert cursor.state == (0, 0) and cursor.ply == 0
    with pytest.raises(IndexError, match="pop from a cursor at its root"):
        cursor.pop()


def test_the_cursor_asks_the_game_for_the_rest():
    game = Race()
    cursor = PathCursor(game, (1, 1))
    assert cursor.noisy_actions() == () and cursor.stand_pat_allowed() and cursor.action_priority(1) == 0
    assert cursor.win_bound is None
    with pytest.raises(ValueError, match="no chance nodes"):
        cursor.chance_outcomes()


def test_a_distance_scored_win_counts_the_plies_from_the_cursors_root():
    """With a win bound of 50, a win of 100 two plies below the root reads 98; from a root one ply down, 99."""
    game = Race(goal=2, bound=50.0)
    cursor = game.cursor((0, 0))
    cursor.push(1)
    cursor.push(1)
    assert cursor.win_bound == 50.0 and cursor.utility(1) == 98.0 and cursor.utilities() == (-98.0, 98.0)
    nearer = game.cursor((1, 1))
    nearer.push(1)
    assert nearer.utility(1) == 99.0
    small = Race(goal=2, win=10.0, bound=50.0).cursor((0, 0))
    small.push(2)
    assert small.utility(0) == 10.0  # below the bound: a plain number


@pytest.mark.parametrize(
    "value, plies, bound, shifted",
    [(100, 3, 50, 97), (-100, 3, 50, -97), (50, 2, 50, 48), (-50, 2, 50, -48), (49, 7, 50, 49), (-49.5, 7, 50, -49.5),
     (100, -4, 50, 104), (-100, -4, 50, -104), (100, 0, 50, 100), (1e9, 5, None, 1e9), (0, 9, 50, 0)],
)
def test_distance_shifted_by_hand(value, plies, bound, shifted):
    assert distance_shifted(value, plies, bound) == shifted


def test_distance_shifted_round_trips_through_a_table():
    """Stored relative to its node (``-ply``), read back at the same ply: the value found."""
    for value in (-1000, -60, 0, 60, 1000):
        for ply in (0, 1, 5):
            stored = distance_shifted(value, -ply, 50)
            assert distance_shifted(stored, ply, 50) == value


class Dice(Race):
    """The race with the capabilities given (``require`` reads only those)."""

    def __init__(self, **kwargs) -> None:
        super().__init__()
        self.capabilities = Capabilities(**kwargs)


def test_require_passes_a_game_that_fits():
    require(Race(), "alphabeta", players=2, zero_sum=True)
    require(Race(players=3), "maxn")
    require(Dice(chance=True), "expectiminimax", players=2, chance_allowed=True)


@pytest.mark.parametrize(
    "game, options, message",
    [
        (Race(players=3), {"players": 2}, "minimax needs a 2-player game; Race has 3"),
        (Dice(players=2, zero_sum=False), {"zero_sum": True}, "minimax needs a zero-sum game; Dice is not zero-sum"),
        (Dice(chance=True), {}, "minimax cannot search chance nodes; Dice has them (use expectiminimax)"),
        (Dice(players=1, chance=True), {"players": 1}, "minimax cannot search chance nodes"),
    ],
)
def test_require_refuses_with_the_gap_named(game, options, message):
    with pytest.raises(ValueError) as refused:
        require(game, "minimax", **options)
    assert str(refused.value).startswith(message)
