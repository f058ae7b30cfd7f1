"""Features of a move itself: what it moves, takes, threatens and leaves behind.

Cheap evidence that needs no search: the piece moved, captures and their static
exchange, checks, pieces left en prise or rescued, recaptures, castling,
promotion, pawn advances, the piece-square gain of a published table (the
"simplified evaluation function" tables of T. Michniewski) and how far the move
lands from the opponent's last move. Values are in pawns or small counts so that
one weight scale fits them all. Each column is named where it is computed.
"""

from __future__ import annotations

from typing import cast

import chess
import numpy as np

from iam.priors.positions import PlayerPosition

__all__ = ["MOVE_FEATURES", "move_features", "static_exchange", "en_prise", "PIECE_VALUES"]

PIECE_VALUES = {
    chess.PAWN: 1.0,
    chess.KNIGHT: 3.0,
    chess.BISHOP: 3.25,
    chess.ROOK: 5.0,
    chess.QUEEN: 9.0,
    chess.KING: 0.0,
}
"""Piece values in pawns (the king is never exchanged)."""

_SEE_KING = 100.0
"""The king's value inside a static exchange: capturing with it last is fine, into a defended square never."""

_PIECE_NAMES = {pt: chess.piece_name(pt) for pt in chess.PIECE_TYPES}

# Michniewski's piece-square tables, White's view, rank 8 first (as published).
_PST_RANK8_FIRST = {
    chess.PAWN: (
        0, 0, 0, 0, 0, 0, 0, 0,
        50, 50, 50, 50, 50, 50, 50, 50,
        10, 10, 20, 30, 30, 20, 10, 10,
        5, 5, 10, 25, 25, 10, 5, 5,
        0, 0, 0, 20, 20, 0, 0, 0,
        5, -5, -10, 0, 0, -10, -5, 5,
        5, 10, 10, -20, -20, 10, 10, 5,
        0, 0, 0, 0, 0, 0, 0, 0,
    ),
    chess.KNIGHT: (
        -50, -40, -30, -30, -30, -30, -40, -50,
        -40, -20, 0, 0, 0, 0, -20, -40,
        -30, 0, 10, 15, 15, 10, 0, -30,
        -30, 5, 15, 20, 20, 15, 5, -30,
        -30, 0, 15, 20, 20, 15, 0, -30,
        -30, 5, 10, 15, 15, 10, 5, -30,
        -40, -20, 0, 5, 5, 0, -20, -40,
        -50, -40, -30, -30, -30, -30, -40, -50,
    ),
    chess.BISHOP: (
        -20, -10, -10, -10, -10, -10, -10, -20,
        -10, 0, 0, 0, 0, 0, 0, -10,
        -10, 0, 5, 10, 10, 5, 0, -10,
        -10, 5, 5, 10, 10, 5, 5, -10,
        -10, 0, 10, 10, 10, 10, 0, -10,
        -10, 10, 10, 10, 10, 10, 10, -10,
        -10, 5, 0, 0, 0, 0, 5, -10,
        -20, -10, -10, -10, -10, -10, -10, -20,
    ),
    chess.ROOK: (
        0, 0, 0, 0, 0, 0, 0, 0,
        5, 10, 10, 10, 10, 10, 10, 5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        -5, 0, 0, 0, 0, 0, 0, -5,
        0, 0, 0, 5, 5, 0, 0, 0,
    ),
    chess.QUEEN: (
        -20, -10, -10, -5, -5, -10, -10, -20,
        -10, 0, 0, 0, 0, 0, 0, -10,
        -10, 0, 5, 5, 5, 5, 0, -10,
        -5, 0, 5, 5, 5, 5, 0, -5,
        0, 0, 5, 5, 5, 5, 0, -5,
        -10, 5, 5, 5, 5, 5, 0, -10,
        -10, 0, 5, 0, 0, 0, 0, -10,
        -20, -10, -10, -5, -5, -10, -10, -20,
    ),
    chess.KING: (
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -20, -30, -30, -40, -40, -30, -30, -20,
        -10, -20, -20, -20, -20, -20, -20, -10,
        20, 20, 0, 0, 0, 0, 20, 20,
        20, 30, 10, 0, 0, 10, 30, 20,
    ),
}

