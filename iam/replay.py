"""Replaying the player's games into the flat arrays the model learns from.

One pass over the games pushes every move once and records, after each of the
modelled player's moves, the twelve relative bitboards of the position (see
:mod:`iam.board`), the squares the move put the player's pieces on, and the facts
the statistics need (game, colour, move number, result).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import chess
import numpy as np

from iam.board import relative_bitboards
from iam.noise_filter import RESULT_CODES, PositionInfo
from iam.pgn import PlayerGame

__all__ = ["PlayerMoves", "replay", "positions_before"]


@dataclass(frozen=True)
class PlayerMoves:
    """Every move of the modelled player in a list of games (parallel arrays)."""

    bitboards: np.ndarray
    """``(N, 12)`` relative bitboards of the position after the move."""
    moved_to: np.ndarray
    """Bitboard (relative) of the squares the move put the player's pieces on."""
    game: np.ndarray
    """Index of the game in the list that was replayed."""
    ply: np.ndarray
    """Index of the move in its game's move list."""
    info: PositionInfo

    def __len__(self) -> int:
        return len(self.game)


def replay(games: Sequence[PlayerGame]) -> PlayerMoves:
    """Replay ``games`` and record the position after each of the player's moves."""
    bitboards: list[tuple[int, ...]] = []
    moved_to: list[int] = []
    game_ids: list[int] = []
    plies: list[int] = []
    move_numbers: list[int] = []
    whites: list[bool] = []
    results: list[int] = []
    for game_id, game in enumerate(games):
        board = game.board()
        color = game.color
        result = RESULT_CODES[game.result]
        for ply, move in enumerate(game.moves):
            if board.turn != color:
                board.push(move)
                continue
            before = board.occupied_co[color]
            move_numbers.append(board.fullmove_number)
            board.push(move)
            arrived = board.occupied_co[color] & ~before
            moved_to.append(arrived if color == chess.WHITE else chess.flip_vertical(arrived))
            bitboards.append(relative_bitboards(board, color))
            game_ids.append(game_id)
            plies.append(ply)
            whites.append(color == chess.WHITE)
            results.append(result)
    info = PositionInfo(
        game=np.array(game_ids, dtype=np.int64),
        white=np.array(whites, dtype=bool),
        move_number=np.array(move_numbers, dtype=np.int64),
        result=np.array(results, dtype=np.int8),
    )
    return PlayerMoves(
        bitboards=np.array(bitboards, dtype=np.uint64).reshape(-1, 12),
        moved_to=np.array(moved_to, dtype=np.uint64),
        game=info.game,
        ply=np.array(plies, dtype=np.int64),
        info=info,
    )


def positions_before(
    games: Sequence[PlayerGame], wanted: dict[int, set[int]]
) -> Iterator[tuple[int, int, chess.Board, chess.Move]]:
    """Yield ``(game index, ply, board, move played)`` for the wanted plies.

    ``wanted`` maps a game's index in ``games`` to the plies wanted from it; the
    board is the live position before the move, with the game's history in its
    move stack. It is the same board object advanced in place, so a caller must
    not keep it past the next iteration.
    """
    for game_id in sorted(wanted):
        plies = wanted[game_id]
        game = games[game_id]
        board = game.board()
        last = max(plies)
        for ply, move in enumerate(game.moves[: last + 1]):
            if ply in plies:
                yield game_id, ply, board, move
            board.push(move)
