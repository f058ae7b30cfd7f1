"""search.expectiminimax: chance nodes average, players optimise; the root's point of view."""

import pytest

from search.expectiminimax import expectiminimax
from search.games import ChanceNode, Decision, TreeGame
from search.games.seeds import coin_flip_game, seed000_game


def test_unequal_probabilities_weight_the_average():
    """Hand-computed: 0.25 * 8 + 0.75 * 0 = 2 beats a sure 1.5."""
    tree = Decision(0, {"sure": 1.5, "gamble": ChanceNode({"win": (0.25, 8), "lose": (0.75, 0)})})
    result = expectiminimax(TreeGame(tree), ())
    assert result.value == pytest.approx(2.0)
    assert result.move == "gamble"


def test_a_chance_root_has_no_move_and_the_value_for_player_0():
    """At a chance root the value is the expectation for player 0 and there is no move."""
    tree = ChanceNode({"h": (0.5, Decision(1, {"a": 2, "b": 6})), "t": (0.5, Decision(0, {"a": -4, "b": 0}))})
    result = expectiminimax(TreeGame(tree), ())
    assert result.value == pytest.approx(0.5 * 2 + 0.5 * 0)
    assert result.move is None and tuple(result.pv) == ()


def test_value_is_from_player_1_when_player_1_moves_at_the_root():
    """Player 1 picks the child worst for player 0; the value is returned from player 1's side."""
    game = coin_flip_game()
    result = expectiminimax(game, ("left", "tails"))  # MIN with leaves 7 and 4
    assert result.value == pytest.approx(-4.0)
    assert result.move == "b"


def test_without_chance_nodes_it_is_minimax():
    """On a deterministic tree the value and line are minimax's."""
    result = expectiminimax(seed000_game(), ())
    assert (result.value, result.move, tuple(result.pv)) == (3, "A1", ("A1", "A11"))


def test_depth_counts_chance_levels_and_scores_the_horizon_for_player_0():
    """depth=2 stops below the chance nodes: the evaluator scores the MIN nodes."""
    game = coin_flip_game()
    scores = {("left", "heads"): 1.0, ("left", "tails"): 3.0, ("right", "heads"): 10.0, ("right", "tails"): -2.0}
    result = expectiminimax(game, (), depth=2, evaluator=lambda s: scores[s])
    assert result.value == pytest.approx(4.0)  # right: (10 - 2) / 2 = 4 beats left: 2
    assert result.move == "right"


def test_depth_limit_needs_an_evaluator():
    with pytest.raises(ValueError, match="evaluator"):
        expectiminimax(coin_flip_game(), (), depth=1)
