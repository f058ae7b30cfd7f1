"""iam.jsonsafe.finite: JSON-safe copies of nested results (NaN and infinities to None, numpy to plain)."""

import json
import math

import numpy as np

from iam.jsonsafe import finite


def test_non_finite_floats_become_none_at_any_depth():
    value = {"a": math.nan, "b": [1.0, math.inf, {"c": -math.inf, "d": (2.5, math.nan)}]}
    assert finite(value) == {"a": None, "b": [1.0, None, {"c": None, "d": [2.5, None]}]}


def test_numpy_scalars_become_plain_numbers():
    out = finite({"i": np.int64(3), "f": np.float32(0.5), "n": np.float64("nan"), "b": np.bool_(True)})
    assert out == {"i": 3, "f": 0.5, "n": None, "b": True}
    assert type(out["i"]) is int and type(out["f"]) is float and type(out["b"]) is bool


def test_the_result_is_strict_json_and_the_input_is_unchanged():
    value = {"x": [math.nan, np.int32(1)], "s": "nan", "none": None}
    safe = finite(value)
    assert json.loads(json.dumps(safe, allow_nan=False)) == {"x": [None, 1], "s": "nan", "none": None}
    assert math.isnan(value["x"][0])


def test_plain_values_pass_through():
    assert finite("text") == "text" and finite(7) == 7 and finite(None) is None and finite(-0.0) == 0.0
