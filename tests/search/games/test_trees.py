"""Explicit game trees: what TreeGame reads off a tree (players, zero sum, chance, movers), its rules, and the
values of small trees checked against a direct recursion over the tree."""

from __future__ import annotations

import pytest

from search.expectiminimax import expectiminimax
from search.game import CHANCE, Capabilities
from search.games.trees import ChanceNode, Decision, TreeGame, two_ply, uniform
from search.minimax import minimax


def direct_value(node) -> float:
    """Expectiminimax straight from the tree's nodes (player 0 maximises, others minimise)."""
    if isinstance(node, Decision):
        values = [direct_value(child) for child in node.children.values()]
        return max(values) if node.player == 0 else min(values)
    if isinstance(node, ChanceNode):
        return sum(probability * direct_value(child) for probability, child in node.outcomes.values())
    return float(node)


def test_two_ply_names_the_moves_by_row_and_column():
    tree = two_ply([[1, 2], [3, 4], [5, 6]], labels="B")
    assert list(tree.children) == ["B1", "B2", "B3"] and tree.player == 0
    assert tree.children["B2"] == Decision(1, {"B21": 3, "B22": 4})
    game = TreeGame(tree)
    assert game.leaves() == (("B1", "B11"), ("B1", "B12"), ("B2", "B21"), ("B2", "B22"), ("B3", "B31"),
                             ("B3", "B32"))


def test_uniform_splits_the_probability_evenly_and_needs_an_outcome():
    node = uniform({"a": 1, "b": 2, "c": 3})
    assert node.outcomes == {"a": (1 / 3, 1), "b": (1 / 3, 2), "c": (1 / 3, 3)}
    with pytest.raises(ValueError, match="at least one outcome"):
        uniform({})


@pytest.mark.parametrize(
    "tree, capabilities",
    [
        (Decision(0, {"a": 1, "b": -1}), Capabilities(players=2, zero_sum=True, chance=False)),
        (7.0, Capabilities(players=2)),  # a lone leaf: two players by default
        (Decision(0, {"a": Decision(2, {"x": 1})}), Capabilities(players=3)),  # the highest player named
        (Decision(0, {"a": (1, -1, 0), "b": (2, -2, 0)}), Capabilities(players=3, zero_sum=True)),
        (Decision(0, {"a": (1, 1)}), Capabilities(players=2, zero_sum=False)),
        (Decision(0, {"a": uniform({"h": 1, "t": 2})}), Capabilities(players=2, chance=True)),
    ],
)
def test_capabilities_are_read_off_the_tree(tree, capabilities):
    assert TreeGame(tree).capabilities == capabilities


def test_movers_actions_and_leaves():
    """A leaf's mover is the player after its parent's (after a chance node, player 0), wrapping round."""
    tree = Decision(0, {
        "a": Decision(1, {"c": 5, "d": uniform({"h": Decision(0, {"e": 1}), "t": 2})}),
        "b": 3,
    })
    game = TreeGame(tree)
    assert game.initial_state() == ()
    assert [game.to_move(path) for path in [(), ("a",), ("a", "d"), ("a", "d", "h")]] == [0, 1, CHANCE, 0]
    assert game.to_move(("b",)) == 1 and game.to_move(("a", "c")) == 0 and game.to_move(("a", "d", "t")) == 0
    assert game.to_move(("a", "d", "h", "e")) == 1
    assert game.actions(()) == ("a", "b") and game.actions(("a", "d")) == ("h", "t") and game.actions(("b",)) == ()
    assert game.chance_outcomes(("a", "d")) == (("h", 0.5), ("t", 0.5))
    assert game.leaves() == (("a", "c"), ("a", "d", "h", "e"), ("a", "d", "t"), ("b",))
    assert [game.is_terminal(path) for path in [(), ("a", "d"), ("b",)]] == [False, False, True]


def test_a_three_player_leaf_wraps_to_player_zero():
    game = TreeGame(Decision(0, {"a": Decision(1, {"b": Decision(2, {"c": (1, 2, 3)})})}))
    assert game.to_move(("a", "b", "c")) == 0


def test_result_extends_the_path_and_refuses_unknown_labels():
    game = TreeGame(two_ply([[1, 2]]))
    assert game.result((), "A1") == ("A1",) and game.result(("A1",), "A12") == ("A1", "A12")
    with pytest.raises(ValueError, match=r"no action 'A2' at \(\)"):
        game.result((), "A2")
    with pytest.raises(ValueError, match="no action"):
        game.result(("A1", "A11"), "x")  # nothing below a leaf


def test_utilities_of_number_and_tuple_leaves():
    zero_sum = TreeGame(Decision(0, {"a": 4.5}))
    assert zero_sum.utility(("a",), 0) == 4.5 and zero_sum.utility(("a",), 1) == -4.5
    assert zero_sum.utilities(("a",)) == (4.5, -4.5)
    general = TreeGame(Decision(0, {"a": (1, 5, 2)}))
    assert [general.utility(("a",), p) for p in range(3)] == [1.0, 5.0, 2.0]


def test_chance_probabilities_must_sum_to_one_and_only_chance_nodes_have_outcomes():
    with pytest.raises(ValueError, match=r"chance outcomes at \('a',\) sum to 1.2"):
        TreeGame(Decision(0, {"a": ChanceNode({"h": (0.6, 1), "t": (0.6, 2)})}))
    with pytest.raises(ValueError, match="is not a chance node"):
        TreeGame(Decision(0, {"a": 1})).chance_outcomes(())


@pytest.mark.parametrize(
    "tree, value, move",
    [
        (two_ply([[3, 12, 8], [2, 4, 6], [14, 5, 2]]), 3, "A1"),  # source note 000's minimax example
        (two_ply([[-1, 7], [0, 9], [-3, 50]]), 0, "A2"),
        (Decision(0, {"l": Decision(1, {"x": Decision(0, {"p": 1, "q": 6}), "y": 4}), "r": 2}), 4, "l"),
    ],
)
def test_minimax_values_of_small_trees(tree, value, move):
    result = minimax(TreeGame(tree), ())
    assert (result.value, result.move) == (value, move) == (direct_value(tree), move)


def test_expectiminimax_value_of_a_tree_with_chance():
    """MAX picks between a 1/4-3/4 gamble over MIN nodes (0.25 * 2 + 0.75 * 4 = 3.5) and a sure 3."""
    tree = Decision(0, {
        "gamble": ChanceNode({"low": (0.25, Decision(1, {"a": 2, "b": 9})), "high": (0.75, Decision(1, {"a": 4}))}),
        "sure": 3,
    })
    result = expectiminimax(TreeGame(tree), ())
    assert result.move == "gamble" and result.value == pytest.approx(3.5) == direct_value(tree)
