"""The conditional logit: exact softmax per position, a gradient that matches the objective, the prior's pull."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from iam.priors.logit import (
    MoveTable,
    fit_conditional_logit,
    fit_temperature,
    one_thread_optimiser,
    position_log_likelihood,
    softmax_by_position,
    take_positions,
)


def _simulated(weights: np.ndarray, positions: int, seed: int) -> MoveTable:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 30, positions)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    features = rng.normal(size=(starts[-1], len(weights)))
    probs = softmax_by_position(features @ weights, starts)
    played = np.array([starts[i] + rng.choice(sizes[i], p=probs[starts[i] : starts[i + 1]]) for i in range(positions)])
    return MoveTable(features, starts, played)


def test_softmax_sums_to_one_per_position_and_matches_a_direct_computation():
    scores = np.array([1.0, 2.0, 3.0, -5.0, 0.0])
    starts = np.array([0, 3, 5])
    probs = softmax_by_position(scores, starts)
    expected_first = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    np.testing.assert_allclose(probs[:3], expected_first)
    np.testing.assert_allclose(probs[3:], [np.exp(-5) / (np.exp(-5) + 1), 1 / (np.exp(-5) + 1)])


def test_log_likelihood_is_the_log_of_the_played_moves_softmax():
    table = _simulated(np.array([0.5, -1.0]), 20, seed=3)
    weights = np.array([0.3, 0.7])
    probs = softmax_by_position(table.features @ weights, table.starts)
    np.testing.assert_allclose(position_log_likelihood(table, weights), np.log(probs[table.played]))


def test_fit_recovers_the_weights_that_generated_the_choices():
    truth = np.array([1.5, -1.0, 0.5, 0.0])
    fitted = fit_conditional_logit(_simulated(truth, 3000, seed=0), penalty=0.0)
    np.testing.assert_allclose(fitted, truth, atol=0.12)


def test_a_strong_prior_holds_the_weights_and_a_weak_one_lets_the_data_speak():
    truth = np.array([1.5, -1.0])
    table = _simulated(truth, 500, seed=1)
    prior = np.array([-2.0, 2.0])
    np.testing.assert_allclose(fit_conditional_logit(table, prior=prior, penalty=1e7), prior, atol=1e-3)
    weak = fit_conditional_logit(table, prior=prior, penalty=1e-3)
    assert np.abs(weak - truth).max() < 0.3


def test_the_prior_pulls_harder_on_features_with_a_larger_spread():
    table = _simulated(np.array([1.0, 1.0]), 200, seed=2)
    plain = fit_conditional_logit(table, penalty=50.0)
    scaled = fit_conditional_logit(table, penalty=50.0, scale=np.array([3.0, 1.0]))
    assert abs(scaled[0]) < abs(plain[0])
    assert abs(scaled[1] - plain[1]) < abs(scaled[0] - plain[0])


def test_no_positions_gives_the_prior_and_a_bad_table_is_refused():
    empty = MoveTable(np.zeros((0, 2)), np.array([0]), np.zeros(0, dtype=np.int64))
    np.testing.assert_array_equal(fit_conditional_logit(empty, prior=np.array([1.0, 2.0])), [1.0, 2.0])
    with pytest.raises(ValueError, match="one start per position"):
        MoveTable(np.zeros((3, 2)), np.array([0, 3]), np.array([0, 1]))


def test_the_temperature_undoes_overconfident_scores():
    truth = np.array([1.0, -0.5])
    table = _simulated(truth, 3000, seed=7)
    scores = table.features @ (truth * 2.5)  # the same ranking, two and a half times too sure
    assert fit_temperature(table, scores) == pytest.approx(2.5, rel=0.1)
    assert fit_temperature(table, table.features @ truth) == pytest.approx(1.0, abs=0.1)


def test_take_positions_keeps_each_positions_rows_and_label():
    table = _simulated(np.array([0.3, 0.1]), 10, seed=8)
    part = take_positions(table, np.array([2, 5]))
    for mine, theirs in zip(range(2), (2, 5)):
        np.testing.assert_array_equal(
            part.features[part.starts[mine] : part.starts[mine + 1]],
            table.features[table.starts[theirs] : table.starts[theirs + 1]],
        )
        assert part.played[mine] - part.starts[mine] == table.played[theirs] - table.starts[theirs]


def test_soft_targets_of_the_true_beliefs_recover_the_weights_and_one_hot_targets_are_the_played_fit():
    truth = np.array([1.5, -1.0, 0.5, 0.0])
    table = _simulated(truth, 400, seed=1)
    beliefs = softmax_by_position(table.features @ truth, table.starts)
    np.testing.assert_allclose(fit_conditional_logit(table, penalty=0.0, targets=beliefs), truth, atol=1e-3)
    onehot = np.zeros(len(table.features))
    onehot[table.played] = 1.0
    np.testing.assert_allclose(
        fit_conditional_logit(table, penalty=1.0, targets=onehot), fit_conditional_logit(table, penalty=1.0), atol=1e-5
    )
    with pytest.raises(ValueError):
        fit_conditional_logit(table, targets=-beliefs)


def test_the_optimiser_runs_scipys_own_blas_on_one_thread_and_leaves_numpys_and_the_weights_as_they_are(
    monkeypatch,
):
    from pathlib import Path

    from threadpoolctl import ThreadpoolController

    import iam.priors.logit as logit

    def threads() -> dict[str, int]:
        return {Path(lib.filepath).parent.name: lib.num_threads for lib in ThreadpoolController().lib_controllers}

    before = threads()
    with one_thread_optimiser():
        inside = threads()
    assert threads() == before  # restored on the way out
    if "scipy.libs" in before:  # scipy's wheel brings its own BLAS: that one alone runs on one thread
        assert inside == before | {"scipy.libs": 1}
    else:
        assert inside == before
    table = _simulated(np.array([1.0, -0.5, 0.25]), 200, seed=5)
    limited = fit_conditional_logit(table, penalty=0.1)
    monkeypatch.setattr(logit, "one_thread_optimiser", contextlib.nullcontext)
    assert fit_conditional_logit(table, penalty=0.1).tobytes() == limited.tobytes()
