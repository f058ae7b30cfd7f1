"""Playing like a modelled player: a move chosen from his model's beliefs.

An imitation engine answers "what would X play here?" by playing it: a move drawn from the
model's beliefs (temperature 1, the default, draws them as they are; above 1 flattens them,
below sharpens them, 0 plays the most believed move), reproducibly: the draw depends only
on the seed, the game's number and the game so far, not on what the engine did before, so
that each new game draws its opening afresh and a seed replays a series of games. The
player's openings come with the model (a move ranker believes his own lines where his games
have been, :mod:`iam.ranker.own_lines`).

Where the model is unsure (its most believed move below ``unsure_below``) *and* the
position is tactical (see :func:`is_tactical`), a short search chooses instead: there
a master calculates, and a belief spread thin over several moves is most likely to
pick a blunder. Everywhere else the model alone decides.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import chess

__all__ = ["Imitation", "ImitationChoice", "is_tactical", "choose_imitation_move", "PIECE_VALUES"]

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


@dataclass(frozen=True)
class Imitation:
    """How the imitation engine turns beliefs into a move."""

    temperature: float = 1.0
    """1 draws from the beliefs; above 1 flattens them; 0 plays the most believed move."""
    seed: int = 0
    """Seed of the draws (with the game's number and the game so far)."""
    game: int = 0
    """The game's number in a series (an engine counts its new games): each game draws afresh."""
    unsure_below: float = 0.3
    """A most-believed move below this leaves a tactical position to the search."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.temperature <= 100.0:
            raise ValueError(f"temperature must be in [0, 100], got {self.temperature}")
        if not 0.0 <= self.unsure_below <= 1.0:
            raise ValueError(f"unsure_below must be in [0, 1], got {self.unsure_below}")


@dataclass(frozen=True)
class ImitationChoice:
    """The move to play and why: from the model, or left to the search (``move`` is then ``None``)."""

    move: chess.Move | None
    belief: float
    """The model's belief in ``move`` (0 when the search decides)."""
    top_belief: float
    tactical: bool
    source: str
    """``"model"`` or ``"search"``."""


def is_tactical(board: chess.Board) -> bool:
    """Whether material is at stake now: the mover is in check, or either side can
    capture a piece that is undefended or worth more than its cheapest attacker.

    A deliberately simple line (pins and exchanges deeper than one capture are not
    examined): it marks the positions where one move can win or lose material.
    """
    if board.is_check():
        return True
    for color in (chess.WHITE, chess.BLACK):
        for square, piece in board.piece_map().items():
            if piece.color == color or piece.piece_type == chess.KING:
                continue
            attackers = board.attackers(color, square)
            if not attackers:
                continue
            if not board.attackers(not color, square):
                return True
            # An attacker's square holds a piece.
            cheapest = min(PIECE_VALUES[cast(chess.PieceType, board.piece_type_at(a))] for a in attackers)
            if cheapest < PIECE_VALUES[piece.piece_type]:
                return True
    return False


def choose_imitation_move(
    board: chess.Board, beliefs: Mapping[chess.Move, float], imitation: Imitation
) -> ImitationChoice:
    """The model's move for ``board`` under ``imitation``, or a request for the search.

    ``beliefs`` are the model's over the legal moves. The search is asked for when the
    model predicts nothing, or when it is unsure and the position is tactical.
    """
    legal = [(move, belief) for move, belief in beliefs.items() if belief > 0 and board.is_legal(move)]
    top = max((belief for _, belief in legal), default=0.0)
    tactical = is_tactical(board)
    if not legal or (top < imitation.unsure_below and tactical):
        return ImitationChoice(None, 0.0, top, tactical, "search")
    legal.sort(key=lambda pair: (-pair[1], pair[0].uci()))
    if imitation.temperature == 0.0:
        move, belief = legal[0]
    else:
        weights = [belief ** (1.0 / imitation.temperature) for _, belief in legal]
        move, belief = _draw(legal, weights, _rng(board, imitation.seed, imitation.game))
    return ImitationChoice(move, belief, top, tactical, "model")


def _rng(board: chess.Board, seed: int, game: int = 0) -> random.Random:
    """A generator fixed by the seed, the game's number and the game so far (start position and moves)."""
    root = board.root()
    series = f"{seed}" if game == 0 else f"{seed}/{game}"
    text = f"{series}|{root.fen()}|{' '.join(move.uci() for move in board.move_stack)}"
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))


def _draw(pairs: list[tuple[chess.Move, float]], weights: list[float], rng: random.Random) -> tuple[chess.Move, float]:
    total = sum(weights)
    if total <= 0.0:  # underflow at a tiny temperature: the most believed move
        return pairs[0]
    point = rng.random() * total
    for pair, weight in zip(pairs, weights):
        point -= weight
        if point < 0.0:
            return pair
    return pairs[-1]
