"""The population's taste in moves: a small network fitted to masters' choices.

Search and the value network say which moves are good; masters choose among good
moves by taste, and other masters' choices are the best evidence of that taste a
laptop can carry. The policy network scores every legal move from the position
after it (as the value network sees it) plus which piece left which square and
arrived where, all from the mover's side, and is fitted so that the softmax of its
scores over a position's legal moves names the move the master chose (the
conditional logit of :mod:`iam.priors.logit`, with a hidden layer).

It is fitted on the moves of both sides of the bundled masters' *fitting* games
(training games that are not development games; no test game enters): the masters'
own and their opponents', mostly masters too (:mod:`iam.evidence.policy_data`). It is
fitted once on all of them and once without each master (no game of his file, no
move of his anywhere): the ranker of a bundled master reads the network that never
saw him, any other player's the one fitted on all six (:meth:`PolicyNets.for_player`).
``scripts/build_policy_nets.py`` rebuilds them; they ship as
``iam/priors/policy_nets.json.gz`` and run on numpy alone. Their
scores feed the family ``policy`` (:func:`policy_features`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import chess
import numpy as np
import scipy.sparse as sparse

from iam.errors import ModelFileError
from iam.games.pgn import name_matches
from iam.models.files import read_document, write_document
from iam.priors.artefacts import verified_file
from iam.priors.logit import softmax_by_position
from iam.priors.movenet import MoveNet, MoveRows, fit_move_net, layers_from_dict
from iam.priors.positions import PlayerPosition
from iam.priors.valuenet import BOARD_INPUTS, VALUE_MOVE_INPUTS, board_inputs

__all__ = [
    "POLICY_FEATURES",
    "POLICY_INPUTS",
    "POLICY_NETS_FILE",
    "PolicyNet",
    "PolicyNets",
    "PolicyTable",
    "bundled_policy_nets",
    "fit_policy_net",
    "policy_features",
    "policy_inputs",
    "policy_table",
    "require_policy_net",
]

POLICY_INPUTS = BOARD_INPUTS + 2 * 6 * 64
"""The board after the move (768), the moved piece's type on its from-square and the arriving piece's
on its to-square (384 each)."""
POLICY_FEATURES: tuple[str, ...] = ("log_belief", "best", "rank")
"""Columns of :func:`policy_features` (each prefixed ``policy_``)."""
POLICY_FORMAT = "iam-policy-nets"
POLICY_VERSION = 1
POLICY_NETS_FILE = Path(__file__).resolve().parent / "policy_nets.json.gz"


def policy_inputs(board: chess.Board, moves: Sequence[chess.Move]) -> sparse.csr_matrix:
    """One sparse row per move: :func:`~iam.priors.valuenet.board_inputs` plus the move's piece and squares.

    The from-input is ``768 + (moved piece type - 1) * 64 + from-square``, the to-input
    ``1152 + (arriving piece type - 1) * 64 + to-square`` (a promotion arrives as the
    new piece), squares mirrored when Black moves.
    """
    after = board_inputs(board, moves)
    flip = 0 if board.turn == chess.WHITE else 56
    identity = np.empty(2 * len(moves), dtype=np.int32)
    for i, move in enumerate(moves):
        moved = board.piece_type_at(move.from_square) or chess.PAWN
        identity[2 * i] = BOARD_INPUTS + (moved - 1) * 64 + (move.from_square ^ flip)
        identity[2 * i + 1] = BOARD_INPUTS + 384 + ((move.promotion or moved) - 1) * 64 + (move.to_square ^ flip)
    sizes = np.diff(after.indptr)
    indices = (
        np.concatenate(
            [
                np.concatenate([after.indices[after.indptr[i] : after.indptr[i + 1]], identity[2 * i : 2 * i + 2]])
                for i in range(len(moves))
            ]
        )
        if moves
        else np.zeros(0, np.int32)
    )
    pointers = np.concatenate([[0], np.cumsum(sizes + 2)])
    return sparse.csr_matrix(
        (np.ones(len(indices), dtype=np.float32), indices, pointers), shape=(len(moves), POLICY_INPUTS)
    )


_RECENT: OrderedDict[tuple, sparse.csr_matrix] = OrderedDict()
_RECENT_SIZE = 16


def _recent_inputs(position: PlayerPosition) -> sparse.csr_matrix:
    """:func:`policy_inputs` of ``position``, kept for the last few positions.

    Several networks often read one position in turn (one per candidate in
    identification); the inputs depend on the board and its moves only.
    """
    key = (position.board.fen(), position.moves)
    found = _RECENT.get(key)
    if found is None:
        found = _RECENT[key] = policy_inputs(position.board, position.moves)
        if len(_RECENT) > _RECENT_SIZE:
            _RECENT.popitem(last=False)
    return found


class PolicyNet(MoveNet):
    """One fitted network: scores whose softmax over the legal moves is the population's belief."""

    def log_beliefs(self, position: PlayerPosition, move_columns: Mapping[str, np.ndarray]) -> np.ndarray:
        """Log-belief of each legal move of ``position`` (``move_columns``: its move family columns)."""
        if not position.moves:
            return np.zeros(0)
        scores = self.values(
            _recent_inputs(position), np.column_stack([move_columns[name] for name in VALUE_MOVE_INPUTS])
        )
        scores = scores - scores.max()
        return scores - np.log(np.exp(scores).sum())

    def to_dict(self) -> dict:
        return {"info": dict(self.info or {}), **self.layers_dict(compact=True)}

    @classmethod
    def from_dict(cls, data: dict) -> PolicyNet:
        """ValueError when the layers do not fit this program's inputs."""
        return cls(
            **layers_from_dict(data, inputs=POLICY_INPUTS, move_inputs=len(VALUE_MOVE_INPUTS)),
            info=dict(data.get("info", {})),
        )


