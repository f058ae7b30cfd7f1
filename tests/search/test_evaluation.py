"""The linear evaluator: the weighted sum of a state's features, and its refusal of mismatched lengths."""

from __future__ import annotations

import pytest

from search.evaluation import LinearEvaluator


def test_the_value_is_the_weighted_sum_of_the_features():
    evaluator = LinearEvaluator(lambda state: (state["a"], state["b"], 1.0), [2, -3, 0.5])
    assert evaluator({"a": 4, "b": 1}) == 2 * 4 - 3 * 1 + 0.5
    assert evaluator({"a": 0, "b": 0}) == 0.5
    assert evaluator({"a": -1.5, "b": 2}) == pytest.approx(-3.0 - 6.0 + 0.5)


def test_weights_are_kept_as_floats_and_shown():
    evaluator = LinearEvaluator(lambda state: (state,), [3])
    assert evaluator.weights == (3.0,) and isinstance(evaluator.weights[0], float)
    assert repr(evaluator) == "LinearEvaluator(weights=(3.0,))"
    assert evaluator(7) == 21.0


def test_no_features_and_no_weights_is_zero():
    assert LinearEvaluator(lambda state: (), []).__call__("anything") == 0


@pytest.mark.parametrize("features", [(1.0,), (1.0, 2.0, 3.0)])
def test_a_feature_count_other_than_the_weights_is_refused(features):
    evaluator = LinearEvaluator(lambda state: features, (1.0, 1.0))
    with pytest.raises(ValueError, match=f"{len(features)} features but 2 weights"):
        evaluator(None)


def test_features_are_read_each_call():
    calls = []
    evaluator = LinearEvaluator(lambda state: calls.append(state) or (state,), (10,))
    assert [evaluator(1), evaluator(2)] == [10.0, 20.0] and calls == [1, 2]
