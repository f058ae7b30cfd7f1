"""The source notes' worked examples as game trees: test cases with known answers."""

from __future__ import annotations

from search.games.trees import ChanceNode, Decision, TreeGame, two_ply, uniform

__all__ = [
    "SEED000_TWO_PLY",
    "COIN_FLIP",
    "THREE_PLAYER",
    "SEED001_MINIMAX",
    "SEED003_EXPECTIMAX",
    "SEED003_WORST_CASE",
    "SEED003_SCALE",
    "SEED003_SCALE_SQUARED",
    "seed000_game",
    "coin_flip_game",
    "three_player_game",
    "seed001_game",
    "seed003_expectimax_game",
]

# Source note 000, "Minimax": a 2-ply game, MAX over three MIN nodes.
SEED000_TWO_PLY = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]

# Source note 000, "Nondeterministic games": MAX chooses between two coin flips, each landing
# on a MIN node; MIN values 2, 4 and 0, -2, so the chance nodes are worth 3 and -1.
COIN_FLIP = Decision(
    0,
    {
        "left": ChanceNode(
            {"heads": (0.5, Decision(1, {"a": 2, "b": 4})), "tails": (0.5, Decision(1, {"a": 7, "b": 4}))}
        ),
        "right": ChanceNode(
            {"heads": (0.5, Decision(1, {"a": 6, "b": 0})), "tails": (0.5, Decision(1, {"a": 5, "b": -2}))}
        ),
    },
)

# Source note 003, "Multi-player non-zero-sum games": player 0 at the root, then player 1,
# then player 2 choosing between leaves with utility tuples.
THREE_PLAYER = Decision(
    0,
    {
        "L": Decision(
            1,
            {
                "LL": Decision(2, {"a": (1, 2, 6), "b": (4, 3, 2)}),
                "LR": Decision(2, {"a": (6, 1, 2), "b": (7, 4, 1)}),
            },
        ),
        "R": Decision(
            1,
            {
                "RL": Decision(2, {"a": (5, 1, 1), "b": (1, 5, 2)}),
                "RR": Decision(2, {"a": (7, 7, 1), "b": (5, 4, 5)}),
            },
        ),
    },
)


# Source note 001, "An example": MAX at a, MIN at b and c, terminal states d e f g with
# payoffs 1 1 -1 0 as drawn (d, e under b; f, g under c): b = 1, c = -1, "Best value
# for MAX is 1".
SEED001_MINIMAX = Decision(
    0,
    {
        "b": Decision(1, {"d": 1, "e": 1}),
        "c": Decision(1, {"f": -1, "g": 0}),
    },
)

# Source note 003, "Expectimax Search Trees": MAX over chance nodes with leaves 10 4 5 7, two
# outcomes each as drawn. The source note gives no probabilities ("chance nodes take average
# (expectation) of value of children"), so the outcomes are read as equally likely:
# the chance nodes are worth 7 and 6, MAX takes 7.
SEED003_EXPECTIMAX = Decision(
    0,
    {"left": uniform({"a": 10, "b": 4}), "right": uniform({"a": 5, "b": 7})},
)

# Source note 003, "Minimax Properties" ("Optimal? Yes, against perfect player. Otherwise?"):
# MAX over two MIN nodes with leaves 10 10 and 9 100. Minimax takes 10 on the left; an
# opponent who moves at random (each move equally likely) makes the right worth 54.5.
SEED003_WORST_CASE = Decision(
    0,
    {"left": Decision(1, {"a": 10, "b": 10}), "right": Decision(1, {"a": 9, "b": 100})},
)

# Source note 003, "Expectimax Evaluation": leaves 0 40 20 30 and, after x^2, 0 1600 400 900.
# Averages 20 and 25 pick the right; squared, 800 and 650 pick the left: expectimax
# needs meaningful magnitudes, minimax only the order (as drawn, two outcomes each,
# equally likely).
SEED003_SCALE = Decision(0, {"left": uniform({"a": 0, "b": 40}), "right": uniform({"a": 20, "b": 30})})
SEED003_SCALE_SQUARED = Decision(
    0, {"left": uniform({"a": 0, "b": 1600}), "right": uniform({"a": 400, "b": 900})}
)


def seed000_game() -> TreeGame:
    """Source note 000's two-ply tree; actions A1..A3, then A11..A33."""
    return TreeGame(two_ply(SEED000_TWO_PLY))


def coin_flip_game() -> TreeGame:
    return TreeGame(COIN_FLIP)


def three_player_game() -> TreeGame:
    return TreeGame(THREE_PLAYER)


def seed001_game() -> TreeGame:
    """Source note 001's minimax example; actions b, c, then d .. g."""
    return TreeGame(SEED001_MINIMAX)


def seed003_expectimax_game() -> TreeGame:
    """Source note 003's expectimax tree (outcomes equally likely; see :data:`SEED003_EXPECTIMAX`)."""
    return TreeGame(SEED003_EXPECTIMAX)
