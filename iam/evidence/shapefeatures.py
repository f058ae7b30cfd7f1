"""Features of the position a move leaves: threats, mobility, the enemy king, pawns, rooks.

The move family says what a move does on its squares; a master also weighs what it
does to the whole position, which a shallow search with piece-square tables barely
sees: a new threat (an enemy piece now en prise) or two at once, how much room it
gives his pieces and takes from the opponent's, how many squares next to the enemy
king he now attacks, what it does to his pawn structure (doubled, isolated and passed
pawns), a passed pawn pushed, a rook to an open file or to the seventh rank. Each is
the position after the move less the position before, from the mover's side, in small
counts or pawns. Chosen on development games of Botvinnik and Lasker: of eighteen
such facts tried, these eleven carried weights of the same sign for both; the rest
(the king's pawn shield, centre control, trades when ahead, a knight on the rim ...)
did not.
"""

from __future__ import annotations

import chess
import numpy as np

from iam.evidence.movefeatures import PIECE_VALUES, en_prise, piece_type_on
from iam.priors.positions import PlayerPosition

__all__ = ["SHAPE_FEATURES", "shape_features"]

SHAPE_FEATURES: tuple[str, ...] = (
    "threat_gain",
    "double_threat",
    "mobility_gain",
    "enemy_mobility_gain",
    "king_attack_gain",
    "doubled_pawns_gain",
    "isolated_pawns_gain",
    "passed_pawns_gain",
    "passed_pawn_push",
    "rook_open_file",
    "rook_seventh",
)
"""The columns :func:`shape_features` returns, in this order."""

_SLIDERS_AND_KNIGHTS = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def shape_features(position: PlayerPosition) -> dict[str, np.ndarray]:
    """Column name -> value per legal move of ``position`` (see :data:`SHAPE_FEATURES`)."""
    board = position.board
    color, enemy = board.turn, not board.turn
    threat_before = en_prise(board, enemy)
    mobility_before, enemy_mobility_before = _mobility(board, color), _mobility(board, enemy)
    king_attack_before = chess.popcount(_attacks(board, color) & _king_zone(board, enemy))
    doubled_before, isolated_before, passed_before = _pawn_structure(board, color)
    enemy_pawns = board.pieces_mask(chess.PAWN, enemy)
    seventh = chess.BB_RANK_7 if color == chess.WHITE else chess.BB_RANK_2
    rows = []
    for move in position.moves:
        piece = board.piece_type_at(move.from_square)
        push = 0.0
        if piece == chess.PAWN and _passed(move.from_square, color, enemy_pawns):
            rank = chess.square_rank(move.to_square)
            push = (rank if color == chess.WHITE else 7 - rank) / 7.0
        rook = piece == chess.ROOK
        new_file = chess.square_file(move.to_square) != chess.square_file(move.from_square)
        board.push(move)
        doubled, isolated, passed = _pawn_structure(board, color)
        own_pawns_on_file = board.pieces_mask(chess.PAWN, color) & chess.BB_FILES[chess.square_file(move.to_square)]
        rows.append(
            (
                max(en_prise(board, enemy) - threat_before, 0.0),
                float(_threatened(board, color) >= 2),
                (_mobility(board, color) - mobility_before) / 10.0,
                (_mobility(board, enemy) - enemy_mobility_before) / 10.0,
                (chess.popcount(_attacks(board, color) & _king_zone(board, enemy)) - king_attack_before) / 3.0,
                float(doubled - doubled_before),
                float(isolated - isolated_before),
                float(passed - passed_before),
                push,
                float(rook and new_file and not own_pawns_on_file),
                float(
                    rook
                    and bool(chess.BB_SQUARES[move.to_square] & seventh)
                    and not chess.BB_SQUARES[move.from_square] & seventh
                ),
            )
        )
        board.pop()
    values = np.array(rows, dtype=np.float64).reshape(len(position.moves), len(SHAPE_FEATURES))
    return {name: values[:, i] for i, name in enumerate(SHAPE_FEATURES)}


def _mobility(board: chess.Board, color: chess.Color) -> int:
    """Squares ``color``'s knights, bishops, rooks and queens attack that hold none of his own pieces."""
    own = board.occupied_co[color]
    return sum(
        chess.popcount(board.attacks_mask(square) & ~own)
        for piece_type in _SLIDERS_AND_KNIGHTS
        for square in chess.scan_forward(board.pieces_mask(piece_type, color))
    )


def _attacks(board: chess.Board, color: chess.Color) -> chess.Bitboard:
    """Every square a piece of ``color`` attacks."""
    mask = 0
    for square in chess.scan_forward(board.occupied_co[color]):
        mask |= board.attacks_mask(square)
    return mask


def _king_zone(board: chess.Board, color: chess.Color) -> chess.Bitboard:
    """``color``'s king's square and its neighbours."""
    king = board.king(color)
    return chess.BB_KING_ATTACKS[king] | chess.BB_SQUARES[king] if king is not None else 0


def _threatened(board: chess.Board, color: chess.Color) -> int:
    """How many of the opponent's pieces ``color`` attacks undefended, or with a cheaper piece."""
    enemy = not color
    count = 0
    for square in chess.scan_forward(board.occupied_co[enemy] & ~board.kings):
        attackers = board.attackers_mask(color, square)
        if not attackers:
            continue
        value = PIECE_VALUES[piece_type_on(board, square)]
        cheapest = min(PIECE_VALUES[piece_type_on(board, s)] or 100.0 for s in chess.scan_forward(attackers))
        if not board.attackers_mask(enemy, square) or cheapest < value:
            count += 1
    return count


def _pawn_structure(board: chess.Board, color: chess.Color) -> tuple[int, int, int]:
    """``color``'s doubled pawns (beyond the first on a file), isolated pawns and passed pawns."""
    own, theirs = board.pieces_mask(chess.PAWN, color), board.pieces_mask(chess.PAWN, not color)
    files = [chess.popcount(own & chess.BB_FILES[file]) for file in range(8)]
    doubled = sum(max(count - 1, 0) for count in files)
    isolated = sum(
        count
        for file, count in enumerate(files)
        if count and not ((file > 0 and files[file - 1]) or (file < 7 and files[file + 1]))
    )
    passed = sum(1 for square in chess.scan_forward(own) if _passed(square, color, theirs))
    return doubled, isolated, passed


def _passed(square: chess.Square, color: chess.Color, enemy_pawns: chess.Bitboard) -> bool:
    """Whether a pawn of ``color`` on ``square`` has no enemy pawn ahead on its file or the two beside it."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    span = (
        chess.BB_FILES[file]
        | (chess.BB_FILES[file - 1] if file > 0 else 0)
        | (chess.BB_FILES[file + 1] if file < 7 else 0)
    )
    ahead = (
        chess.BB_ALL << (8 * (rank + 1)) & chess.BB_ALL if color == chess.WHITE else chess.BB_ALL >> (8 * (8 - rank))
    )
    return not enemy_pawns & span & ahead
