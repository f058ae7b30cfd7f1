"""Replaying the player's games into the flat arrays the model learns from.

One pass over the games pushes every move once and records, after each of the
modelled player's moves, the twelve relative bitboards of the position (see
:mod:`iam.chunks.board`), the squares the move put the player's pieces on, and the facts
the statistics need (game, colour, move number, result).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from iam.chunks.noise_filter import RESULT_CODES, PositionInfo
from iam.games.pgn import PlayerGame

__all__ = ["PlayerMoves", "replay", "player_move_count"]


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
    kept_boards: tuple[chess.Board, ...] = ()
    """Boards before the moves :func:`replay` was asked to keep, in order (last two moves in their stack)."""

    def __len__(self) -> int:
        return len(self.game)


def player_move_count(games: Sequence[PlayerGame]) -> int:
    """How many moves the modelled player makes in ``games`` (= ``len(replay(games))``), without replaying."""
    return sum(game.player_moves for game in games)


def replay(games: Sequence[PlayerGame], *, keep: np.ndarray | None = None) -> PlayerMoves:
    """Replay ``games`` and record the position after each of the player's moves.

    ``keep`` (sorted indices of the player's moves, as in the result) asks for a
    copy of the live board *before* each of those moves in ``kept_boards``, so that
    no caller replays the games again. A kept board's move stack holds only the last
    two moves (what the partial finder looks at; copying whole histories is slow).
    """
    wanted = iter(np.asarray(keep if keep is not None else [], dtype=np.int64).tolist())
    next_kept = next(wanted, -1)
    kept: list[chess.Board] = []
    raw: list[tuple[int, ...]] = []
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
            if len(game_ids) == next_kept:
                kept.append(board.copy(stack=2))
                next_kept = next(wanted, -1)
            before = board.occupied_co[color]
            move_numbers.append(board.fullmove_number)
            board.push(move)
            raw.append(
                (
                    board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
                    board.occupied_co[color], board.occupied_co[not color], board.occupied_co[color] & ~before,
                )
            )
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
    bitboards, moved_to = _relative(np.array(raw, dtype=np.uint64).reshape(-1, 9), info.white)
    return PlayerMoves(
        bitboards=bitboards,
        moved_to=moved_to,
        game=info.game,
        ply=np.array(plies, dtype=np.int64),
        info=info,
        kept_boards=tuple(kept),
    )


def _relative(raw: np.ndarray, white: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(N, 12)`` relative bitboards (as :func:`iam.chunks.board.relative_bitboards`) and the moved-to bitboards.

    ``raw`` holds per position the six piece-type masks, the player's and the
    opponent's occupancy and the squares the move filled; Black's ranks are
    flipped by reversing the bytes of each mask.
    """
    types, own, opponent = raw[:, :6], raw[:, 6:7], raw[:, 7:8]
    bitboards = np.concatenate([types & own, types & opponent], axis=1)
    moved_to = raw[:, 8].copy()
    black = ~white
    bitboards[black] = bitboards[black].byteswap()
    moved_to[black] = moved_to[black].byteswap()
    return bitboards, moved_to
