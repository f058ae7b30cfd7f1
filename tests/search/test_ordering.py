"""search.ordering.HeuristicOrderer: the hint, game priorities, killers and history, in that order."""

import math

from search.game import PathCursor
from search.games import Nim
from search.ordering import HeuristicOrderer


class PriorityNim(Nim):
    """Nim whose actions taking three matches are 'captures' with priority 3 (others 0)."""

    def action_priority(self, state, action):
        return 3 if action[1] == 3 else 0


GAME = PriorityNim((1, 2, 3))
ROOT = GAME.initial_state()
ACTIONS = tuple(GAME.actions(ROOT))  # (0,1) (1,1) (1,2) (2,1) (2,2) (2,3)


def _cursor():
    return PathCursor(GAME, ROOT)


def test_without_information_the_games_order_is_kept():
    """No hint, no priority, no cutoffs: the order is the game's (the sort is stable)."""
    orderer = HeuristicOrderer(priorities=False)
    assert orderer.order(_cursor(), ACTIONS, ply=0, hint=None) == list(ACTIONS)
    assert HeuristicOrderer().order(_cursor(), ACTIONS, ply=0, hint=None) == [(2, 3), *ACTIONS[:5]]


def test_the_hint_comes_first_then_priorities():
    """The table's action beats a positive priority, which beats everything else."""
    order = HeuristicOrderer().order(_cursor(), ACTIONS, ply=0, hint=(1, 1))
    assert order[:2] == [(1, 1), (2, 3)]
    assert sorted(order) == sorted(ACTIONS)


def test_a_hint_not_among_the_actions_is_ignored():
    order = HeuristicOrderer(priorities=False).order(_cursor(), ACTIONS, ply=0, hint=(9, 9))
    assert order == list(ACTIONS)


def test_killers_are_per_ply_most_recent_first_and_at_most_two():
    """Quiet cutoff actions become killers at their ply only; a third pushes out the oldest."""
    orderer = HeuristicOrderer(priorities=False, history=False)
    cursor = _cursor()
    for action in [(0, 1), (1, 2), (2, 2)]:
        orderer.record_cutoff(cursor, action, ply=3, depth=1)
    order = orderer.order(cursor, ACTIONS, ply=3, hint=None)
    assert order[:2] == [(2, 2), (1, 2)]
    assert order[2:] == [(0, 1), (1, 1), (2, 1), (2, 3)]  # (0, 1) was pushed out
    assert orderer.order(cursor, ACTIONS, ply=2, hint=None) == list(ACTIONS)


def test_a_repeated_killer_is_not_stored_twice():
    orderer = HeuristicOrderer(priorities=False, history=False)
    cursor = _cursor()
    for action in [(1, 2), (2, 1), (2, 1)]:
        orderer.record_cutoff(cursor, action, ply=0, depth=1)
    assert orderer.order(cursor, ACTIONS, ply=0, hint=None)[:2] == [(2, 1), (1, 2)]


def test_history_adds_depth_squared_per_player():
    """A cutoff at depth 3 (bonus 9) outranks three at depth 1 (bonus 3); another mover sees none."""
    orderer = HeuristicOrderer(priorities=False, killers=False)
    cursor = _cursor()
    for _ in range(3):
        orderer.record_cutoff(cursor, (0, 1), ply=0, depth=1)
    orderer.record_cutoff(cursor, (2, 2), ply=0, depth=3)
    orderer.record_cutoff(cursor, (1, 1), ply=0, depth=math.inf)  # bonus 1
    assert orderer.order(cursor, ACTIONS, ply=5, hint=None)[:3] == [(2, 2), (0, 1), (1, 1)]
    cursor.push((0, 1))  # player 1 to move: the same actions have no history for them
    theirs = GAME.actions(cursor.state)
    assert orderer.order(cursor, theirs, ply=1, hint=None) == list(theirs)


def test_cutoffs_of_priority_actions_are_not_learned():
    """A capture's cutoff is ordered by its priority already: it becomes no killer and gets no history."""
    cursor = _cursor()
    learned = HeuristicOrderer(priorities=True)
    learned.record_cutoff(cursor, (2, 3), ply=0, depth=4)
    learned.priorities = False  # now only killers and history could move it
    assert learned.order(cursor, ACTIONS, ply=0, hint=None) == list(ACTIONS)
    quiet = HeuristicOrderer(priorities=False)  # without priorities it is a quiet action and is learned
    quiet.record_cutoff(cursor, (2, 3), ply=0, depth=4)
    assert quiet.order(cursor, ACTIONS, ply=0, hint=None)[0] == (2, 3)


def test_switched_off_parts_are_ignored_and_clear_forgets():
    """killers=False, history=False: cutoffs change nothing; clear() empties the tables."""
    cursor = _cursor()
    off = HeuristicOrderer(priorities=False, killers=False, history=False)
    off.record_cutoff(cursor, (2, 2), ply=0, depth=5)
    assert off.order(cursor, ACTIONS, ply=0, hint=None) == list(ACTIONS)
    on = HeuristicOrderer(priorities=False)
    on.record_cutoff(cursor, (2, 2), ply=0, depth=5)
    assert on.order(cursor, ACTIONS, ply=0, hint=None)[0] == (2, 2)
    on.clear()
    assert on.order(cursor, ACTIONS, ply=0, hint=None) == list(ACTIONS)
