"""The source notes' worked examples: exact values, best moves and which leaves get visited."""

import pytest

from search import alphabeta, expectiminimax, maxn, minimax, retrograde
from search.games import Decision, Nim, TicTacToe, TreeGame, two_ply, uniform
from search.games.seeds import (
    SEED000_TWO_PLY,
    SEED001_MINIMAX,
    SEED003_SCALE,
    SEED003_SCALE_SQUARED,
    SEED003_WORST_CASE,
    coin_flip_game,
    seed000_game,
    seed001_game,
    seed003_expectimax_game,
    three_player_game,
)


class RecordingTree(TreeGame):
    """A tree game that remembers which leaves had their utility read."""

    def __init__(self, root):
        super().__init__(root)
        self.read = []

    def utility(self, state, player):
        self.read.append(state)
        return super().utility(state, player)


def test_seed000_minimax_value_and_move():
    result = minimax(seed000_game(), ())
    assert result.value == 3
    assert result.move == "A1"
    assert result.pv == ("A1", "A11")
    assert result.nodes == 13  # root, three MIN nodes, nine leaves


def test_seed000_alphabeta_skips_exactly_the_crossed_out_leaves():
    game = RecordingTree(two_ply(SEED000_TWO_PLY))
    result = alphabeta(game, ())
    assert result.value == 3
    assert result.move == "A1"
    # The slide crosses out A22 and A23: once A21 = 2 < 3, MIN's node A2 is worth at most 2.
    visited = [path[-1] for path in game.read]
    assert visited == ["A11", "A12", "A13", "A21", "A31", "A32", "A33"]
    assert result.nodes == 11
    # Beta cutoffs at A2 (after A21) and at A3, whose last leaf 2 < 3 fails it low.
    assert result.cutoffs == 2


def test_seed000_minimax_reads_every_leaf():
    game = RecordingTree(two_ply(SEED000_TWO_PLY))
    minimax(game, ())
    assert len(game.read) == 9


def test_seed001_minimax_example():
    result = minimax(seed001_game(), ())
    assert result.value == 1  # "Best value for MAX is 1"
    assert (result.move, result.pv) == ("b", ("b", "d"))
    assert minimax(seed001_game(), ("b",)).value == -1  # MIN to move at b: 1 for MAX
    assert minimax(seed001_game(), ("c",)).value == 1  # and -1 for MAX at c
    assert result.nodes == 7


def test_seed001_alphabeta_skips_g():
    game = RecordingTree(SEED001_MINIMAX)
    result = alphabeta(game, ())
    assert (result.value, result.move) == (1, "b")
    # Once f = -1 is seen, c is worth at most -1 < 1: g cannot matter.
    assert [path[-1] for path in game.read] == ["d", "e", "f"]


def test_seed003_expectimax_example():
    game = seed003_expectimax_game()
    result = expectiminimax(game, ())
    assert result.value == pytest.approx(7.0)  # (10 + 4) / 2 against (5 + 7) / 2 = 6
    assert result.move == "left"
    assert expectiminimax(game, ("right",)).value == pytest.approx(6.0)


def _as_opponent(tree):
    """The same tree with every chance node replaced by a MIN node (player 1)."""
    return Decision(0, {label: Decision(1, {o: leaf for o, (_, leaf) in chance.outcomes.items()})
                        for label, chance in tree.children.items()})


def test_seed003_minimax_is_blind_to_scale_expectimax_is_not():
    before = expectiminimax(TreeGame(SEED003_SCALE), ())
    after = expectiminimax(TreeGame(SEED003_SCALE_SQUARED), ())
    assert (before.value, before.move) == (pytest.approx(25.0), "right")
    assert (after.value, after.move) == (pytest.approx(800.0), "left")
    adversarial = [minimax(TreeGame(_as_opponent(t)), ()) for t in (SEED003_SCALE, SEED003_SCALE_SQUARED)]
    assert [r.move for r in adversarial] == ["right", "right"]  # 0 vs 20, 0 vs 400
    assert [r.value for r in adversarial] == [20, 400]


