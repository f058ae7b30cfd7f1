"""Chess evaluation for the generic search: material and piece-square features in the
source notes' linear form, and the fast board's tapered evaluation computed on a ``chess.Board``.

Six features, each White minus Black: the counts of pawns, knights, bishops, rooks and
queens, and the sum of piece-square bonuses (centralised knights, advanced pawns, a
sheltered king ...). With the weights 100, 320, 330, 500, 900 and 1 the evaluation is
in centipawns for White. The piece-square tables are simple formulas, not tuned.
"""

from __future__ import annotations

import chess

from search.chess.board import to_mailbox
from search.chess.pst import EG_TABLE, EG_VALUES, MG_TABLE, MG_VALUES, PHASE, PHASE_TOTAL, PieceValues
from search.evaluation import LinearEvaluator

__all__ = [
    "FEATURE_NAMES",
    "DEFAULT_WEIGHTS",
    "chess_features",
    "material_pst_evaluator",
    "tapered_value",
    "tapered_evaluator",
]

FEATURE_NAMES = ("pawns", "knights", "bishops", "rooks", "queens", "piece_squares")
DEFAULT_WEIGHTS = (100, 320, 330, 500, 900, 1)


def _centre_distance(square: int) -> float:
    file, rank = chess.square_file(square), chess.square_rank(square)
    return max(abs(file - 3.5), abs(rank - 3.5)) - 0.5  # 0 in the centre, 3 on the rim


def _table(piece_type: int) -> tuple[int, ...]:
    """Bonuses for a White piece on each square (Black uses the mirrored square)."""
    values = []
    for square in chess.SQUARES:
        file, rank = chess.square_file(square), chess.square_rank(square)
        centre = _centre_distance(square)
        value: float
        if piece_type == chess.PAWN:
            advance = (0, 0, 2, 6, 14, 26, 45, 0)[rank]
            central = 12 if file in (3, 4) and rank in (3, 4) else 0
            value = advance + central
        elif piece_type == chess.KNIGHT:
            value = 12 - 12 * centre
        elif piece_type == chess.BISHOP:
            value = 6 - 5 * centre
        elif piece_type == chess.ROOK:
            value = (15 if rank == 6 else 0) + (4 if file in (3, 4) else 0)
        elif piece_type == chess.QUEEN:
            value = 4 - 3 * centre
        else:  # king: stay home and to the side while there is material around
            shelter = (10, 20, 12, 0, 0, 4, 22, 10)[file] if rank == 0 else 0
            value = shelter - 12 * rank
        values.append(int(round(value)))
    return tuple(values)


_TABLES = {pt: _table(pt) for pt in chess.PIECE_TYPES}


def chess_features(board: chess.Board) -> tuple[int, ...]:
    """The six feature values of ``board``, each White minus Black."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    bitboards = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    counts = [(bb & white).bit_count() - (bb & black).bit_count() for bb in bitboards[:5]]
    bonus = 0
    for piece_type, bb in enumerate(bitboards, start=1):
        table = _TABLES[piece_type]
        for square in chess.scan_forward(bb & white):
            bonus += table[square]
        for square in chess.scan_forward(bb & black):
            bonus -= table[square ^ 56]
    return (*counts, bonus)


def material_pst_evaluator(weights=DEFAULT_WEIGHTS) -> LinearEvaluator:
    """The standard chess evaluator: :func:`chess_features` with ``weights`` (centipawns)."""
    return LinearEvaluator(chess_features, weights)


def tapered_value(board: chess.Board, values: PieceValues | None = None) -> int:
    """The fast board's tapered piece-square value of ``board``, for White (centipawns).

    The same number :meth:`search.chess.board.Position.evaluate` keeps incrementally
    (seen from White), computed from scratch on a ``chess.Board``: the generic search
    with this evaluator and the fast chess search must agree on every value. With
    ``values`` each piece's material is theirs instead of the tables' (as a
    :class:`~search.chess.engine.ChessSearch` given those values evaluates).
    """
    middle, end = (MG_VALUES, EG_VALUES) if values is None else ((0, *values.middlegame, 0), (0, *values.endgame, 0))
    mg = eg = phase = 0
    for square, piece in board.piece_map().items():
        sign = 1 if piece.color == chess.WHITE else -1
        code, kind = sign * piece.piece_type, piece.piece_type
        index = to_mailbox(square)
        mg += MG_TABLE[code][index] + sign * (middle[kind] - MG_VALUES[kind])
        eg += EG_TABLE[code][index] + sign * (end[kind] - EG_VALUES[kind])
        phase += PHASE[code]
    phase = min(phase, PHASE_TOTAL)
    return (mg * phase + eg * (PHASE_TOTAL - phase)) // PHASE_TOTAL


def tapered_evaluator():
    """:func:`tapered_value` as an evaluator for the generic search (White's view)."""
    return tapered_value
