"""A learned evaluation of every legal move: a small network distilled from a UCI engine.

This project's search scores moves with piece-square tables: it knows material and
squares, little of chess. An engine's evaluation knows much more, and its depth-1
scores of every move name a master's choice far more often than ours do; but an engine
is not always at hand. The value network carries part of that judgement in a few
hundred kilobytes of numbers: one hidden layer over the position after the move (which
piece stands on which square, seen from the mover's side: 768 inputs) plus a few
exchange facts about the move itself, trained to reproduce a UCI engine's depth-1
score of every legal move (less the position's mean, so that it learns how moves
differ, not who is winning), in positions of the bundled masters' fitting games
(``scripts/build_value_net.py``, which needs the engine; the network ships fitted as
``iam/priors/value_net.json.gz`` and runs on numpy alone). Its scores feed the same
features as any search (:mod:`iam.evidence.scorefeatures`) as the family ``value``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import chess
import numpy as np
import scipy.sparse as sparse

from iam.errors import ModelFileError
from iam.models.files import read_document, write_document
from iam.priors.artefacts import verified_file
from iam.priors.movenet import MoveNet, MoveRows, fit_move_net, layers_from_dict, position_slices
from iam.priors.positions import PlayerPosition

__all__ = [
    "VALUE_MOVE_INPUTS",
    "ValueNet",
    "ValueTable",
    "board_inputs",
    "value_table",
    "fit_value_net",
    "bundled_value_net",
    "require_value_net",
    "VALUE_NET_FILE",
]

BOARD_INPUTS = 12 * 64
"""One input per (own or opponent's piece type, square), squares from the mover's side."""
VALUE_MOVE_INPUTS: tuple[str, ...] = (
    "exchange_gain",
    "exchange_loss",
    "left_en_prise",
    "rescued",
    "check",
    "captured_value",
    "castle",
    "promotion",
)
"""Columns of the move family the network also reads (what the board after the move hides: a pending exchange)."""
VALUE_NET_FORMAT = "iam-value-net"
VALUE_NET_VERSION = 1
VALUE_NET_FILE = Path(__file__).resolve().parent / "value_net.json.gz"


def board_inputs(board: chess.Board, moves: Sequence[chess.Move]) -> sparse.csr_matrix:
    """One sparse row per move: the pieces on the board after it, from the mover's side.

    An input is ``(own 0 / opponent 6 + piece type - 1) * 64 + square``, the square's rank
    mirrored when Black moves, so that White's and Black's positions share inputs.
    """
    mover = board.turn
    flip = 0 if mover == chess.WHITE else 56
    before = {
        square: ((0 if piece.color == mover else 6) + piece.piece_type - 1) * 64
        for square, piece in board.piece_map().items()
    }
    indices: list[int] = []
    pointers = [0]
    for move in moves:
        if board.is_capture(move) or board.is_castling(move) or move.promotion:
            board.push(move)
            pieces = {
                square: ((0 if piece.color == mover else 6) + piece.piece_type - 1) * 64
                for square, piece in board.piece_map().items()
            }
            board.pop()
        else:  # one piece changes square
            pieces = dict(before)
            pieces[move.to_square] = pieces.pop(move.from_square)
        indices.extend(base + (square ^ flip) for square, base in pieces.items())
        pointers.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return sparse.csr_matrix(
        (data, np.asarray(indices, dtype=np.int32), np.asarray(pointers)), shape=(len(moves), BOARD_INPUTS)
    )


class ValueNet(MoveNet):
    """The fitted network: ``score = relu(board @ hidden + bias) @ output + move @ move_weights`` (pawns)."""

    def scores(self, position: PlayerPosition, move_columns: Mapping[str, np.ndarray]) -> dict[chess.Move, float]:
        """Centipawns per legal move of ``position`` (only differences between moves mean something)."""
        if not position.moves:
            return {}
        values = self.values(
            board_inputs(position.board, position.moves),
            np.column_stack([move_columns[name] for name in VALUE_MOVE_INPUTS]),
        )
        return dict(zip(position.moves, (100.0 * values).tolist()))

    def to_dict(self) -> dict:
        """JSON-ready content (weights rounded to 6 significant digits)."""
        return {
            "format": VALUE_NET_FORMAT,
            "version": VALUE_NET_VERSION,
            "inputs": {"board": BOARD_INPUTS, "move": list(VALUE_MOVE_INPUTS)},
            "info": dict(self.info or {}),
            **self.layers_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "value network") -> ValueNet:
        """A network from :meth:`to_dict`'s content; ModelFileError if it is not one."""
        try:
            if data.get("format") != VALUE_NET_FORMAT or data.get("version") != VALUE_NET_VERSION:
                raise ValueError(f"not a value network of version {VALUE_NET_VERSION}")
            if data["inputs"] != {"board": BOARD_INPUTS, "move": list(VALUE_MOVE_INPUTS)}:
                raise ValueError("its inputs are not the ones this program computes")
            layers = layers_from_dict(data, inputs=BOARD_INPUTS, move_inputs=len(VALUE_MOVE_INPUTS))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelFileError(f"{source} is malformed: {exc}") from None
        return cls(**layers, info=dict(data.get("info", {})))

    def save(self, path: str | Path) -> None:
        write_document(self.to_dict(), path)

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        return cls.from_dict(read_document(path), source=f"value network {path}")


@dataclass(frozen=True)
class ValueTable(MoveRows):
    """Training data: board and move inputs of every legal move, positions' row ranges, the engine's score (pawns)."""

    targets: np.ndarray = field(default_factory=lambda: np.zeros(0))


def value_table(rows: Sequence[tuple[sparse.csr_matrix, np.ndarray, np.ndarray]]) -> ValueTable:
    """Stack per-position (board inputs, move inputs, engine scores in pawns) into one table."""
    sizes = [len(targets) for _, _, targets in rows]
    return ValueTable(
        boards=sparse.vstack([boards for boards, _, _ in rows], format="csr"),
        moves=np.concatenate([moves for _, moves, _ in rows]).astype(np.float32),
        targets=np.concatenate([targets for _, _, targets in rows]).astype(np.float32),
        starts=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
    )


def _centre(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each position's values less their mean."""
    sizes = np.diff(starts)
    return values - np.repeat(np.add.reduceat(values, starts[:-1]) / sizes, sizes)


def fit_value_net(
    table: ValueTable,
    *,
    hidden: int = 256,
    epochs: int = 30,
    batch_positions: int = 2048,
    learning_rate: float = 3e-3,
    loss_floor: float = 3.0,
    huber: float = 1.0,
    l2: float = 1e-5,
    random_state: int = 0,
) -> ValueNet:
    """Fit the network to the engine's scores by Adam on a Huber loss of centred scores.

    Targets more than ``loss_floor`` pawns below the position's best move are raised
    to that floor: among bad moves the exact size of the blunder matters little to
    whom we predict, and the network's capacity goes to the moves that compete.
    """
    sizes = np.diff(table.starts)
    best = np.repeat(np.maximum.reduceat(table.targets, table.starts[:-1]), sizes)
    targets = np.maximum(table.targets, best - loss_floor)

    def slope(scores: np.ndarray, chosen: np.ndarray, starts: np.ndarray) -> np.ndarray:
        rows, _ = position_slices(table.starts, chosen)
        error = _centre(scores, starts) - _centre(targets[rows], starts)
        return _centre(np.clip(error, -huber, huber) / len(chosen), starts)

    net = fit_move_net(
        table,
        slope,
        hidden=hidden,
        epochs=epochs,
        batch_positions=batch_positions,
        learning_rate=learning_rate,
        l2=l2,
        random_state=random_state,
    )
    info = {
        "positions": table.positions,
        "moves": int(len(table.targets)),
        "hidden": hidden,
        "epochs": epochs,
        "loss_floor": loss_floor,
    }
    return ValueNet(hidden=net.hidden, bias=net.bias, output=net.output, move_weights=net.move_weights, info=info)


@cache
def bundled_value_net() -> ValueNet | None:
    """The shipped value network, or None when the file is not installed (read once per process)."""
    return ValueNet.load(verified_file(VALUE_NET_FILE.name)) if VALUE_NET_FILE.is_file() else None


def require_value_net() -> ValueNet:
    """The shipped value network; ValueError when it is not installed."""
    net = bundled_value_net()
    if net is None:
        raise ValueError(f"the value family needs the value network ({VALUE_NET_FILE.name}), which is not installed")
    return net
