"""Oracles of a game's continuation: the upper bound of what a move predictor can tell a search.

A :class:`LineOracle` knows the moves the game actually went on with from a position.
At each position of that line it names the move played there with belief 1; anywhere
else it is silent (no prediction), so a guided search follows the game's line and is
the plain search elsewhere. With ``accuracy`` p below 1 it is a *noisy oracle*: at each
position of the line it names the move played with probability p, else a legal move
drawn uniformly (which may be the move played: its top-1 is p + (1 - p) / moves). The
draw is seeded by the oracle's seed and the position, so it is the same at every visit
and in every run. Between the two lies the curve of how deep a search sees against how
well its predictor names the moves.

Positions are recognised by the fast board's key (placement, side to move, castling,
en passant), so a transposition into the line counts as the line. An oracle is both a
:class:`~search.opponent.predictor.MovePredictor` (``chess.Board`` in, ``chess.Move`` out) and a
:class:`~search.chess.guided.PositionPredictor` (the fast board in, encoded moves out),
cheap enough to be read at every node.

>>> import chess
>>> board = chess.Board()
>>> line = [chess.Move.from_uci(uci) for uci in ("e2e4", "c7c5")]
>>> oracle = LineOracle(board, line)
>>> oracle.predict_proba(board)
{Move.from_uci('e2e4'): 1.0}
>>> _ = board.push_uci("d2d4"); oracle.predict_proba(board)
{}
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from search.chess.board import Position, from_move, to_move

__all__ = ["LineOracle"]


class LineOracle:
    """The moves played along ``line`` from ``board``, each named at its position with belief 1.

    ``accuracy`` (in [0, 1]) is the probability that a position's named move is the one
    played; otherwise a uniformly drawn legal move, seeded by ``seed`` and the position.
    The line is followed while its moves stay legal.
    """

    def __init__(self, board: chess.Board, line: Sequence[chess.Move], *, accuracy: float = 1.0, seed: int = 0) -> None:
        if not 0.0 <= accuracy <= 1.0:
            raise ValueError(f"accuracy must be in [0, 1], got {accuracy}")
        self.accuracy = accuracy
        self.seed = seed
        self._named: dict[int, int] = {}
        position = Position.from_board(board)
        replay = board.copy()
        for move in line:
            if replay.is_game_over() or move not in replay.legal_moves:
                break
            self._named.setdefault(position.key, self._name(position, from_move(move)))
            replay.push(move)
            position.make(from_move(move))

    def _name(self, position: Position, played: int) -> int:
        if self.accuracy >= 1.0:
            return played
        rng = np.random.default_rng([self.seed, position.key])
        if rng.random() < self.accuracy:
            return played
        legal = sorted(position.legal_moves())
        return legal[int(rng.integers(len(legal)))]

    @property
    def positions(self) -> int:
        """Positions of the line the oracle speaks at."""
        return len(self._named)

    def position_beliefs(self, position: Position) -> dict[int, float]:
        named = self._named.get(position.key)
        return {} if named is None else {named: 1.0}

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        named = self._named.get(Position.from_board(board).key)
        return {} if named is None else {to_move(named): 1.0}
