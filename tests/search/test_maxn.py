"""search.maxn: each player maximises their own entry; horizon tuples, ties and terminal roots."""

import pytest

from search.games import Decision, TreeGame
from search.games.seeds import seed000_game, three_player_game
from search.maxn import maxn


def test_each_player_takes_the_child_best_for_themselves():
    """Hand-computed values at every level of source note 003's three-player tree."""
    game = three_player_game()
    assert maxn(game, ("L", "LR")).value == (6, 1, 2)
    assert maxn(game, ("R", "RR")).value == (5, 4, 5)
    assert maxn(game, ("L",)).value == (1, 2, 6)
    result = maxn(game, ())
    assert result.nodes == 15  # 1 + 2 + 4 + 8: max^n never prunes


def test_two_player_zero_sum_maxn_equals_minimax_in_tuples():
    """On a two-player zero-sum tree max^n backs up (v, -v) with v the minimax value."""
    result = maxn(seed000_game(), ())
    assert result.value == (3, -3)
    assert result.pv == ("A1", "A11")


def test_ties_go_to_the_first_action():
    """Equal entries for the mover: the first action wins, whatever the others get."""
    game = TreeGame(Decision(0, {"a": (1, 0, 5), "b": (1, 9, 0)}))
    result = maxn(game, ())
    assert (result.value, result.move) == ((1, 0, 5), "a")


def test_a_depth_limit_scores_the_horizon_with_tuples():
    """With depth=1 the evaluator's tuples are compared, not the leaves below them."""
    game = three_player_game()
    horizon = {("L",): (2.0, 0.0, 0.0), ("R",): (3.0, 0.0, 0.0)}
    result = maxn(game, (), depth=1, evaluator=lambda s: horizon[s])
    assert (result.value, result.move, result.depth) == ((3.0, 0.0, 0.0), "R", 1)


def test_a_depth_limit_needs_an_evaluator():
    with pytest.raises(ValueError, match="evaluator"):
        maxn(three_player_game(), (), depth=2)


def test_a_terminal_root_returns_its_utilities_and_no_move():
    game = three_player_game()
    result = maxn(game, ("R", "RR", "b"))
    assert result.value == (5, 4, 5)
    assert result.move is None and tuple(result.pv) == ()
