"""The small network the learned move scorers share, and how it is fitted.

A move's score is ``relu(inputs @ hidden + bias) @ output + move @ move_weights``:
one hidden layer over sparse one-hot inputs describing the position after the move
(which piece stands where, from the mover's side), plus a linear term over a few
dense facts about the move itself. The value network (:mod:`iam.priors.valuenet`)
fits it to an engine's scores, the policy network (:mod:`iam.priors.policynet`) to
masters' choices; both are fitted by Adam over batches of whole positions, because
both losses compare the moves of one position with each other. Numpy and scipy only.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sparse

__all__ = ["MoveNet", "MoveRows", "fit_move_net", "layers_from_dict", "position_slices"]

_MAX_WEIGHT = 1e4

Slope = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""(scores of a batch's rows, the batch's position numbers, the batch's row starts) -> d loss / d score."""


@dataclass(frozen=True)
class MoveNet:
    """The fitted layers (``info`` says how they were fitted)."""

    hidden: np.ndarray
    bias: np.ndarray
    output: np.ndarray
    move_weights: np.ndarray
    info: Mapping[str, object] | None = None

    @cached_property
    def fingerprint(self) -> str:
        """A short hash of the weights: a ranker records which network its weights were fitted with."""
        digest = hashlib.sha256()
        for array in (self.hidden, self.bias, self.output, self.move_weights):
            digest.update(np.ascontiguousarray(array, dtype=np.float32).tobytes())
        return digest.hexdigest()[:16]

    def values(self, boards: sparse.csr_matrix, moves: np.ndarray) -> np.ndarray:
        """The network's score for rows of sparse inputs and dense move inputs."""
        hidden = np.maximum(boards @ self.hidden + self.bias, 0.0)
        return hidden @ self.output + moves @ self.move_weights

    def layers_dict(self, *, compact: bool = False) -> dict:
        """The layers as JSON-ready lists (weights rounded to 6 significant digits).

        ``compact`` stores the large hidden layer as half-precision numbers in base64
        (about three significant digits, a quarter of the text): for files that hold
        several networks.
        """

        def rounded(array: np.ndarray) -> list:
            return np.vectorize(lambda x: float(f"{x:.6g}"))(array).tolist() if array.size else []

        hidden = (
            {
                "float16": base64.b64encode(self.hidden.astype("<f2").tobytes()).decode("ascii"),
                "shape": list(self.hidden.shape),
            }
            if compact
            else rounded(self.hidden)
        )
        return {
            "hidden": hidden,
            "bias": rounded(self.bias),
            "output": rounded(self.output),
            "move_weights": rounded(self.move_weights),
        }


def layers_from_dict(data: dict, *, inputs: int, move_inputs: int) -> dict:
    """Checked layer arrays from :meth:`MoveNet.layers_dict`'s content; ValueError if they do not fit."""
    hidden = _array(data["hidden"])
    width = hidden.shape[1] if hidden.ndim == 2 else -1
    layers = {
        "hidden": hidden,
        "bias": np.asarray(data["bias"], dtype=np.float32),
        "output": np.asarray(data["output"], dtype=np.float32),
        "move_weights": np.asarray(data["move_weights"], dtype=np.float64),
    }
    if hidden.shape != (inputs, width) or layers["bias"].shape != (width,) or layers["output"].shape != (width,):
        raise ValueError("its layers do not fit together")
    if layers["move_weights"].shape != (move_inputs,):
        raise ValueError("its move weights do not match its move inputs")
    if not all(np.all(np.isfinite(a)) and np.all(np.abs(a) <= _MAX_WEIGHT) for a in layers.values()):
        raise ValueError(f"its weights must be finite numbers of at most {_MAX_WEIGHT:g} in size")
    return layers


def _array(stored: object) -> np.ndarray:
    """A float32 array from a list of numbers or from :meth:`MoveNet.layers_dict`'s compact form."""
    if isinstance(stored, dict):
        shape = tuple(int(n) for n in stored["shape"])
        raw = np.frombuffer(base64.b64decode(stored["float16"], validate=True), dtype="<f2")
        if raw.size != int(np.prod(shape)):
            raise ValueError("its compact layer does not hold as many numbers as its shape says")
        return raw.astype(np.float32).reshape(shape)
    return np.asarray(stored, dtype=np.float32)


@dataclass(frozen=True)
class MoveRows:
    """Training rows: sparse inputs and move inputs of every legal move, positions' row ranges."""

    boards: sparse.csr_matrix
    moves: np.ndarray
    starts: np.ndarray

    @property
    def positions(self) -> int:
        return len(self.starts) - 1


def position_slices(starts: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the ``chosen`` positions (in order) and their starts within those rows."""
    sizes = np.diff(starts)[chosen]
    rows = (
        np.concatenate([np.arange(starts[i], starts[i + 1]) for i in chosen]) if len(chosen) else np.zeros(0, np.int64)
    )
    return rows, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def fit_move_net(
    rows: MoveRows,
    slope: Slope,
    *,
    hidden: int,
    epochs: int,
    batch_positions: int,
    learning_rate: float,
    l2: float,
    random_state: int,
) -> MoveNet:
    """Fit the layers by Adam: ``slope`` gives the loss's derivative by each row's score.

    Each epoch visits the positions in a seeded random order, ``batch_positions`` at a
    time; deterministic for a fixed seed.
    """
    rng = np.random.default_rng(random_state)
    params = [
        (rng.standard_normal((rows.boards.shape[1], hidden)) * 0.05).astype(np.float32),
        np.zeros(hidden, dtype=np.float32),
        (rng.standard_normal(hidden) * 0.05).astype(np.float32),
        np.zeros(rows.moves.shape[1], dtype=np.float32),
    ]
    first, second = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(rows.positions)
        for begin in range(0, rows.positions, batch_positions):
            chosen = np.sort(order[begin : begin + batch_positions])
            taken, starts = position_slices(rows.starts, chosen)
            boards, moves = rows.boards[taken], rows.moves[taken]
            activity = np.maximum(boards @ params[0] + params[1], 0.0)
            change = slope(activity @ params[2] + moves @ params[3], chosen, starts).astype(np.float32)
            through = np.outer(change, params[2]) * (activity > 0)
            grads = [
                np.asarray(boards.T @ through) + l2 * params[0],
                through.sum(axis=0),
                activity.T @ change + l2 * params[2],
                moves.T @ change,
            ]
            step += 1
            for p, g, m, v in zip(params, grads, first, second):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= (
                    learning_rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
                ).astype(np.float32)
    return MoveNet(hidden=params[0], bias=params[1], output=params[2], move_weights=params[3].astype(np.float64))
