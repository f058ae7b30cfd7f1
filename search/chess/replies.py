"""His likely replies inside the tree: a move policy cheap enough for interior nodes.

The move ranker costs milliseconds a position (it searches every move one ply for its
features), so a search can ask it only at the root's children. Deeper in the tree a
search that wants to spend its nodes on the lines the modelled player is likely to
choose needs a policy that costs about what a few search nodes cost. This one is a
conditional logit over features the fast board gives almost for free, all from the
mover's side (squares mirrored when Black moves):

* the moved piece's type on its to-square and on its from-square (his habits of
  where pieces go and which ones move: 2 x 384 one-hot inputs);
* the type of the piece it captures, a queen promotion;
* whether the to-square is attacked by the other side, by moved piece type (moving a
  piece into an attack), and whether the from-square is (moving it out of one);
* the piece-square gain of the move by the core's middlegame table.

Its weights are fitted on a player's games by the model layer
(:func:`iam.ranker.replytable.fit_reply_policy`); here they are only read. It is good
enough to say which moves he will hardly play, not which one he will (its accuracy is in
``docs/results/exploitation.md``).

:class:`ReplyPolicy` gives the beliefs over a fast :class:`~search.chess.board.Position`'s
pseudo-legal moves and, for the selective search of :mod:`search.chess.engine`, the
quiet moves it believes less than a threshold (:meth:`ReplyPolicy.unlikely`), kept by
position key so that iterative deepening asks once per position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import chess
import numpy as np

from search.chess.board import SQUARES, Position, to_move
from search.chess.pst import MG_TABLE

__all__ = ["ReplyPolicy", "REPLY_INPUTS", "reply_inputs"]

_TO, _FROM, _VICTIM, _PROMOTION, _INTO_ATTACK, _OUT_OF_ATTACK, _GAIN = 0, 384, 768, 774, 775, 781, 787
REPLY_INPUTS = 788
"""Number of inputs: 384 + 384 piece-square, 6 victims, a promotion, 6 + 6 attack flags, the table gain."""


def _square64() -> tuple[int, ...]:
    """Per mailbox square: its index 0-63 in :data:`SQUARES` (0 off the board)."""
    table = [0] * 120
    for index, mailbox in enumerate(SQUARES):
        table[mailbox] = index
    return tuple(table)


_SQUARE64 = _square64()


def reply_inputs(position: Position, moves: Sequence[int]) -> tuple[list[tuple[int, ...]], list[float]]:
    """Per move: its active one-hot inputs and its table gain (pawns), from the mover's side."""
    board = position.board
    side = position.side
    mirror = 56 if side else 0
    sign = -1 if side else 1
    enemy = 1 - side
    attacked: dict[int, bool] = {}
    rows: list[tuple[int, ...]] = []
    gains: list[float] = []
    for move in moves:
        frm, to, promotion = move & 127, move >> 7 & 127, move >> 14
        piece = board[frm]
        kind = piece * sign - 1
        victim = board[to]
        active = [_TO + kind * 64 + (_SQUARE64[to] ^ mirror), _FROM + kind * 64 + (_SQUARE64[frm] ^ mirror)]
        if victim:
            active.append(_VICTIM + victim * -sign - 1)
        if promotion == 5:
            active.append(_PROMOTION)
        into = attacked.get(to)
        if into is None:
            into = attacked[to] = position.attacked(to, enemy)
        if into:
            active.append(_INTO_ATTACK + kind)
        out = attacked.get(frm)
        if out is None:
            out = attacked[frm] = position.attacked(frm, enemy)
        if out:
            active.append(_OUT_OF_ATTACK + kind)
        rows.append(tuple(active))
        gains.append(sign * (MG_TABLE[piece][to] - MG_TABLE[piece][frm]) / 100.0)
    return rows, gains


class ReplyPolicy:
    """Beliefs over a fast position's moves from fitted weights (:data:`REPLY_INPUTS` of them).

    ``cache_size`` bounds the positions whose unlikely moves are kept (emptied when full).
    """

    def __init__(self, weights: Sequence[float], *, cache_size: int = 50_000) -> None:
        array = np.asarray(weights, dtype=np.float64)
        if array.shape != (REPLY_INPUTS,) or not np.all(np.isfinite(array)):
            raise ValueError(f"a reply policy needs {REPLY_INPUTS} finite weights, got shape {array.shape}")
        self.weights = array
        self._weights = array.tolist()
        self.cache_size = cache_size
        self._unlikely: dict[tuple[int, float], frozenset[int]] = {}
        self.asked = 0
        """Positions whose moves were scored (cache misses), for the cost report."""

    def log_beliefs(self, position: Position, moves: Sequence[int]) -> list[float]:
        """Log-belief of each of ``moves`` (the mover's moves in ``position``), normalised over them."""
        if not moves:
            return []
        weights = self._weights
        gain = weights[_GAIN]
        rows, gains = reply_inputs(position, moves)
        scores = [sum(weights[i] for i in row) + gain * g for row, g in zip(rows, gains)]
        peak = max(scores)
        norm = peak + math.log(sum(math.exp(s - peak) for s in scores))
        return [s - norm for s in scores]

    def position_beliefs(self, position: Position) -> dict[int, float]:
        """Belief of each legal move of ``position`` (a :class:`~search.chess.guided.PositionPredictor`)."""
        self.asked += 1
        moves = position.legal_moves()
        return {move: math.exp(belief) for move, belief in zip(moves, self.log_beliefs(position, moves))}

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        """Belief of each legal move of ``board`` (a :class:`~search.opponent.predictor.MovePredictor`)."""
        beliefs = self.position_beliefs(Position.from_board(board))
        return {to_move(move): belief for move, belief in beliefs.items()}

    def unlikely(self, position: Position, below: float) -> frozenset[int]:
        """The quiet moves (no capture, no promotion) believed less than ``below``, legal or not.

        Beliefs are normalised over the legal moves; kept by (position key, threshold).
        """
        key = (position.key, below)
        found = self._unlikely.get(key)
        if found is not None:
            return found
        self.asked += 1
        moves = position.legal_moves()
        board = position.board
        limit = math.log(below) if below > 0 else -math.inf
        found = frozenset(
            move for move, belief in zip(moves, self.log_beliefs(position, moves))
            if belief < limit and not board[move >> 7 & 127] and not move >> 14
        )
        if len(self._unlikely) >= self.cache_size:
            self._unlikely.clear()
        self._unlikely[key] = found
        return found
