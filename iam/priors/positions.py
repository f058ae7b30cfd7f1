"""The positions a move ranker learns from and is measured on.

A :class:`PlayerPosition` is one moment of a game where the modelled player is to move:
the board with its move stack (the opening memory and the recapture feature look at
the moves that led there), every legal move in a fixed order, and which of them the
player chose. Every feature of the ranker is a column over ``PlayerPosition.moves``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from iam.games.pgn import PlayerGame

__all__ = ["PlayerPosition", "player_positions", "position_of", "count_player_moves"]


@dataclass(frozen=True)
class PlayerPosition:
    """A position where the modelled player is to move, and the move he chose (if known)."""

    board: chess.Board
    """The board with the game's move stack; its side to move is the player."""
    moves: tuple[chess.Move, ...]
    """Every legal move, sorted by UCI text (a deterministic order)."""
    played: int = -1
    """Index of the move played in ``moves``; -1 when unknown (a live position)."""
    game: int = -1
    """The game's protocol number (``PlayerGame.index``); -1 for a live position."""
    ply: int = 0
    """Plies from the game's start position."""

    @property
    def played_move(self) -> chess.Move | None:
        return self.moves[self.played] if self.played >= 0 else None


def position_of(board: chess.Board, played: chess.Move | None = None, *, game: int = -1) -> PlayerPosition:
    """A :class:`PlayerPosition` for ``board`` (copied), labelled with ``played`` when given."""
    moves = tuple(sorted(board.legal_moves, key=chess.Move.uci))
    index = moves.index(played) if played is not None else -1
    return PlayerPosition(board=board.copy(), moves=moves, played=index, game=game, ply=len(board.move_stack))


def count_player_moves(games: Sequence[PlayerGame]) -> np.ndarray:
    """How many moves the player made in each game (positions he was to move in)."""
    return np.array([game.player_moves for game in games], dtype=np.int64)


def player_positions(
    games: Sequence[PlayerGame], *, sample: int | None = None, random_state: int = 0
) -> list[PlayerPosition]:
    """The player's positions in ``games`` (all, or a seeded uniform sample of ``sample``).

    Positions are returned in game order; a sample draws positions, not games, so
    every game contributes in proportion to its length.
    """
    counts = count_player_moves(games)
    total = int(counts.sum())
    if sample is not None and sample < total:
        rng = np.random.default_rng(random_state)
        chosen = np.sort(rng.choice(total, size=sample, replace=False))
    else:
        chosen = np.arange(total)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    per_game = np.searchsorted(chosen, offsets)
    positions: list[PlayerPosition] = []
    for number, game in enumerate(games):
        wanted = set((chosen[per_game[number] : per_game[number + 1]] - offsets[number]).tolist())
        if wanted:
            positions.extend(_positions_in(game, wanted))
    return positions


def _positions_in(game: PlayerGame, wanted: set[int]) -> list[PlayerPosition]:
    """The player's positions number ``wanted`` (his 0th, 1st ... move) in one game."""
    board = game.board()
    found, own = [], 0
    for move in game.moves:
        if board.turn == game.color:
            if own in wanted:
                found.append(position_of(board, move, game=game.index))
            own += 1
        board.push(move)
    return found
