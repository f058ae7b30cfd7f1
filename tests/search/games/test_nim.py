"""search.games.nim: states, the deduplicated action list, results, the misère ending and refusals."""

import pytest

from search.games.nim import Nim


def test_initial_state_sorts_the_piles_and_player_0_moves():
    game = Nim((3, 0, 1))
    assert game.piles == (0, 1, 3)
    assert game.initial_state() == ((0, 1, 3), 0)
    assert game.to_move(game.initial_state()) == 0
    assert Nim().initial_state() == ((2, 2), 0)


def test_actions_lead_to_distinct_positions_in_the_drawn_order():
    """Equal piles give one action each; piles left to right, fewer matches first."""
    assert Nim((2, 2)).actions(((2, 2), 0)) == ((0, 1), (0, 2))
    assert Nim((1, 3)).actions(((1, 3), 1)) == ((0, 1), (1, 1), (1, 2), (1, 3))
    # (1, 2): taking one from the two-pile gives (1, 1); taking the one-pile gives (0, 2).
    game = Nim((1, 2))
    after = [game.result(((1, 2), 0), a)[0] for a in game.actions(((1, 2), 0))]
    assert after == [(0, 2), (1, 1), (0, 1)]
    assert len(set(after)) == len(after)


def test_result_takes_sorts_and_passes_the_turn_without_changing_the_state():
    game = Nim((2, 3))
    state = game.initial_state()
    after = game.result(state, (1, 2))
    assert after == ((1, 2), 1)
    assert state == ((2, 3), 0)
    assert game.result(after, (0, 1)) == ((0, 2), 0)


def test_whoever_takes_the_last_match_loses():
    """At the empty position the player to move did not take the last match: they win."""
    game = Nim((1,))
    end = game.result(game.initial_state(), (0, 1))
    assert game.is_terminal(end) and not game.is_terminal(game.initial_state())
    assert game.to_move(end) == 1
    assert (game.utility(end, 1), game.utility(end, 0)) == (1.0, -1.0)
    assert game.actions(end) == ()


def test_empty_piles_are_a_finished_game():
    game = Nim((0, 0))
    assert game.is_terminal(game.initial_state())
    assert game.utility(game.initial_state(), 0) == 1.0


def test_reachable_states_of_ii_nim():
    """Source note 004's II-Nim: nine states reachable from (2, 2) with A to move."""
    game = Nim()
    seen, frontier = set(), [game.initial_state()]
    while frontier:
        state = frontier.pop()
        if state not in seen:
            seen.add(state)
            frontier.extend(game.result(state, a) for a in game.actions(state))
    assert len(seen) == 9
    assert ((1, 1), 1) not in seen and ((0, 0), 0) in seen and ((0, 0), 1) in seen


@pytest.mark.parametrize("action", [(0, 0), (0, 3), (2, 1), (-1, 1)])
def test_impossible_takes_are_refused(action):
    with pytest.raises(ValueError, match="cannot take"):
        Nim((1, 2)).result(((1, 2), 0), action)


@pytest.mark.parametrize("piles", [(), (1, -1)])
def test_bad_piles_are_refused(piles):
    with pytest.raises(ValueError, match="piles"):
        Nim(piles)