MOVE_FEATURES: tuple[str, ...] = (
    *(f"piece_{name}" for name in _PIECE_NAMES.values()),
    "capture",
    "captured_value",
    "exchange_gain",
    "exchange_loss",
    "check",
    "left_en_prise",
    "rescued",
    "recapture",
    "castle",
    "promotion",
    "pawn_advance",
    "pst_gain",
    "near_last_move",
    "retreat",
    "develop",
    "same_piece_again",
)
"""The columns :func:`move_features` returns, in this order."""


def piece_type_on(board: chess.Board, square: chess.Square) -> chess.PieceType:
    """The type of the piece on ``square``, which holds one (python-chess types the answer as optional)."""
    return cast(chess.PieceType, board.piece_type_at(square))


def _pst(piece_type: chess.PieceType, square: chess.Square, color: chess.Color) -> float:
    """Table bonus in pawns of a piece of ``color`` on ``square``."""
    relative = square if color == chess.WHITE else chess.square_mirror(square)
    return _PST_RANK8_FIRST[piece_type][(7 - chess.square_rank(relative)) * 8 + chess.square_file(relative)] / 100.0


def static_exchange(
    board: chess.Board, move: chess.Move, pinned: tuple[chess.Bitboard, chess.Bitboard] | None = None
) -> float:
    """Material (pawns) the mover wins by the exchange ``move`` starts on its target square.

    The classic swap list: both sides recapture with their least valuable attacker
    (x-rays through the pieces that left are seen) and may stop when continuing loses.
    ``pinned``: each colour's pinned pieces on ``board`` (black's, white's), when the
    caller already has them for several moves of one position.
    """
    if pinned is None:
        pinned = (_pinned(board, chess.BLACK), _pinned(board, chess.WHITE))
    to = move.to_square
    mover = piece_type_on(board, move.from_square)
    captured: chess.PieceType | None
    if board.is_en_passant(move):
        captured, removed = chess.PAWN, chess.BB_SQUARES[to ^ 8]
    else:
        captured, removed = board.piece_type_at(to), 0
    gains = [PIECE_VALUES[captured] if captured else 0.0]
    if move.promotion:
        gains[0] += PIECE_VALUES[move.promotion] - 1.0
        mover = move.promotion
    occupied = board.occupied & ~chess.BB_SQUARES[move.from_square] & ~removed
    on_square = _SEE_KING if mover == chess.KING else PIECE_VALUES[mover]
    side = not board.turn
    while True:
        attackers = board.attackers_mask(side, to, occupied) & occupied & ~pinned[side]
        if not attackers:
            break
        for piece_type in chess.PIECE_TYPES:
            candidates = attackers & board.pieces_mask(piece_type, side)
            if candidates:
                break
        gains.append(on_square - gains[-1])
        on_square = _SEE_KING if piece_type == chess.KING else PIECE_VALUES[piece_type]
        occupied &= ~chess.BB_SQUARES[chess.lsb(candidates)]
        side = not side
    for depth in range(len(gains) - 1, 0, -1):
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
    return min(gains[0], 9.0)


def _pinned(board: chess.Board, color: chess.Color) -> chess.Bitboard:
    """``color``'s pieces pinned to their king (they cannot capture off the pin line; counted as absent).

    A piece is pinned when it is the only piece between its king and an enemy slider
    that moves along that line: one pass over the sliders that see the king's lines.
    """
    king = board.king(color)
    if king is None:
        return 0
    enemy = board.occupied_co[not color]
    straight = (chess.BB_RANK_ATTACKS[king][0] | chess.BB_FILE_ATTACKS[king][0]) & (board.rooks | board.queens)
    diagonal = chess.BB_DIAG_ATTACKS[king][0] & (board.bishops | board.queens)
    mask = 0
    for sniper in chess.scan_forward((straight | diagonal) & enemy):
        between = chess.between(king, sniper) & board.occupied
        if between and between & (between - 1) == 0:
            mask |= between
    return mask & board.occupied_co[color]


