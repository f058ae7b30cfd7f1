"""The seeds' worked examples as game trees: test cases with known answers."""

from __future__ import annotations

from search.games.trees import ChanceNode, Decision, TreeGame, two_ply

__all__ = [
    "SEED000_TWO_PLY",
    "COIN_FLIP",
    "THREE_PLAYER",
    "seed000_game",
    "coin_flip_game",
    "three_player_game",
]

# Seed 000, "Minimax": a 2-ply game, MAX over three MIN nodes.
SEED000_TWO_PLY = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]

# Seed 000, "Nondeterministic games": MAX chooses between two coin flips, each landing
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

# Seed 003, "Multi-player non-zero-sum games": player 0 at the root, then player 1,
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


def seed000_game() -> TreeGame:
    """Seed 000's two-ply tree; actions A1..A3, then A11..A33."""
    return TreeGame(two_ply(SEED000_TWO_PLY))


def coin_flip_game() -> TreeGame:
    return TreeGame(COIN_FLIP)


def three_player_game() -> TreeGame:
    return TreeGame(THREE_PLAYER)
