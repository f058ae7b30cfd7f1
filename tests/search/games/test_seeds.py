"""search.games.seeds: the worked examples' trees have the shapes, labels and capabilities the notes draw."""

import pytest

from search.games import ChanceNode, Decision
from search.games.seeds import (
    COIN_FLIP,
    SEED003_SCALE,
    SEED003_SCALE_SQUARED,
    coin_flip_game,
    seed000_game,
    seed001_game,
    seed003_expectimax_game,
    three_player_game,
)


def test_seed000_is_max_over_three_min_nodes_with_the_drawn_leaves():
    game = seed000_game()
    assert game.actions(()) == ("A1", "A2", "A3")
    assert game.actions(("A2",)) == ("A21", "A22", "A23")
    assert game.to_move(()) == 0 and game.to_move(("A1",)) == 1
    leaves = {path: game.utility(path, 0) for path in game.leaves()}
    assert list(leaves.values()) == [3, 12, 8, 2, 4, 6, 14, 5, 2]
    assert all(game.utility(path, 1) == -value for path, value in leaves.items())
    caps = game.capabilities
    assert (caps.players, caps.zero_sum, caps.chance) == (2, True, False)


def test_seed001_leaves_as_drawn():
    game = seed001_game()
    assert game.actions(()) == ("b", "c")
    assert [(path[-1], game.utility(path, 0)) for path in game.leaves()] == [("d", 1), ("e", 1), ("f", -1), ("g", 0)]


def test_coin_flip_has_fair_chance_nodes():
    game = coin_flip_game()
    assert game.capabilities.chance
    assert game.chance_outcomes(("left",)) == (("heads", 0.5), ("tails", 0.5))
    assert isinstance(COIN_FLIP.children["right"], ChanceNode)
    with pytest.raises(ValueError, match="not a chance node"):
        game.chance_outcomes(())


def test_three_player_tree_is_not_zero_sum_and_turns_rotate():
    game = three_player_game()
    caps = game.capabilities
    assert (caps.players, caps.zero_sum, caps.chance) == (3, False, False)
    assert [game.to_move(p) for p in ((), ("L",), ("L", "LL"))] == [0, 1, 2]
    assert game.utilities(("R", "RR", "a")) == (7.0, 7.0, 1.0)


def test_seed003_trees_are_uniform_and_the_squared_one_squares_every_leaf():
    game = seed003_expectimax_game()
    assert game.chance_outcomes(("left",)) == (("a", 0.5), ("b", 0.5))
    for label in ("left", "right"):
        plain, squared = SEED003_SCALE.children[label], SEED003_SCALE_SQUARED.children[label]
        assert [p for p, _ in plain.outcomes.values()] == [0.5, 0.5]
        assert [leaf**2 for _, leaf in plain.outcomes.values()] == [leaf for _, leaf in squared.outcomes.values()]


def test_factories_build_fresh_games_from_the_same_trees():
    assert seed000_game() is not seed000_game()
    assert seed000_game().leaves() == seed000_game().leaves()
    assert len(three_player_game().leaves()) == 8 and len(coin_flip_game().leaves()) == 8
    assert isinstance(COIN_FLIP, Decision) and COIN_FLIP.player == 0
