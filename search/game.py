"""The formal game of source note 000: S0, PLAYER, ACTIONS, RESULT, TERMINAL-TEST, UTILITY.

A game object holds only the rules. Algorithms see this thin interface and nothing
else, so they never know which game they search. Each game declares its
:class:`Capabilities`; an algorithm calls :func:`require` on entry and refuses a game
it cannot handle with a ``ValueError``.

Walking a tree by copying states at every node is clean but slow for chess, so the
algorithms walk through a :class:`Cursor` (push an action, pop it back). Every game
gets a correct cursor for free (:class:`PathCursor`, built on ``result``); a game with
a cheaper in-place path (the chess adapter) overrides :meth:`Game.cursor`.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

__all__ = [
    "Action",
    "State",
    "Player",
    "Chance",
    "CHANCE",
    "Capabilities",
    "Game",
    "Cursor",
    "PathCursor",
    "require",
    "distance_shifted",
]

# States and actions are values each game owns, so both are typed Any here and a game's
# methods name its own types (a chess move, a pile and a count). Actions must be hashable:
# they key transposition tables, move orderers and belief maps.
State: TypeAlias = Any
Action: TypeAlias = Any


class Chance(enum.Enum):
    """The 'player' who moves at a chance node (a die roll, a coin flip)."""

    CHANCE = "chance"


CHANCE = Chance.CHANCE
Player: TypeAlias = "int | Chance"


@dataclass(frozen=True)
class Capabilities:
    """What kind of game this is; algorithms check it before they start.

    ``players`` are numbered ``0 .. players - 1`` and player 0 moves first (MAX).
    ``zero_sum`` means the utilities of every terminal state add up to zero.
    ``chance`` means some states are chance nodes (``to_move`` returns ``CHANCE``)
    whose outcomes come with probabilities from :meth:`Game.chance_outcomes`.

    ``win_bound``, when set, says that utilities at least this large in magnitude are
    wins and losses *scored by distance*: :meth:`Game.utility` scores the decided
    state itself, and a cursor reads it one closer to zero for every ply it pushed
    since its root (a win two plies away is worth ``W - 2``), so searches prefer
    quicker wins and longer resistance. Such a value depends on the path length to the
    state, so a transposition table stores it as a distance from the node where it
    was found (see :func:`distance_shifted`). ``None``: utilities are plain numbers.
    """

    players: int = 2
    zero_sum: bool = True
    chance: bool = False
    win_bound: float | None = None

    def __post_init__(self) -> None:
        if self.players < 1:
            raise ValueError(f"a game needs at least one player, got {self.players}")


class Game(ABC):
    """Rules of a finite game in source note 000's six parts; states are values the game owns.

    ``to_move`` is defined on terminal states too (it names who would move next), so
    the utility of a terminal state can be read from the point of view of the player
    to move. Actions of a state come in a fixed, deterministic order.
    """

    capabilities: Capabilities = Capabilities()

    @abstractmethod
    def initial_state(self) -> State:
        """S0: the state the game starts in."""

    @abstractmethod
    def to_move(self, state: State) -> Player:
        """PLAYER(s): the player to move, or ``CHANCE`` at a chance node."""

    @abstractmethod
    def actions(self, state: State) -> Sequence[Action]:
        """ACTIONS(s): the legal actions (at a chance node: the possible outcomes)."""

    @abstractmethod
    def result(self, state: State, action: Action) -> State:
        """RESULT(s, a): the state after ``action``; ``state`` itself is left unchanged."""

    @abstractmethod
    def is_terminal(self, state: State) -> bool:
        """TERMINAL-TEST(s): whether the game is over."""

    @abstractmethod
    def utility(self, state: State, player: int) -> float:
        """UTILITY(s, p): the payoff of terminal state ``state`` for ``player``."""

    def utilities(self, state: State) -> tuple[float, ...]:
        """The utility tuple of a terminal state, one entry per player (for max^n)."""
        return tuple(self.utility(state, p) for p in range(self.capabilities.players))

    def chance_outcomes(self, state: State) -> Sequence[tuple[Action, float]]:
        """The outcomes of a chance node with their probabilities (summing to 1)."""
        raise ValueError(f"{type(self).__name__} has no chance nodes")

    def key(self, state: State) -> Hashable:
        """A hashable identity of ``state`` for transposition tables and solvers."""
        return state

    def noisy_actions(self, state: State) -> Sequence[Action]:
        """Actions that change the evaluation sharply (captures, promotions).

        Quiescence search follows only these beyond the depth limit; a game without
        such a notion returns none, and quiescence then reduces to the evaluation.
        """
        return ()

    def stand_pat_allowed(self, state: State) -> bool:
        """Whether quiescence search may stop at ``state`` on its evaluation.

        Standing pat assumes the player to move could at least keep the evaluation by
        a quiet move. Where that fails (in chess: the side to move is in check, and
        may be mated or lose material whatever it does) the game says no, and
        quiescence searches every action there instead. Default: allowed.
        """
        return True

    def action_priority(self, state: State, action: Action) -> int:
        """A static ordering hint: higher is tried earlier (MVV-LVA for captures)."""
        return 0

    def cursor(self, state: State) -> Cursor:
        """A cursor rooted at ``state``; override for a faster in-place walk."""
        return PathCursor(self, state)


class Cursor(Protocol):
    """A position in a tree walk: query the current state, push an action, pop it.

    ``state`` is the current state; for games that walk in place (chess) it is a live
    object that changes on the next push or pop, so copy it to keep it. ``ply`` counts
    the actions pushed since the cursor's root. ``win_bound`` is the game's
    :attr:`Capabilities.win_bound`; ``utility`` and ``utilities`` score a
    distance-scored win from the cursor's root (``ply`` plies closer to zero than
    :meth:`Game.utility`).
    """

    @property
    def state(self) -> State: ...

    @property
    def ply(self) -> int: ...

    @property
    def win_bound(self) -> float | None: ...

    def to_move(self) -> Player: ...

    def actions(self) -> Sequence[Action]: ...

    def is_terminal(self) -> bool: ...

    def utility(self, player: int) -> float: ...

    def utilities(self) -> tuple[float, ...]: ...

    def chance_outcomes(self) -> Sequence[tuple[Action, float]]: ...

    def key(self) -> Hashable: ...

    def noisy_actions(self) -> Sequence[Action]: ...

    def stand_pat_allowed(self) -> bool: ...

    def action_priority(self, action: Action) -> int: ...

    def push(self, action: Action) -> None: ...

    def pop(self) -> None: ...


class PathCursor:
    """The generic cursor: a stack of states built with ``Game.result``."""

    __slots__ = ("_game", "_states")

    def __init__(self, game: Game, state: State) -> None:
        self._game = game
        self._states = [state]

    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def ply(self) -> int:
        return len(self._states) - 1

    @property
    def win_bound(self) -> float | None:
        return self._game.capabilities.win_bound

    def to_move(self) -> Player:
        return self._game.to_move(self._states[-1])

    def actions(self) -> Sequence[Action]:
        return self._game.actions(self._states[-1])

    def is_terminal(self) -> bool:
        return self._game.is_terminal(self._states[-1])

    def utility(self, player: int) -> float:
        value = self._game.utility(self._states[-1], player)
        return distance_shifted(value, self.ply, self.win_bound)

    def utilities(self) -> tuple[float, ...]:
        bound, ply = self.win_bound, self.ply
        return tuple(distance_shifted(u, ply, bound) for u in self._game.utilities(self._states[-1]))

    def chance_outcomes(self) -> Sequence[tuple[Action, float]]:
        return self._game.chance_outcomes(self._states[-1])

    def key(self) -> Hashable:
        return self._game.key(self._states[-1])

    def noisy_actions(self) -> Sequence[Action]:
        return self._game.noisy_actions(self._states[-1])

    def stand_pat_allowed(self) -> bool:
        return self._game.stand_pat_allowed(self._states[-1])

    def action_priority(self, action: Action) -> int:
        return self._game.action_priority(self._states[-1], action)

    def push(self, action: Action) -> None:
        self._states.append(self._game.result(self._states[-1], action))

    def pop(self) -> None:
        if len(self._states) == 1:
            raise IndexError("pop from a cursor at its root")
        self._states.pop()


def require(
    game: Game,
    algorithm: str,
    *,
    players: int | None = None,
    zero_sum: bool = False,
    chance_allowed: bool = False,
) -> None:
    """Refuse, with a ``ValueError`` naming the gap, a game ``algorithm`` cannot search."""
    caps = game.capabilities
    name = type(game).__name__
    if players is not None and caps.players != players:
        raise ValueError(f"{algorithm} needs a {players}-player game; {name} has {caps.players}")
    if zero_sum and not caps.zero_sum:
        raise ValueError(f"{algorithm} needs a zero-sum game; {name} is not zero-sum")
    if caps.chance and not chance_allowed:
        raise ValueError(
            f"{algorithm} cannot search chance nodes; {name} has them (use expectiminimax)"
        )


def distance_shifted(value: float, plies: float, win_bound: float | None) -> float:
    """``value`` seen ``plies`` further from where it was decided (negative: nearer).

    A distance-scored win (``value >= win_bound``) loses ``plies`` in magnitude, as
    does a loss (``value <= -win_bound``); other values, and every value when
    ``win_bound`` is ``None``, are unchanged. A transposition table stores a value
    found ``ply`` plies below the root as ``distance_shifted(value, -ply, bound)``
    (relative to its node) and reads it back with ``distance_shifted(stored, ply,
    bound)``, so the same position reached by paths of different lengths, or from
    another root, gets its own correct distance.
    """
    if win_bound is None or -win_bound < value < win_bound:
        return value
    return value - plies if value > 0 else value + plies
