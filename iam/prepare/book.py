"""A polyglot opening book of our prepared moves, readable by python-chess and chess GUIs.

The ``.bin`` format: 16-byte big-endian entries, sorted by key: the position's
polyglot Zobrist key (8 bytes), the move (2 bytes: to file, to rank, from file, from
rank, promotion piece in 3-bit fields from the lowest; castling written as the king
taking its own rook, as polyglot wants), a weight (2 bytes) and a learn field (4
bytes, 0). An entry's weight is its position's probability of being reached times
:data:`WEIGHT_SCALE`, at least 1, so a GUI choosing by weight prefers nothing
but the prepared move of each position.

>>> import chess, chess.polyglot, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "book.bin")
>>> write_book([(chess.Board(), chess.Move.from_uci("e2e4"), 1.0)], path)
1
>>> with chess.polyglot.open_reader(path) as reader:
...     reader.find(chess.Board()).move
Move.from_uci('e2e4')
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path

import chess
import chess.polyglot

__all__ = ["WEIGHT_SCALE", "encode_move", "book_entries", "write_book"]

WEIGHT_SCALE = 1000
"""An entry's weight per unit of probability of reaching its position."""

_PROMOTIONS = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}
_ENTRY = struct.Struct(">QHHI")


def encode_move(board: chess.Board, move: chess.Move) -> int:
    """The 16-bit polyglot code of ``move`` in ``board`` (castling as king takes rook)."""
    to_square = move.to_square
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        to_square = chess.square(7 if kingside else 0, rank)
    return (
        chess.square_file(to_square)
        | chess.square_rank(to_square) << 3
        | chess.square_file(move.from_square) << 6
        | chess.square_rank(move.from_square) << 9
        | _PROMOTIONS[move.promotion] << 12
    )


def book_entries(moves: Iterable[tuple[chess.Board, chess.Move, float]]) -> list[tuple[int, int, int]]:
    """(key, move code, weight) sorted by key then move; the same position and move merged, weights added (capped)."""
    merged: dict[tuple[int, int], float] = {}
    for board, move, probability in moves:
        entry = (chess.polyglot.zobrist_hash(board), encode_move(board, move))
        merged[entry] = merged.get(entry, 0.0) + probability
    return sorted((key, code, min(0xFFFF, max(1, round(p * WEIGHT_SCALE)))) for (key, code), p in merged.items())


def write_book(moves: Iterable[tuple[chess.Board, chess.Move, float]], path: str | Path) -> int:
    """Write the polyglot book of ``moves`` (position, move, probability of reaching it) to ``path``.

    Returns its entries.
    """
    entries = book_entries(moves)
    Path(path).write_bytes(b"".join(_ENTRY.pack(key, code, weight, 0) for key, code, weight in entries))
    return len(entries)
