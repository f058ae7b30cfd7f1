"""The shared move network: its score formula, its layers on file and back, position batches and the Adam fit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse

from iam.priors.movenet import MoveNet, MoveRows, fit_move_net, layers_from_dict, position_slices


def _net(**info) -> MoveNet:
    """Three sparse inputs, two hidden units, two move inputs: small enough to compute by hand."""
    return MoveNet(
        hidden=np.array([[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]], dtype=np.float32),
        bias=np.array([0.5, -0.25], dtype=np.float32),
        output=np.array([2.0, 4.0], dtype=np.float32),
        move_weights=np.array([0.1, -3.0]),
        info=info or None,
    )


def test_values_are_relu_of_the_hidden_layer_plus_the_linear_move_term():
    """Hand-computed: row 0 has inputs 0 and 1 on, row 1 input 2, row 2 nothing."""
    boards = sparse.csr_matrix(np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.float32))
    moves = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    # row 0: hidden = [1+2+0.5, -1+0.5-0.25] = [3.5, -0.75] -> relu [3.5, 0] -> 7.0; move 0.1 -> 7.1
    # row 1: hidden = [0+0.5, 1-0.25] = [0.5, 0.75] -> 1 + 3 = 4.0; move -3.0 -> 1.0
    # row 2: hidden = [0.5, -0.25] -> relu [0.5, 0] -> 1.0; move 0.2 - 6 = -5.8 -> -4.8
    np.testing.assert_allclose(_net().values(boards, moves), [7.1, 1.0, -4.8], rtol=1e-6)


def test_the_fingerprint_is_a_short_hash_of_the_weights_only():
    first, same, other = _net(), _net(epochs=3), _net()
    assert len(first.fingerprint) == 16 and int(first.fingerprint, 16) >= 0
    assert first.fingerprint == same.fingerprint  # info is not part of it
    changed = MoveNet(other.hidden, other.bias, other.output, np.array([0.1, -3.5]))
    assert changed.fingerprint != first.fingerprint


def test_the_layers_on_file_come_back_as_the_same_arrays():
    """layers_dict then layers_from_dict: the same numbers, the declared dtypes, a network scoring alike."""
    net = _net()
    layers = layers_from_dict(net.layers_dict(), inputs=3, move_inputs=2)
    for name in ("hidden", "bias", "output", "move_weights"):
        np.testing.assert_array_equal(layers[name], getattr(net, name))
    assert layers["hidden"].dtype == np.float32 and layers["move_weights"].dtype == np.float64
    assert MoveNet(**layers).fingerprint == net.fingerprint


def test_weights_are_rounded_to_six_significant_digits():
    net = MoveNet(np.array([[1.23456789]], np.float32), np.array([0.0], np.float32),
                  np.array([-9.87654321e-5], np.float32), np.array([123456.789]))
    stored = net.layers_dict()
    assert stored["hidden"] == [[1.23457]] and stored["output"] == [-9.87654e-05] and stored["move_weights"] == [
        123457.0
    ]


def test_the_compact_form_keeps_the_hidden_layer_at_half_precision():
    """The compact hidden layer is float16 in base64 with its shape; the small layers stay lists."""
    rng = np.random.default_rng(0)
    hidden = rng.standard_normal((5, 3)).astype(np.float32)
    net = MoveNet(hidden, np.zeros(3, np.float32), np.ones(3, np.float32), np.zeros(2))
    stored = net.layers_dict(compact=True)
    assert stored["hidden"]["shape"] == [5, 3] and isinstance(stored["hidden"]["float16"], str)
    assert stored["output"] == [1.0, 1.0, 1.0]
    back = layers_from_dict(stored, inputs=5, move_inputs=2)["hidden"]
    np.testing.assert_array_equal(back, hidden.astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(back, hidden, rtol=1e-3)


@pytest.mark.parametrize(
    "change, inputs, move_inputs, message",
    [
        ({}, 4, 2, "do not fit together"),  # one input more than the hidden layer's rows
        ({"bias": [0.0]}, 3, 2, "do not fit together"),
        ({"output": [1.0, 2.0, 3.0]}, 3, 2, "do not fit together"),
        ({"hidden": [1.0, 2.0, 3.0]}, 3, 2, "do not fit together"),  # not a matrix
        ({}, 3, 3, "move weights do not match"),
        ({"bias": [float("nan"), 0.0]}, 3, 2, "finite numbers of at most 10000"),
        ({"move_weights": [1e5, 0.0]}, 3, 2, "finite numbers of at most 10000"),
        ({"output": [float("inf"), 0.0]}, 3, 2, "finite numbers"),
    ],
)
def test_layers_that_do_not_fit_are_a_value_error(change, inputs, move_inputs, message):
    data = {**_net().layers_dict(), **change}
    with pytest.raises(ValueError, match=message):
        layers_from_dict(data, inputs=inputs, move_inputs=move_inputs)


def test_a_compact_layer_whose_numbers_do_not_match_its_shape_is_refused():
    stored = _net().layers_dict(compact=True)
    stored["hidden"] = {**stored["hidden"], "shape": [4, 2]}
    with pytest.raises(ValueError, match="does not hold as many numbers as its shape says"):
        layers_from_dict(stored, inputs=4, move_inputs=2)
    stored["hidden"] = {"float16": "not base64!", "shape": [3, 2]}
    with pytest.raises(ValueError):
        layers_from_dict(stored, inputs=3, move_inputs=2)


def test_position_slices_gather_the_rows_of_the_chosen_positions():
    """Positions of 2, 3 and 1 rows (starts 0, 2, 5, 6): hand-listed rows and restarted starts."""
    starts = np.array([0, 2, 5, 6])
    rows, local = position_slices(starts, np.array([0, 2]))
    assert rows.tolist() == [0, 1, 5] and local.tolist() == [0, 2, 3]
    rows, local = position_slices(starts, np.array([1]))
    assert rows.tolist() == [2, 3, 4] and local.tolist() == [0, 3]
    rows, local = position_slices(starts, np.array([], dtype=np.int64))
    assert rows.tolist() == [] and local.tolist() == [0] and local.dtype == np.int64
    assert MoveRows(sparse.csr_matrix((6, 1)), np.zeros((6, 1)), starts).positions == 3


def _rows(positions: int = 30, per: int = 4, seed: int = 1) -> tuple[MoveRows, np.ndarray]:
    """Random one-hot rows whose target score is a fixed linear function of the inputs."""
    rng = np.random.default_rng(seed)
    count = positions * per
    boards = sparse.csr_matrix((rng.random((count, 6)) < 0.4).astype(np.float32))
    moves = rng.standard_normal((count, 2))
    target = boards @ np.array([1.0, -1.0, 0.5, 0.0, 2.0, -0.5]) + moves @ np.array([1.5, -1.0])
    return MoveRows(boards, moves, np.arange(0, count + 1, per)), np.asarray(target)


def test_the_fit_lowers_a_squared_loss_and_is_deterministic_for_a_seed():
    rows, target = _rows()
    calls = []

    def slope(scores, chosen, starts):
        taken, _ = position_slices(rows.starts, chosen)
        calls.append(len(chosen))
        return scores - target[taken]  # d/dscore of half the squared error

    settings = dict(hidden=8, epochs=60, batch_positions=8, learning_rate=0.03, l2=0.0)
    net = fit_move_net(rows, slope, random_state=3, **settings)
    assert calls[:4] == [8, 8, 8, 6]  # 30 positions by batches of 8: every position once an epoch
    assert sum(calls) == 60 * 30
    untrained = fit_move_net(rows, slope, random_state=3, **{**settings, "epochs": 0})
    error = np.mean((net.values(rows.boards, rows.moves) - target) ** 2)
    before = np.mean((untrained.values(rows.boards, rows.moves) - target) ** 2)
    assert error < 0.1 * before
    again = fit_move_net(rows, slope, random_state=3, **settings)
    assert again.fingerprint == net.fingerprint
    assert fit_move_net(rows, slope, random_state=4, **settings).fingerprint != net.fingerprint
    assert net.hidden.shape == (6, 8) and net.bias.shape == (8,) and net.move_weights.dtype == np.float64
