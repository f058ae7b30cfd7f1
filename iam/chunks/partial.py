"""The partial chunk finder: stored chunks one move away from the live board.

Source note 001: for each stored chunk that fits on the board, if exactly one of its
specified squares differs from the board, check whether a legal move of the
player completes it; such moves are candidates for the move predictor. Here a
move *completes* a placement when it puts the missing piece on the missing square
and vacates none of the placement's other squares (so castling, promotion and en
passant are handled by looking at what the move changes, not by special cases).

The finder also marks completions the player *just dissolved*: the placement was
complete before the player's previous move, and that move took a piece out of
it. Source note 001's heuristic eliminates such moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np

from iam.chunks.board import board_matrix, relative_square
from iam.chunks.chunk import OPPONENT_PAWN
from iam.chunks.library import ChunkLibrary

__all__ = ["Completions", "find_completions", "cell_values"]

_EMPTY_ARRAY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Completions:
    """The (placement, move) pairs that complete a stored chunk on one board."""

    moves: list[chess.Move]
    """The distinct moves proposed, in order of first proposal."""
    move: np.ndarray
    """Index into ``moves`` of each proposal."""
    placement: np.ndarray
    """Placement row (in the library's placement index) of each proposal."""
    chunk: np.ndarray
    """Row of the completed chunk in the library's table, per proposal."""
    dissolved: np.ndarray
    """Whether the player's previous move broke this very placement."""
    legal_moves: int = 0
    """Number of legal moves in the position."""

    def __len__(self) -> int:
        return len(self.move)


def cell_values(matrix: np.ndarray) -> np.ndarray:
    """Per square (flat, 64) the chunk cell value a board matrix shows: 1..6 own, 7 opponent pawn, else 0."""
    flat = np.asarray(matrix).reshape(64)
    return np.where(flat > 0, flat, np.where(flat == -1, OPPONENT_PAWN, 0)).astype(np.int8)


def find_completions(library: ChunkLibrary, board: chess.Board) -> Completions:
    """All completions of stored chunks by a legal move of the side to move on ``board``."""
    color = board.turn
    cells = cell_values(board_matrix(board, color))
    present = np.flatnonzero(cells)
    starts, rows = library.by_key.start, library.by_key.rows
    hits = [rows[starts[k] : starts[k + 1]] for k in (present * 8 + cells[present]).tolist()]
    matched = np.bincount(np.concatenate(hits or [_EMPTY_ARRAY]), minlength=len(library.placements))
    moves, landing, vacated, owner = _move_effects(board, color)

    # Placements one cell short: the missing cell must be one a legal move fills.
    near = np.flatnonzero(matched == library.placements.need)
    squares, values = library.cells(near)
    wrong = (values != 0) & (cells[np.maximum(squares, 0)] != values)
    slot = np.argmax(wrong, axis=1)[:, None]
    needed = (
        np.take_along_axis(squares, slot, axis=1)[:, 0].astype(np.int64) * 8
        + np.take_along_axis(values, slot, axis=1)[:, 0]
    )
    placement, effect = _join(near, needed, landing)

    # Castling fills two cells at once: placements missing exactly the king's and rook's squares.
    for move_index in np.flatnonzero(np.bincount(owner, minlength=len(moves)) == 2).tolist():
        (king_effect, rook_effect) = np.flatnonzero(owner == move_index)
        under_king = rows[starts[landing[king_effect]] : starts[landing[king_effect] + 1]]
        two_short = under_king[matched[under_king] == library.placements.need[under_king] - 1]
        squares, values = library.cells(two_short)
        filled = np.where(values != 0, squares.astype(np.int64) * 8 + values, -1)
        has_rook = (filled == landing[rook_effect]).any(axis=1)
        placement = np.concatenate([placement, two_short[has_rook]])
        effect = np.concatenate([effect, np.full(int(has_rook.sum()), king_effect)])

    intact = (library.placements.mask[placement] & vacated[effect]) == 0
    placement, proposer = placement[intact], owner[effect[intact]]
    if len(placement) == 0:
        return _none(len(moves))
    used, proposal_move = np.unique(proposer, return_inverse=True)
    return Completions(
        moves=[moves[i] for i in used.tolist()],
        move=proposal_move.astype(np.int64),
        placement=placement.astype(np.int64),
        chunk=library.chunk_of(placement).astype(np.int64),
        dissolved=_dissolved(library, board, color, placement),
        legal_moves=len(moves),
    )


def _join(rows: np.ndarray, needed: np.ndarray, landing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (row, effect) pairs whose needed key equals the effect's landing key."""
    order = np.argsort(landing, kind="stable")
    left = np.searchsorted(landing[order], needed, side="left")
    count = np.searchsorted(landing[order], needed, side="right") - left
    within = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    return np.repeat(rows, count), order[np.repeat(left, count) + within]


def _none(legal_moves: int) -> Completions:
    return Completions([], _EMPTY_ARRAY, _EMPTY_ARRAY, _EMPTY_ARRAY, np.zeros(0, dtype=bool), legal_moves)


def _move_effects(
    board: chess.Board, color: chess.Color
) -> tuple[list[chess.Move], np.ndarray, np.ndarray, np.ndarray]:
    """Legal moves, and per *effect* (a piece arriving somewhere) its key, vacated squares and move.

    Castling has two effects (king and rook arrive); every other move has one.
    Keys and bitboards are in the player's relative coordinates.
    """
    flip = 0 if color == chess.WHITE else 56
    en_passant = board.ep_square
    moves = list(board.legal_moves)
    landing: list[int] = []
    vacated: list[int] = []
    owner: list[int] = []
    for index, move in enumerate(moves):
        start, end = move.from_square, move.to_square
        piece = board.piece_type_at(start) or 0
        gone = 1 << (start ^ flip)
        if piece == chess.KING and abs(end - start) == 2:  # castling: king and rook arrive
            rook_start, rook_end = (start + 3, start + 1) if end > start else (start - 4, start - 1)
            gone |= 1 << (rook_start ^ flip)
            landing.append((rook_end ^ flip) * 8 + chess.ROOK)
            vacated.append(gone)
            owner.append(index)
        elif piece == chess.PAWN and end == en_passant:
            gone |= 1 << ((end - 8 if color == chess.WHITE else end + 8) ^ flip)
        landing.append((end ^ flip) * 8 + (move.promotion or piece))
        vacated.append(gone)
        owner.append(index)
    return (
        moves,
        np.array(landing, dtype=np.int64),
        np.array(vacated, dtype=np.uint64),
        np.array(owner, dtype=np.int64),
    )


def _dissolved(library: ChunkLibrary, board: chess.Board, color: chess.Color, placement: np.ndarray) -> np.ndarray:
    """Whether each placement was complete before the player's previous move and that move broke it."""
    dissolved = np.zeros(len(placement), dtype=bool)
    if len(board.move_stack) < 2:
        return dissolved
    previous_move = board.move_stack[-2]
    left_square = np.uint64(1) << np.uint64(relative_square(previous_move.from_square, color))
    touched = np.flatnonzero((library.placements.mask[placement] & left_square) != 0)
    if len(touched) == 0:
        return dissolved
    earlier = board.copy(stack=2)
    earlier.pop()
    earlier.pop()
    earlier_cells = cell_values(board_matrix(earlier, color))
    squares, values = library.cells(placement[touched])
    dissolved[touched] = ((values == 0) | (earlier_cells[np.maximum(squares, 0)] == values)).all(axis=1)
    return dissolved