def test_seed003_minimax_assumes_the_worst():
    worst = minimax(TreeGame(SEED003_WORST_CASE), ())
    assert (worst.value, worst.move) == (10, "left")
    random_opponent = Decision(0, {
        label: uniform(dict(node.children)) for label, node in SEED003_WORST_CASE.children.items()
    })
    result = expectiminimax(TreeGame(random_opponent), ())
    assert (result.value, result.move) == (pytest.approx(54.5), "right")


def test_coin_flip_expectiminimax():
    result = expectiminimax(coin_flip_game(), ())
    assert result.value == pytest.approx(3.0)  # chance nodes worth 3 and -1
    assert result.move == "left"


def test_coin_flip_chance_node_value():
    game = coin_flip_game()
    assert expectiminimax(game, ("right",)).value == pytest.approx(-1.0)
    assert expectiminimax(game, ("right",)).move is None


def test_three_player_maxn():
    game = three_player_game()
    result = maxn(game, ())
    # Player 2 keeps (1,2,6), (6,1,2), (1,5,2), (5,4,5); player 1 keeps (1,2,6) and
    # (1,5,2); player 0 is indifferent (1 either way) and the first action wins ties.
    assert result.value == (1, 2, 6)
    assert result.pv == ("L", "LL", "a")
    assert maxn(game, ("R",)).value == (1, 5, 2)


def test_ii_nim_value_is_minus_one():
    game = Nim()
    result = minimax(game, game.initial_state())
    assert result.value == -1
    assert alphabeta(game, game.initial_state()).value == -1


def _drawn(game, state):
    """The game tree below ``state`` as (label, minimax value, children) like the slide."""
    piles, player = state
    label = "(" + " ".join("-" if p == 0 else "i" * p for p in piles) + ") " + "AB"[player]
    children = [_drawn(game, game.result(state, a)) for a in game.actions(state)]
    value = minimax(game, state).value
    value_for_a = value if player == 0 else -value
    return (label, value_for_a, children)


def test_ii_nim_tree_as_drawn():
    # Source note 004, slide 15: every node with its minimax value for A, children in the
    # order drawn.
    leaf_a = ("(- -) A", 1, [])
    leaf_b = ("(- -) B", -1, [])
    expected = (
        "(ii ii) A", -1, [
            ("(i ii) B", -1, [
                ("(- ii) A", 1, [("(- i) B", 1, [leaf_a]), leaf_b]),
                ("(i i) A", 1, [("(- i) B", 1, [leaf_a])]),
                ("(- i) A", -1, [leaf_b]),
            ]),
            ("(- ii) B", -1, [("(- i) A", -1, [leaf_b]), leaf_a]),
        ],
    )
    game = Nim()
    assert _drawn(game, game.initial_state()) == expected
    assert minimax(game, game.initial_state()).nodes == 15


def test_ii_nim_state_space_by_dynamic_programming():
    # Source note 004, slides 8 and 22: the twelve states of S, solved at once; every value
    # agrees with recursive minimax, and A to move at (ii, ii) loses.
    game = Nim()
    piles = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    states = [(p, player) for p in piles for player in (0, 1)]
    solution = retrograde(game, states)
    assert len(solution) == 12
    for state in states:
        assert solution.outcome[state] == minimax(game, state).value
    assert solution.outcome[game.initial_state()] == -1
    assert solution.outcome[((0, 0), 0)] == 1 and solution.outcome[((0, 0), 1)] == 1
    # Reachable from (ii, ii)-A: nine of them ((i, i)-B, (i, ii)-A, (ii, ii)-B are not).
    assert len(retrograde(game)) == 9


def test_tictactoe_value_is_zero():
    game = TicTacToe()
    assert minimax(game, game.initial_state()).value == 0
    assert alphabeta(game, game.initial_state()).value == 0
