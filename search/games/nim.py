"""Nim as in source note 004: take any number of matches from one pile; whoever takes the
last match loses. ``Nim()`` is source note 004's II-Nim (two piles of two), value -1 for the
first player (A)."""

from __future__ import annotations

from collections.abc import Sequence

from search.game import Capabilities, Game

__all__ = ["Nim", "NimState"]

NimState = tuple[tuple[int, ...], int]
"""(pile sizes in ascending order, player to move). Piles are unordered, as in the source note."""


class Nim(Game):
    """An action ``(pile, count)`` takes ``count`` matches from the ``pile``-th pile.

    Actions that lead to the same position (equal piles) are listed once, in the order
    the source note draws them: piles left to right, fewer matches first.
    """

    capabilities = Capabilities(players=2, zero_sum=True, chance=False)

    def __init__(self, piles: Sequence[int] = (2, 2)) -> None:
        if not piles or any(p < 0 for p in piles):
            raise ValueError(f"piles must be non-negative and at least one, got {piles}")
        self.piles = tuple(sorted(piles))

    def initial_state(self) -> NimState:
        return (self.piles, 0)

    def to_move(self, state: NimState) -> int:
        return state[1]

    def actions(self, state: NimState) -> Sequence[tuple[int, int]]:
        piles, _ = state
        seen, moves = set(), []
        for pile, size in enumerate(piles):
            for count in range(1, size + 1):
                after = self._take(piles, pile, count)
                if after not in seen:
                    seen.add(after)
                    moves.append((pile, count))
        return tuple(moves)

    def result(self, state: NimState, action: tuple[int, int]) -> NimState:
        piles, player = state
        pile, count = action
        if not (0 <= pile < len(piles) and 1 <= count <= piles[pile]):
            raise ValueError(f"cannot take {count} from pile {pile} of {piles}")
        return (self._take(piles, pile, count), 1 - player)

    def is_terminal(self, state: NimState) -> bool:
        return not any(state[0])

    def utility(self, state: NimState, player: int) -> float:
        # The player to move at the end did not take the last match: they win.
        return 1.0 if player == state[1] else -1.0

    @staticmethod
    def _take(piles: tuple[int, ...], pile: int, count: int) -> tuple[int, ...]:
        return tuple(sorted(piles[:pile] + (piles[pile] - count,) + piles[pile + 1 :]))
