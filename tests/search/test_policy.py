"""search.policy: the plain policy changes nothing; a policy's plan reorders, extends, reduces and prunes."""

from search import alphabeta
from search.game import PathCursor
from search.games import Decision, TreeGame
from search.games.seeds import seed000_game
from search.policy import PlainPolicy


def test_plain_policy_plans_nothing():
    """PlainPolicy returns None at every node, whatever it is shown."""
    game = seed000_game()
    cursor = PathCursor(game, ())
    assert PlainPolicy().plan(cursor, game.actions(()), ply=0, depth=2) is None
    plain = alphabeta(game, (), policy=PlainPolicy())
    bare = alphabeta(game, ())
    assert (plain.value, plain.move, plain.nodes) == (bare.value, bare.move, bare.nodes)


class _Plan:
    def __init__(self, plan_at_root):
        self.plan_at_root = plan_at_root

    def plan(self, cursor, actions, *, ply, depth):
        return self.plan_at_root if ply == 0 else None


def test_a_plan_that_leaves_out_the_best_action_prunes_it():
    """Forward pruning: an action left out of the plan is never searched."""
    result = alphabeta(seed000_game(), (), policy=_Plan([("A2", 0), ("A3", 0)]))
    assert (result.value, result.move) == (2, "A2")


def test_a_reduction_puts_the_child_at_the_horizon():
    """A -1 adjustment at depth 2 leaves the child 0 plies: it is evaluated, not searched."""
    tree = Decision(0, {"a": Decision(1, {"x": 1, "y": 9}), "b": Decision(1, {"z": 4})})
    evaluate = {("a",): 8.0, ("b",): 0.0}.get
    result = alphabeta(TreeGame(tree), (), depth=2, evaluator=evaluate, policy=_Plan([("a", -1), ("b", 0)]))
    assert (result.value, result.move) == (8.0, "a")
    plain = alphabeta(TreeGame(tree), (), depth=2, evaluator=evaluate)
    assert (plain.value, plain.move) == (4, "b")
