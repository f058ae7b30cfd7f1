"""Fitting the cheap reply policy a search reads at the modelled player's interior nodes.

The policy itself (its inputs and how beliefs are read from its weights) lives with the
fast board, in :mod:`search.chess.replies`: the search evaluates it thousands of times
a move. Here its weights are learned from a player's games, as the ranker's are: a
conditional logit over each position's legal moves (:mod:`iam.priors.logit`), with a
sparse input matrix, L2-penalised towards zero.

:func:`distil_reply_policy` fits the same policy to a richer model's beliefs instead
(the player's move ranker, say, whose features search every move): the targets are
the teacher's beliefs over each position's legal moves, mixed with the move played.
The policy then imitates the ranker where the search can afford only the policy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sparse

from iam.priors.logit import MoveTable, fit_conditional_logit
from iam.priors.positions import PlayerPosition
from search.chess.board import Position, from_move, to_move
from search.chess.replies import REPLY_INPUTS, ReplyPolicy, reply_inputs
from search.opponent.predictor import MovePredictor

__all__ = [
    "reply_table",
    "fit_reply_policy",
    "distil_reply_policy",
    "teacher_targets",
    "REPLY_PENALTY",
    "REPLY_POSITIONS",
]

REPLY_POSITIONS = 6000
"""The positions the exploitation experiment fits the policy on when its engines use it
(``MoveRanker(reply_positions=...)``), chosen on development positions
(``docs/results/exploitation.md``)."""

REPLY_PENALTY = 1.0
"""The L2 penalty of the fit, chosen on development positions (penalties 1 to 30 tried)."""


def reply_table(positions: Sequence[PlayerPosition]) -> MoveTable:
    """The policy's inputs for every legal move of ``positions`` (those whose played move is legal)."""
    rows, columns, values, starts, played = [], [], [], [0], []
    count = 0
    for position in positions:
        if position.played_move is None:
            continue
        fast = Position.from_board(position.board)
        moves = fast.legal_moves()
        target = from_move(position.played_move)
        if target not in moves:
            continue
        active, gains = reply_inputs(fast, moves)
        for number, (inputs, gain) in enumerate(zip(active, gains)):
            rows.extend([count + number] * (len(inputs) + 1))
            columns.extend([*inputs, REPLY_INPUTS - 1])
            values.extend([1.0] * len(inputs) + [gain])
        played.append(count + moves.index(target))
        count += len(moves)
        starts.append(count)
    features = sparse.csr_matrix((values, (rows, columns)), shape=(count, REPLY_INPUTS))
    return MoveTable(features, np.asarray(starts, dtype=np.int64), np.asarray(played, dtype=np.int64))


def fit_reply_policy(positions: Sequence[PlayerPosition], *, penalty: float = REPLY_PENALTY) -> ReplyPolicy:
    """A :class:`~search.chess.replies.ReplyPolicy` fitted to the moves played in ``positions``."""
    return ReplyPolicy(fit_conditional_logit(reply_table(positions), penalty=penalty).tolist())


def _usable(position: PlayerPosition) -> bool:
    """The table keeps a position when its played move is legal there."""
    return position.played_move is not None and position.played_move in position.board.legal_moves


def teacher_targets(positions: Sequence[PlayerPosition], teacher: MovePredictor, *, share: float = 1.0) -> np.ndarray:
    """Per row of :func:`reply_table` of ``positions``: ``share`` of the teacher's belief, the rest on the move played.

    The teacher's beliefs are renormalised over the legal moves (uniform where it
    predicts nothing).
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be in [0, 1], got {share}")
    targets = []
    for position in positions:
        if not _usable(position):
            continue
        moves = Position.from_board(position.board).legal_moves()
        beliefs = teacher.predict_proba(position.board) if share > 0 else {}
        row = np.array([beliefs.get(to_move(move), 0.0) for move in moves], dtype=np.float64)
        row = row / row.sum() if row.sum() > 0 else np.full(len(moves), 1.0 / len(moves))
        played = np.zeros(len(moves))
        played_move = position.played_move
        assert played_move is not None  # a usable position has its move
        played[moves.index(from_move(played_move))] = 1.0
        targets.append(share * row + (1.0 - share) * played)
    return np.concatenate(targets) if targets else np.zeros(0)


def distil_reply_policy(
    positions: Sequence[PlayerPosition], teacher: MovePredictor, *, share: float = 1.0, penalty: float = REPLY_PENALTY,
) -> ReplyPolicy:
    """A reply policy fitted to ``teacher``'s beliefs on ``positions``.

    ``share`` of the target is the teacher's belief, the rest the move played.
    """
    kept = [position for position in positions if _usable(position)]
    table = reply_table(kept)
    return ReplyPolicy(
        fit_conditional_logit(table, penalty=penalty, targets=teacher_targets(kept, teacher, share=share)).tolist()
    )
