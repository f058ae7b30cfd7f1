"""Tic-tac-toe (source notes 000 and 002): player 0 plays X and moves first; value 0 with
best play."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from search.game import Capabilities, Game
from search.zobrist import ZobristKeys

__all__ = ["TicTacToe", "Board"]

Board = tuple[int, ...]
"""Nine cells, row by row from the top left: 0 empty, 1 X (player 0), 2 O (player 1)."""

_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)


class TicTacToe(Game):
    """States are :data:`Board` tuples; an action is the index of an empty cell."""

    capabilities = Capabilities(players=2, zero_sum=True, chance=False)

    def __init__(self, *, seed: int = 0) -> None:
        self._zobrist = ZobristKeys(18, seed=seed)

    def initial_state(self) -> Board:
        return (0,) * 9

    def to_move(self, state: Board) -> int:
        return sum(1 for cell in state if cell) % 2

    def actions(self, state: Board) -> Sequence[int]:
        if self.winner(state) is not None:
            return ()
        return tuple(i for i, cell in enumerate(state) if not cell)

    def result(self, state: Board, action: int) -> Board:
        if self.winner(state) is not None:
            raise ValueError("the game is over")
        if state[action]:
            raise ValueError(f"cell {action} is taken")
        return state[:action] + (self.to_move(state) + 1,) + state[action + 1 :]

    def is_terminal(self, state: Board) -> bool:
        return self.winner(state) is not None or all(state)

    def utility(self, state: Board, player: int) -> float:
        winner = self.winner(state)
        if winner is None:
            return 0.0
        return 1.0 if winner == player else -1.0

    def key(self, state: Board) -> Hashable:
        return self._zobrist.key(2 * i + cell - 1 for i, cell in enumerate(state) if cell)

    @staticmethod
    def winner(state: Board) -> int | None:
        """The player with three in a line, if any."""
        for a, b, c in _LINES:
            if state[a] and state[a] == state[b] == state[c]:
                return state[a] - 1
        return None