def policy_features(log_beliefs: np.ndarray) -> dict[str, np.ndarray]:
    """The family's columns from the network's log-beliefs of a position's moves."""
    if len(log_beliefs) == 0:
        return {f"policy_{name}": np.zeros(0) for name in POLICY_FEATURES}
    rank = (log_beliefs[None, :] > log_beliefs[:, None]).sum(axis=1)
    return {
        "policy_log_belief": np.maximum(log_beliefs, -20.0),
        "policy_best": (rank == 0).astype(np.float64),
        "policy_rank": np.log1p(rank),
    }


@dataclass(frozen=True)
class PolicyNets:
    """The networks by the master each left out (None: fitted on all masters)."""

    nets: Mapping[str | None, PolicyNet]
    info: Mapping[str, object] = field(default_factory=dict)

    def for_player(self, player: str | None) -> tuple[str | None, PolicyNet]:
        """(whom it left out, the network) that never saw ``player``.

        That is his own leave-one-out net, else the all-masters one.
        """
        for without, net in self.nets.items():
            if without is not None and player and (name_matches(player, without) or name_matches(without, player)):
                return without, net
        if None not in self.nets:
            raise ValueError("the policy networks hold no network fitted on all masters")
        return None, self.nets[None]

    def to_dict(self) -> dict:
        return {
            "format": POLICY_FORMAT,
            "version": POLICY_VERSION,
            "inputs": {"board": POLICY_INPUTS, "move": list(VALUE_MOVE_INPUTS)},
            "info": dict(self.info),
            "nets": [{"without": without, **net.to_dict()} for without, net in self.nets.items()],
        }

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "policy networks") -> PolicyNets:
        """Networks from :meth:`to_dict`'s content; ModelFileError if they are not."""
        try:
            if data.get("format") != POLICY_FORMAT or data.get("version") != POLICY_VERSION:
                raise ValueError(f"not policy networks of version {POLICY_VERSION}")
            if data["inputs"] != {"board": POLICY_INPUTS, "move": list(VALUE_MOVE_INPUTS)}:
                raise ValueError("their inputs are not the ones this program computes")
            nets: dict[str | None, PolicyNet] = {}
            for entry in data["nets"]:
                without = entry["without"]
                if without is not None and not isinstance(without, str) or without in nets:
                    raise ValueError("each network must leave out a different master (or none)")
                nets[without] = PolicyNet.from_dict(entry)
            if None not in nets:
                raise ValueError("no network is fitted on all masters")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelFileError(f"{source} is malformed: {exc}") from None
        return cls(nets=nets, info=dict(data.get("info", {})))

    def save(self, path: str | Path) -> None:
        write_document(self.to_dict(), path)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNets:
        return cls.from_dict(read_document(path), source=f"policy networks {path}")


@dataclass(frozen=True)
class PolicyTable(MoveRows):
    """Training data: inputs of every legal move, positions' row ranges, the row played in each position."""

    played: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def policy_table(rows: Sequence[tuple[sparse.csr_matrix, np.ndarray, int]]) -> PolicyTable:
    """Stack per-position (policy inputs, move inputs, index of the played move) into one table."""
    sizes = [boards.shape[0] for boards, _, _ in rows]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return PolicyTable(
        boards=sparse.vstack([boards for boards, _, _ in rows], format="csr"),
        moves=np.concatenate([moves for _, moves, _ in rows]).astype(np.float32),
        starts=starts,
        played=starts[:-1] + np.array([played for _, _, played in rows], dtype=np.int64),
    )


def fit_policy_net(
    table: PolicyTable,
    *,
    hidden: int = 128,
    epochs: int = 6,
    batch_positions: int = 1024,
    learning_rate: float = 2e-3,
    l2: float = 1e-6,
    random_state: int = 0,
) -> PolicyNet:
    """Fit the network to the played moves by Adam on the log loss of the softmax per position."""
    within = table.played - table.starts[:-1]

    def slope(scores: np.ndarray, chosen: np.ndarray, starts: np.ndarray) -> np.ndarray:
        change = softmax_by_position(scores, starts)
        change[starts[:-1] + within[chosen]] -= 1.0
        return change / len(chosen)

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
    info = {"positions": table.positions, "hidden": hidden, "epochs": epochs}
    return PolicyNet(hidden=net.hidden, bias=net.bias, output=net.output, move_weights=net.move_weights, info=info)


@cache
def bundled_policy_nets() -> PolicyNets | None:
    """The shipped policy networks, or None when the file is not installed (read once per process)."""
    return PolicyNets.load(verified_file(POLICY_NETS_FILE.name)) if POLICY_NETS_FILE.is_file() else None


def require_policy_net(player: str | None) -> tuple[str | None, PolicyNet]:
    """(whom it left out, the shipped network that never saw ``player``); ValueError when none is installed."""
    nets = bundled_policy_nets()
    if nets is None:
        raise ValueError(
            f"the policy family needs the policy networks ({POLICY_NETS_FILE.name}), which are not installed"
        )
    return nets.for_player(player)
