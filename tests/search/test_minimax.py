"""search.minimax: exact values against game theory, the horizon, ties, budgets and refusals."""

import itertools
import threading

import pytest

from search.alphabeta import Budget, SearchAborted
from search.games import Decision, Nim, TicTacToe, TreeGame
from search.minimax import minimax


def _misere_nim_mover_wins(piles):
    """Bouton's rule for misère Nim: the player to move wins iff (some pile > 1 and the
    nim-sum is not 0) or (every pile <= 1 and the number of ones is even)."""
    nim_sum = 0
    for pile in piles:
        nim_sum ^= pile
    if any(pile > 1 for pile in piles):
        return nim_sum != 0
    return sum(piles) % 2 == 0


@pytest.mark.parametrize("piles", [p for n in (1, 2, 3) for p in itertools.product(range(4), repeat=n) if any(p)])
def test_nim_value_agrees_with_boutons_misere_rule(piles):
    """Minimax solves misère Nim as the closed-form theory says, and its move keeps the value."""
    game = Nim(piles)
    state = game.initial_state()
    result = minimax(game, state)
    assert result.value == (1 if _misere_nim_mover_wins(piles) else -1)
    after = game.result(state, result.move)
    # The move leaves the opponent in a position worth minus the root's value to them.
    if not game.is_terminal(after):
        assert minimax(game, after).value == -result.value


def test_principal_variation_replays_to_a_terminal_state_of_the_root_value():
    """The pv is a legal line that ends the game with the utility the value promises."""
    game = Nim((1, 2, 3))
    state = game.initial_state()
    result = minimax(game, state)
    assert result.pv[0] == result.move and result.depth == len(result.pv)
    for action in result.pv:
        assert action in game.actions(state)
        state = game.result(state, action)
    assert game.is_terminal(state)
    assert game.utility(state, 0) == result.value


def test_value_is_from_the_movers_point_of_view():
    """At a state where player 1 moves, the value is player 1's payoff (minus player 0's)."""
    tree = Decision(1, {"a": 4, "b": -3})  # leaves are player 0's payoffs
    result = minimax(TreeGame(tree), ())
    assert (result.value, result.move) == (3, "b")


def test_a_player_moving_twice_keeps_the_sign():
    """Values are negated only when the turn passes: two moves of player 0 in a row add up."""
    tree = Decision(0, {"a": Decision(0, {"x": 5, "y": 7}), "b": 6})
    result = minimax(TreeGame(tree), ())
    assert (result.value, result.pv) == (7, ("a", "y"))


def test_ties_go_to_the_first_action():
    """Among equally good actions the first in the game's order is chosen."""
    result = minimax(TreeGame(Decision(0, {"p": 2, "q": 2, "r": 1})), ())
    assert (result.value, result.move) == (2, "p")


def test_terminal_root_has_no_move_and_its_utility_as_value():
    """A finished game: no move, empty pv, the mover's utility, one node visited."""
    game = TicTacToe()
    won = (1, 1, 1, 2, 2, 0, 0, 0, 0)  # X has the top row, O to move
    result = minimax(game, won)
    assert result.move is None and tuple(result.pv) == ()
    assert result.value == -1 and result.nodes == 1


def test_depth_limited_search_scores_the_horizon_for_player_0_and_flips_for_player_1():
    """The evaluator scores for player 0; minimax reads it from the mover's side at the horizon."""
    deeper = Decision(0, {"end": 0})
    tree = Decision(0, {"a": Decision(1, {"x": deeper, "y": deeper}), "b": Decision(1, {"z": deeper})})
    scores = {("a",): 5.0, ("b",): 2.0}
    result = minimax(TreeGame(tree), (), depth=1, evaluator=lambda s: scores[s])
    assert (result.value, result.move, result.depth, result.nodes) == (5.0, "a", 1, 3)
    # From player 1's node one ply deep: player 1 picks the child worst for player 0.
    leaf_scores = {("a", "x"): 1.0, ("a", "y"): -4.0}
    below = minimax(TreeGame(tree), ("a",), depth=1, evaluator=lambda s: leaf_scores[s])
    assert (below.value, below.move) == (4.0, "y")


def test_depth_limit_needs_an_evaluator():
    """A finite depth without an evaluator is refused before any search."""
    with pytest.raises(ValueError, match="evaluator"):
        minimax(Nim(), Nim().initial_state(), depth=2)


def test_a_node_budget_aborts_the_search():
    """A budget smaller than the tree raises SearchAborted; a large one changes nothing."""
    game = TicTacToe()
    with pytest.raises(SearchAborted):
        minimax(game, game.initial_state(), budget=Budget(max_nodes=100))
    state = (1, 2, 1, 2, 1, 0, 0, 0, 0)
    assert minimax(game, state, budget=Budget(max_nodes=10_000)).value == minimax(game, state).value


def test_a_set_stop_event_aborts_at_the_first_node():
    """A stop request already made ends the search immediately."""
    stop = threading.Event()
    stop.set()
    with pytest.raises(SearchAborted):
        minimax(Nim(), Nim().initial_state(), budget=Budget(stop=stop))
