"""Top-label calibration: the map of the top belief, its floor, and its fit."""

from __future__ import annotations

import numpy as np
import pytest

from iam.priors.logit import MoveTable
from iam.ranker.calibration import TopLabelCalibration, calibrate_top, fit_top_label


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def test_the_identity_map_leaves_beliefs_alone():
    probs = np.array([0.1, 0.7, 0.2])
    assert np.allclose(calibrate_top(probs, 1.0, 0.0), probs)
    assert TopLabelCalibration().identity


def test_the_top_belief_moves_and_the_others_keep_their_proportions():
    probs = np.array([0.15, 0.8, 0.05])
    out = calibrate_top(probs, 1.0, _logit(0.6) - _logit(0.8))
    assert out == pytest.approx([0.3, 0.6, 0.1])


def test_the_top_move_is_never_overtaken():
    probs = np.array([0.5, 0.45, 0.05])
    out = calibrate_top(probs, 1.0, -5.0)  # asks for a top belief of about 0.007
    assert out.sum() == pytest.approx(1.0)
    assert out[0] == pytest.approx(0.45 / 0.95)
    assert out[0] > out[1] > out[2]  # not even a tie: a stable sort of the beliefs keeps the top move first
    assert np.argmax(out) == 0


def test_columns_take_their_own_maps():
    probs = np.array([[0.6, 0.2], [0.3, 0.7], [0.1, 0.1]])
    slopes, offsets = np.array([0.7, 1.3]), np.array([-0.2, 0.4])
    both = calibrate_top(probs, slopes, offsets)
    for j in range(2):
        assert both[:, j] == pytest.approx(calibrate_top(probs[:, j], slopes[j], offsets[j]))
    assert both.sum(axis=0) == pytest.approx([1.0, 1.0])


def test_a_single_legal_move_keeps_its_certainty():
    assert calibrate_top(np.array([1.0]), 0.5, -1.0) == pytest.approx([1.0])


def test_the_fit_recovers_a_known_over_confidence():
    rng = np.random.default_rng(3)
    positions, moves = 20000, 4
    scores = rng.normal(0.0, 1.5, size=(positions, moves))
    probs = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    top = probs.max(axis=1)
    true = 1 / (1 + np.exp(-(0.8 * np.log(top / (1 - top)) - 0.3)))  # the top move is played less often than believed
    best = probs.argmax(axis=1)
    other = (best + rng.integers(1, moves, size=positions)) % moves
    played = np.where(rng.random(positions) < true, best, other)
    starts = np.arange(positions + 1) * moves
    table = MoveTable(np.zeros((positions * moves, 1)), starts, starts[:-1] + played)
    fitted = fit_top_label(table, scores.ravel())
    assert fitted.slope == pytest.approx(0.8, abs=0.05)
    assert fitted.offset == pytest.approx(-0.3, abs=0.05)


def test_too_few_positions_or_no_misses_give_the_identity():
    starts = np.arange(11) * 3
    table = MoveTable(np.zeros((30, 1)), starts, starts[:-1])
    assert fit_top_label(table, np.tile([2.0, 0.0, -1.0], 10)).identity
    starts = np.arange(101) * 3
    table = MoveTable(np.zeros((300, 1)), starts, starts[:-1])
    assert fit_top_label(table, np.tile([2.0, 0.0, -1.0], 100)).identity  # the top move always played


def test_a_harsh_map_never_changes_which_move_is_first():
    rng = np.random.default_rng(0)
    for size in (2, 3, 10, 40):
        probs = rng.dirichlet(np.full(size, 0.3), size=200).T  # (moves, positions)
        for slope, offset in ((0.3, -3.0), (2.0, -1.0), (0.5, 2.0)):
            out = calibrate_top(probs, slope, offset)
            assert np.array_equal(np.argmax(out, axis=0), np.argmax(probs, axis=0))
            assert out.sum(axis=0) == pytest.approx(np.ones(200))
