"""Retrograde analysis (source note 004, "Dynamic programming"): solve every state of a small
game at once, backwards from the terminal states, as endgame tablebases are built.

Source note 004 labels each state W, B or ? and sweeps until nothing changes. This solver
does the same work with a queue: terminal states are labelled first; a state whose
mover has a move to a state lost for the opponent is won; a state all of whose moves
lead to states won for the opponent is lost; whatever stays unlabelled is a draw (no
one can force a win, e.g. by repeating). Processing in order of distance gives the
distance to the end in plies under best play: the winner takes the quickest win, the
loser resists longest (in chess: depth to mate, DTM). Loops are fine, unlike recursive
minimax.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from search.game import CHANCE, Action, Game, State, require

__all__ = ["Solution", "retrograde", "best_action"]

WIN, DRAW, LOSS = 1, 0, -1


@dataclass(frozen=True)
class Solution:
    """Per state key: the outcome for the player to move (+1 win, 0 draw, -1 loss) and
    the number of plies to the end of the game under best play (``None`` for draws)."""

    outcome: dict[Hashable, int]
    distance: dict[Hashable, int | None]

    def __len__(self) -> int:
        return len(self.outcome)


def retrograde(  # noqa: C901
    game: Game,
    states: Iterable[State] | None = None,
    *,
    key: Callable[[State], Hashable] | None = None,
) -> Solution:
    """Solve ``states`` (default: every state reachable from the initial state).

    The set must be closed under moves: every successor of a listed state is listed
    (or its key equals a listed state's key), except terminal successors, which are
    scored on the way (a capture leaving bare kings, say). Only the sign of a terminal utility
    matters. ``key`` (default ``game.key``) may merge states known to have the same
    value, e.g. mirror images of a chess endgame.
    """
    require(game, "retrograde analysis", players=2, zero_sum=True)
    key = key or game.key
    pending = deque(states if states is not None else [game.initial_state()])
    explore = states is None
    mover: dict[Hashable, int] = {}
    outcome: dict[Hashable, int] = {}
    distance: dict[Hashable, int] = {}  # plies to the end, of the decided states
    open_moves: dict[Hashable, int] = {}
    parents: dict[Hashable, list[Hashable]] = {}
    frontier: deque[Hashable] = deque()
    unlisted: dict[Hashable, State] = {}

    def add(node: Hashable, state: State) -> None:
        player = game.to_move(state)
        assert player is not CHANCE  # require() refused games with chance nodes
        mover[node] = player
        if game.is_terminal(state):
            utility = game.utility(state, player)
            outcome[node] = (utility > 0) - (utility < 0)
            distance[node] = 0
            if outcome[node] != DRAW:
                frontier.append(node)
            return
        moves = game.actions(state)
        open_moves[node] = len(moves)
        for action in moves:
            child = game.result(state, action)
            child_node = key(child)
            parents.setdefault(child_node, []).append(node)
            if explore:
                pending.append(child)
            elif child_node not in unlisted:
                unlisted[child_node] = child

    while pending:
        state = pending.popleft()
        node = key(state)
        if node not in mover:
            add(node, state)
    for node, state in unlisted.items():
        if node not in mover:
            if not game.is_terminal(state):
                raise ValueError("the state set is not closed under moves: "
                                 f"a non-terminal successor is missing ({state})")
            add(node, state)

    while frontier:
        node = frontier.popleft()
        for parent in parents.get(node, ()):
            if parent in outcome:
                continue
            for_parent = outcome[node] if mover[parent] == mover[node] else -outcome[node]
            if for_parent == WIN:
                outcome[parent], distance[parent] = WIN, distance[node] + 1
                frontier.append(parent)
            else:
                open_moves[parent] -= 1
                if open_moves[parent] == 0:
                    outcome[parent], distance[parent] = LOSS, distance[node] + 1
                    frontier.append(parent)
    distances: dict[Hashable, int | None] = dict(distance)
    for node in mover:
        if node not in outcome:
            outcome[node], distances[node] = DRAW, None
    return Solution(outcome=outcome, distance=distances)


def best_action(game: Game, state: State, solution: Solution, *, key=None) -> Action | None:
    """An action that keeps the solved value, quickest win / longest loss first."""
    key = key or game.key
    me = game.to_move(state)

    def rank(action: Action):
        child = game.result(state, action)
        node = key(child)
        value = solution.outcome[node] if game.to_move(child) == me else -solution.outcome[node]
        plies = solution.distance[node] or 0
        return (value, -plies if value > 0 else plies)

    moves = game.actions(state)
    return max(moves, key=rank) if moves else None
