"""Alpha-beta against minimax: same values, never more leaves; improvements and hooks."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from search import (
    Capabilities,
    HeuristicOrderer,
    TranspositionTable,
    alphabeta,
    minimax,
    retrograde,
)
from search.games import Decision, Nim, TicTacToe, TreeGame


class CountingTree(TreeGame):
    def __init__(self, root):
        super().__init__(root)
        self.leaves_read = 0

    def utility(self, state, player):
        self.leaves_read += 1
        return super().utility(state, player)


@st.composite
def game_trees(draw, depth=4):
    """Random trees; the player at each node is random, so a player may move twice."""
    if depth == 0 or draw(st.integers(0, 5)) == 0:
        return draw(st.integers(-20, 20))
    width = draw(st.integers(1, 4))
    children = {f"m{i}": draw(game_trees(depth=depth - 1)) for i in range(width)}
    return Decision(draw(st.integers(0, 1)), children)


@settings(max_examples=150, deadline=None)
@given(game_trees())
def test_alphabeta_equals_minimax_and_reads_no_more_leaves(tree):
    if not isinstance(tree, Decision):
        tree = Decision(0, {"only": tree})
    plain, pruned = CountingTree(tree), CountingTree(tree)
    expected = minimax(plain, ())
    result = alphabeta(pruned, ())
    assert result.value == expected.value
    assert pruned.leaves_read <= plain.leaves_read
    assert result.nodes <= expected.nodes
    # The chosen move achieves the value.
    child = (result.move,)
    if plain.is_terminal(child):
        achieved = plain.utility(child, plain.to_move(()))
    else:
        achieved = minimax(plain, child).value
        if plain.to_move(child) != plain.to_move(()):
            achieved = -achieved
    assert achieved == expected.value


@settings(max_examples=100, deadline=None)
@given(game_trees())
def test_ordering_and_table_never_change_the_value_on_trees(tree):
    # Explicit trees have no transpositions (a state is its path): this checks that the
    # table's own moves and stores are harmless; the games below reuse its bounds.
    if not isinstance(tree, Decision):
        tree = Decision(0, {"only": tree})
    game = TreeGame(tree)
    plain = alphabeta(game, ())
    table = TranspositionTable()
    improved = alphabeta(game, (), ordering=HeuristicOrderer(), table=table)
    assert improved.value == plain.value
    for _, entry in table:
        assert entry.lower <= entry.upper


nim_piles = st.lists(st.integers(0, 4), min_size=1, max_size=3).filter(any)


@st.composite
def tictactoe_positions(draw):
    """A position reached by a random sequence of legal moves (maybe none)."""
    game = TicTacToe()
    state = game.initial_state()
    for _ in range(draw(st.integers(0, 6))):
        actions = game.actions(state)
        if not actions:
            break
        state = game.result(state, draw(st.sampled_from(actions)))
    return state


def _noise_evaluator(seed):
    """A deterministic, arbitrary evaluation: integers in [-9, 9] keyed by the state."""
    return lambda state: float(hash((seed, state)) % 19 - 9)


def _with_and_without_table(game, state, **options):
    plain = alphabeta(game, state, **options)
    table = TranspositionTable()
    tabled = alphabeta(game, state, table=table, **options)
    ordered = alphabeta(game, state, table=TranspositionTable(), ordering=HeuristicOrderer(), **options)
    for _, entry in table:
        assert entry.lower <= entry.upper
    return plain, tabled, ordered


@settings(max_examples=60, deadline=None)
@given(nim_piles, st.booleans())
def test_table_keeps_the_value_on_nim_with_transpositions(piles, distance):
    # Nim positions recur along paths of different lengths (take 2, or 1 and 1 later).
    game = (DistanceNim if distance else Nim)(piles)
    plain, tabled, ordered = _with_and_without_table(game, game.initial_state())
    assert tabled.value == ordered.value == plain.value == minimax(game, game.initial_state()).value


@settings(max_examples=40, deadline=None)
@given(nim_piles, st.integers(1, 4))
def test_table_keeps_the_depth_limited_value_on_nim(piles, depth):
    # A table may reuse a deeper result nearer the horizon; with an exact evaluator
    # (the solved value) every depth has the same value, so only a misread bound can
    # change it.
    game = Nim(piles)
    solution = retrograde(game)
    exact = lambda state: float(solution.outcome[state] if state[1] == 0 else -solution.outcome[state])  # noqa: E731
    plain, tabled, ordered = _with_and_without_table(game, game.initial_state(), depth=depth, evaluator=exact)
    assert tabled.value == ordered.value == plain.value == solution.outcome[game.initial_state()]


@settings(max_examples=40, deadline=None)
@given(tictactoe_positions(), st.one_of(st.none(), st.integers(1, 5)), st.integers(0, 2**16))
def test_table_keeps_the_value_on_tictactoe_positions(state, depth, seed):
    # Tic-tac-toe transposes (X a, O b, X c = X c, O b, X a) and every path to a state
    # has the same length, so even an arbitrary depth-limited evaluation must come out
    # the same with and without the table.
    game = TicTacToe()
    options = {} if depth is None else {"depth": depth, "evaluator": _noise_evaluator(seed)}
    plain, tabled, ordered = _with_and_without_table(game, state, **options)
    assert tabled.value == ordered.value == plain.value


def test_the_table_is_used_on_games_with_transpositions():
    nim = Nim((1, 2, 3))
    _, tabled, ordered = _with_and_without_table(nim, nim.initial_state())
    assert tabled.tt_hits > 0 and ordered.tt_hits > 0
    game = TicTacToe()
    state = game.initial_state()
    plain, tabled, _ = _with_and_without_table(game, state, depth=4, evaluator=_noise_evaluator(1))
    assert tabled.tt_hits > 0 and tabled.nodes < plain.nodes


def test_best_move_value_matches_root_value():
    tree = Decision(0, {"a": Decision(1, {"x": 1, "y": 5}), "b": Decision(1, {"x": 4, "y": 6})})
    result = alphabeta(TreeGame(tree), ())
    assert (result.value, result.move, tuple(result.pv)) == (4, "b", ("b", "x"))


def test_alphabeta_equals_the_solved_value_on_every_tictactoe_state():
    game = TicTacToe()
    solution = retrograde(game)
    table = TranspositionTable()
    ordering = HeuristicOrderer()
    states = _reachable(game)
    assert len(states) == 5478
    for state in states:
        value = solution.outcome[game.key(state)]
        assert alphabeta(game, state).value == value
        assert alphabeta(game, state, ordering=ordering, table=table).value == value


def test_alphabeta_equals_minimax_on_tictactoe_states_with_four_marks_or_more():
    game = TicTacToe()
    checked = 0
    for state in _reachable(game):
        if sum(1 for cell in state if cell) >= 4:
            assert alphabeta(game, state).value == minimax(game, state).value
            checked += 1
    assert checked > 4000


def test_tictactoe_pruning_saves_nodes():
    game = TicTacToe()
    state = game.initial_state()
    plain = alphabeta(game, state)
    ordered = alphabeta(game, state, ordering=HeuristicOrderer(), table=TranspositionTable())
    assert ordered.value == plain.value == 0
    assert ordered.nodes < plain.nodes < 549_946  # minimax visits 549,946 nodes


def _reachable(game):
    seen, frontier, order = set(), [game.initial_state()], []
    while frontier:
        state = frontier.pop()
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        frontier.extend(game.result(state, a) for a in game.actions(state))
    return order


def test_depth_limit_needs_an_evaluator():
    game = TicTacToe()
    with pytest.raises(ValueError, match="evaluator"):
        alphabeta(game, game.initial_state(), depth=2)
    with pytest.raises(ValueError, match="depth"):
        alphabeta(game, game.initial_state(), depth=0, evaluator=lambda s: 0.0)


def test_depth_limited_search_uses_the_evaluator_from_the_movers_side():
    # Two plies of a three-ply tree: the evaluator scores the MIN nodes' children.
    leaf = Decision(0, {"z": 0})
    tree = Decision(0, {"a": Decision(1, {"x": leaf, "y": leaf}), "b": Decision(1, {"x": leaf})})
    game = TreeGame(tree)
    scores = {("a", "x"): 5, ("a", "y"): 2, ("b", "x"): 3}
    result = alphabeta(game, (), depth=2, evaluator=lambda path: scores[path])
    assert (result.value, result.move) == (3, "b")
    result = minimax(game, (), depth=2, evaluator=lambda path: scores[path])
    assert (result.value, result.move) == (3, "b")
    assert minimax(game, ("a",), depth=1, evaluator=lambda path: scores[path]).value == -2


def test_infinite_value_sentinels_do_not_leak():
    game = TicTacToe()
    result = alphabeta(game, game.initial_state())
    assert math.isfinite(result.value)


class DistanceNim(Nim):
    """Nim with wins worth 100 minus one per ply from the search root (``win_bound``),
    so quicker wins are worth more."""

    capabilities = Capabilities(players=2, zero_sum=True, chance=False, win_bound=50)

    def utility(self, state, player):
        return 100.0 * super().utility(state, player)


@pytest.mark.parametrize("piles", [(1, 2, 3), (2, 2, 3), (1, 3, 4)])
def test_distance_scored_wins_through_a_shared_table_equal_minimax(piles):
    # The same Nim position is reached by paths of different lengths (take 3 at once,
    # or 1 + 1 + 1 over three plies), and one table serves every root, as between
    # the moves of a game: the distances must still count from each root.
    game = DistanceNim(piles)
    table = TranspositionTable()
    hits = 0
    for state in _reachable(game):
        expected = minimax(game, state).value
        result = alphabeta(game, state, ordering=HeuristicOrderer(), table=table)
        assert result.value == expected, state
        hits += result.tt_hits
        for _, entry in table:
            assert entry.lower <= entry.upper
    assert hits > 0
    assert minimax(game, game.initial_state()).value not in (-100, 0, 100)  # distances count
