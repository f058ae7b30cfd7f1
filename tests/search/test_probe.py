"""search.probe: the horizon and the line depth a DepthProbe records, and that it steers nothing."""

import math

import numpy as np

from search import Limits, alphabeta, search
from search.games import TicTacToe
from search.probe import DepthProbe, IterationShape

GAME = TicTacToe()
ROOT = GAME.initial_state()


def _zero(state):
    return 0.0


class _ExtendAtRoot:
    """Searches ``action`` one ply deeper at the root; elsewhere the plain search."""

    def __init__(self, action):
        self.action = action

    def plan(self, cursor, actions, *, ply, depth):
        if ply:
            return None
        return [(a, 1 if a == self.action else 0) for a in actions]


def test_a_plain_search_has_its_horizon_at_the_nominal_depth():
    """Every evaluated node of a depth-2 search sits at ply 2; the root's nine children are interior."""
    probe = DepthProbe(GAME, ROOT)
    result = alphabeta(GAME, ROOT, depth=2, evaluator=_zero, probe=probe)
    shape = probe.shape(2)
    assert shape.depth == 2
    assert shape.horizon_range == (2, 2) and shape.horizon_mean == 2.0
    assert shape.horizon_nodes == result.nodes - 1 - 9
    assert shape.line_entered == 0 and shape.line_depth == 2


def test_the_probe_changes_nothing():
    with_probe = alphabeta(GAME, ROOT, depth=3, evaluator=_zero, probe=DepthProbe(GAME, ROOT, [4]))
    without = alphabeta(GAME, ROOT, depth=3, evaluator=_zero)
    assert (with_probe.value, with_probe.move, with_probe.nodes) == (without.value, without.move, without.nodes)


def test_the_line_depth_of_a_plain_search_is_the_nominal_depth():
    """With a constant evaluation every node after the first cuts off after its first child,
    which for the line 4, 0 is the line itself: both plies are entered."""
    probe = DepthProbe(GAME, ROOT, [4, 0])
    alphabeta(GAME, ROOT, depth=2, evaluator=_zero, probe=probe)
    assert probe.line_length == 2
    shape = probe.shape(2)
    assert (shape.line_entered, shape.line_depth) == (2, 2)


def test_an_extension_along_the_line_deepens_it():
    """Extending the line's first move by one ply makes its line depth 3 and the horizon reach ply 3."""
    probe = DepthProbe(GAME, ROOT, [4, 0])
    alphabeta(GAME, ROOT, depth=2, evaluator=_zero, policy=_ExtendAtRoot(4), probe=probe)
    shape = probe.shape(2)
    assert (shape.line_entered, shape.line_depth) == (2, 3)
    assert shape.horizon_range == (2, 3)
    assert 2 < shape.horizon_mean < 3


def test_an_extension_off_the_line_leaves_the_line_depth():
    probe = DepthProbe(GAME, ROOT, [4, 0])
    alphabeta(GAME, ROOT, depth=2, evaluator=_zero, policy=_ExtendAtRoot(8), probe=probe)
    assert probe.shape(2).line_depth == 2


def test_the_line_is_followed_while_it_stays_legal():
    """An illegal action (a taken cell) or the end of the game cuts the line."""
    assert DepthProbe(GAME, ROOT, [4, 4, 0]).line_length == 1
    assert DepthProbe(GAME, ROOT, [0, 3, 1, 4, 2, 5, 6]).line_length == 5  # X wins with the top row
    assert DepthProbe(GAME, ROOT).line_length == 0


def test_each_iteration_has_its_own_shape():
    """An iterative search records one shape per completed depth; others are None."""
    probe = DepthProbe(GAME, ROOT)
    search(GAME, ROOT, evaluator=_zero, limits=Limits(depth=3), probe=probe)
    assert [probe.shape(d).horizon_range for d in (1, 2, 3)] == [(1, 1), (2, 2), (3, 3)]
    assert probe.shape(4) is None


def test_a_search_to_the_end_has_no_horizon():
    """Searched to the end, no node is handed to an evaluation: NaN mean, (0, 0) range."""
    state = (1, 2, 1, 2, 1, 2, 0, 0, 0)
    probe = DepthProbe(GAME, state)
    alphabeta(GAME, state, probe=probe)
    shape = probe.shape(math.inf)
    assert shape.horizon_nodes == 0
    assert math.isnan(shape.horizon_mean) and shape.horizon_range == (0, 0)


def test_iteration_shape_statistics_by_hand():
    horizon = np.zeros(10, dtype=np.int64)
    horizon[[2, 5]] = [3, 1]
    shape = IterationShape(4, horizon, 0, 4)
    assert shape.horizon_nodes == 4
    assert shape.horizon_mean == (2 * 3 + 5) / 4
    assert shape.horizon_range == (2, 5)