def en_prise(board: chess.Board, color: chess.Color) -> float:
    """Value (pawns) of ``color``'s most valuable piece the opponent wins by taking it.

    A piece is en prise when it is attacked and undefended, or attacked by a
    cheaper piece; the loss is its value, less the attacker's when it is defended.
    """
    worst = 0.0
    own = board.occupied_co[color] & ~board.kings
    enemy = not color
    pinned = _pinned(board, enemy)
    for square in chess.scan_reversed(own):
        attackers = board.attackers_mask(enemy, square) & ~pinned
        if not attackers:
            continue
        value = PIECE_VALUES[piece_type_on(board, square)]
        if value <= worst:
            continue
        cheapest = min(PIECE_VALUES[piece_type_on(board, s)] or _SEE_KING for s in chess.scan_forward(attackers))
        if not board.attackers_mask(color, square):
            worst = value
        elif cheapest < value:
            worst = max(worst, value - cheapest)
    return worst


def move_features(position: PlayerPosition) -> dict[str, np.ndarray]:
    """Column name -> value per legal move of ``position`` (see :data:`MOVE_FEATURES`)."""
    board = position.board
    color = board.turn
    stack = board.move_stack
    last = stack[-1] if stack else None
    last_was_capture = bool(last and _was_capture(board, last))
    own_previous = stack[-2] if len(stack) >= 2 else None
    en_prise_before = en_prise(board, color)
    pinned = (_pinned(board, chess.BLACK), _pinned(board, chess.WHITE))
    forward = 1 if color == chess.WHITE else -1
    columns: dict[str, list[float]] = {name: [] for name in MOVE_FEATURES}
    for move in position.moves:
        piece = piece_type_on(board, move.from_square)
        for piece_type, name in _PIECE_NAMES.items():
            columns[f"piece_{name}"].append(float(piece == piece_type))
        capture = board.is_capture(move)
        captured = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
        exchange = static_exchange(board, move, pinned)
        columns["capture"].append(float(capture))
        columns["captured_value"].append(PIECE_VALUES[captured] if capture and captured else 0.0)
        columns["exchange_gain"].append(max(exchange, 0.0))
        columns["exchange_loss"].append(max(-exchange, 0.0))
        columns["check"].append(float(board.gives_check(move)))
        castle = board.is_castling(move)
        board.push(move)
        after = en_prise(board, color)
        board.pop()
        columns["left_en_prise"].append(after)
        columns["rescued"].append(max(en_prise_before - after, 0.0))
        columns["recapture"].append(
            float(last_was_capture and last is not None and move.to_square == last.to_square)
        )
        columns["castle"].append(float(castle))
        columns["promotion"].append(float(move.promotion == chess.QUEEN))
        rank_gain = (chess.square_rank(move.to_square) - chess.square_rank(move.from_square)) * forward
        columns["pawn_advance"].append(float(rank_gain) if piece == chess.PAWN else 0.0)
        to_square = move.to_square if not castle else _castled_king_square(move, color)
        columns["pst_gain"].append(_pst(piece, to_square, color) - _pst(piece, move.from_square, color))
        distance = chess.square_distance(move.to_square, last.to_square) if last else 7
        columns["near_last_move"].append(1.0 - distance / 7.0)
        columns["retreat"].append(float(rank_gain < 0 and piece != chess.PAWN))
        home_rank = 0 if color == chess.WHITE else 7
        columns["develop"].append(
            float(piece in (chess.KNIGHT, chess.BISHOP) and chess.square_rank(move.from_square) == home_rank)
        )
        columns["same_piece_again"].append(
            float(own_previous is not None and move.from_square == own_previous.to_square and not castle)
        )
    return {name: np.asarray(values, dtype=np.float64) for name, values in columns.items()}


def _castled_king_square(move: chess.Move, color: chess.Color) -> chess.Square:
    """Where the king lands when castling (python-chess writes castling as king takes rook in Chess960 form)."""
    rank = 0 if color == chess.WHITE else 7
    kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
    return chess.square(6 if kingside else 2, rank)


def _was_capture(board: chess.Board, last: chess.Move) -> bool:
    """Whether the last move on ``board``'s stack captured something."""
    board.pop()
    try:
        return board.is_capture(last)
    finally:
        board.push(last)
