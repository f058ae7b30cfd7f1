"""Algorithms refuse games they cannot search, with a ValueError that says why."""

import pytest

from search import (
    Capabilities,
    Limits,
    PathCursor,
    alphabeta,
    expectiminimax,
    maxn,
    minimax,
    retrograde,
    search,
)
from search.games import ChanceNode, Decision, TreeGame
from search.games.seeds import coin_flip_game, seed000_game, three_player_game


def _zero(state):
    return 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda g: minimax(g, ()),
        lambda g: alphabeta(g, ()),
        lambda g: search(g, (), evaluator=_zero, limits=Limits(depth=1)),
        lambda g: retrograde(g),
        lambda g: maxn(g, ()),
    ],
    ids=["minimax", "alphabeta", "search", "retrograde", "maxn"],
)
def test_chance_nodes_are_refused(call):
    with pytest.raises(ValueError, match="chance"):
        call(coin_flip_game())


@pytest.mark.parametrize(
    "call",
    [
        lambda g: minimax(g, ()),
        lambda g: alphabeta(g, ()),
        lambda g: expectiminimax(g, ()),
        lambda g: retrograde(g),
        lambda g: search(g, (), evaluator=_zero, limits=Limits(depth=1)),
    ],
    ids=["minimax", "alphabeta", "expectiminimax", "retrograde", "search"],
)
def test_three_players_are_refused_by_two_player_algorithms(call):
    with pytest.raises(ValueError, match="2-player"):
        call(three_player_game())


def test_non_zero_sum_two_player_games_are_refused():
    game = TreeGame(Decision(0, {"a": (1, 1), "b": (2, 0)}))
    assert game.capabilities == Capabilities(players=2, zero_sum=False, chance=False)
    with pytest.raises(ValueError, match="zero-sum"):
        alphabeta(game, ())
    assert maxn(game, ()).value == (2, 0)


def test_maxn_and_expectiminimax_accept_what_they_are_for():
    assert maxn(seed000_game(), ()).value == (3, -3)
    assert expectiminimax(seed000_game(), ()).value == 3


def test_capabilities_validate():
    with pytest.raises(ValueError):
        Capabilities(players=0)


def test_chance_probabilities_must_sum_to_one():
    with pytest.raises(ValueError, match="sum"):
        TreeGame(Decision(0, {"a": ChanceNode({"h": (0.5, 1), "t": (0.4, 2)})}))


def test_limits_validate():
    for bad in ({"depth": 0}, {"nodes": 0}, {"time": -1.0}):
        with pytest.raises(ValueError):
            Limits(**bad)


def test_path_cursor_refuses_to_pop_past_its_root():
    cursor = PathCursor(seed000_game(), ())
    cursor.push("A1")
    cursor.pop()
    with pytest.raises(IndexError):
        cursor.pop()


@pytest.mark.parametrize(
    "call",
    [
        lambda depth: minimax(seed000_game(), (), depth=depth, evaluator=_zero),
        lambda depth: alphabeta(seed000_game(), (), depth=depth, evaluator=_zero),
        lambda depth: expectiminimax(coin_flip_game(), (), depth=depth, evaluator=_zero),
        lambda depth: maxn(three_player_game(), (), depth=depth, evaluator=lambda s: (0.0, 0.0, 0.0)),
    ],
    ids=["minimax", "alphabeta", "expectiminimax", "maxn"],
)
def test_every_search_refuses_a_depth_below_one(call):
    for depth in (0, -1):
        with pytest.raises(ValueError, match="depth must be at least 1"):
            call(depth)
    assert call(1).move is not None
