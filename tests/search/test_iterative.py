"""Iterative deepening under limits, the stop signal, the policy hook and predictors."""

import threading

import chess
import pytest

from search import (
    HeuristicOrderer,
    Limits,
    NullPredictor,
    PlainPolicy,
    TranspositionTable,
    alphabeta,
    checked_beliefs,
    iterate,
    search,
)
from search.chess.evaluation import material_pst_evaluator
from search.chess.game import ChessGame
from search.games import TicTacToe

EVAL = material_pst_evaluator()
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"


def test_iterate_yields_each_depth_with_growing_counters():
    game = ChessGame(MIDDLEGAME)
    results = list(iterate(game, game.initial_state(), evaluator=EVAL, limits=Limits(depth=3)))
    assert [r.depth for r in results] == [1, 2, 3]
    assert all(a.nodes < b.nodes for a, b in zip(results, results[1:]))
    board = game.initial_state()
    assert all(r.move in board.legal_moves for r in results)


def test_fixed_depth_iteration_matches_alphabeta_value():
    game = ChessGame(MIDDLEGAME)
    final = search(game, game.initial_state(), evaluator=EVAL, limits=Limits(depth=3))
    direct = alphabeta(game, game.initial_state(), depth=3, evaluator=EVAL)
    assert final.value == direct.value
    assert final.depth == 3


@pytest.mark.parametrize("nodes", [1, 5, 50, 400, 3000])
def test_node_budget_is_respected_and_a_legal_move_always_comes_back(nodes):
    game = ChessGame(MIDDLEGAME)
    board = game.initial_state()
    result = search(
        game, board, evaluator=EVAL, limits=Limits(nodes=nodes), ordering=HeuristicOrderer(),
        table=TranspositionTable(), quiescence=True,
    )
    assert result.move in board.legal_moves
    assert result.total_nodes <= nodes + 1  # the node that noticed the budget is counted
    if nodes >= 3000:
        assert result.depth >= 2


def test_zero_time_still_gives_a_legal_move():
    game = ChessGame(MIDDLEGAME)
    result = search(game, game.initial_state(), evaluator=EVAL, limits=Limits(time=0.0))
    assert result.depth == 0
    assert result.move in game.initial_state().legal_moves


def test_stop_event_ends_an_unlimited_search():
    game = ChessGame(MIDDLEGAME)
    stop = threading.Event()
    depths = []
    for result in iterate(game, game.initial_state(), evaluator=EVAL, stop=stop):
        depths.append(result.depth)
        if result.depth == 2:
            stop.set()
    assert depths == [1, 2]


def test_terminal_root_has_no_move():
    game = ChessGame("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")  # black is mated
    result = search(game, game.initial_state(), evaluator=EVAL, limits=Limits(depth=3))
    assert result.move is None
    assert result.value < -50_000
    assert list(iterate(game, game.initial_state(), evaluator=EVAL)) == []


def test_search_to_the_end_of_tictactoe_finds_the_draw():
    game = TicTacToe()
    result = search(game, game.initial_state(), evaluator=lambda s: 0.0, limits=Limits(depth=9))
    assert result.value == 0 and result.depth == 9


class _ReduceEverything:
    """A policy that searches every action one ply shallower."""

    def plan(self, cursor, actions, *, ply, depth):
        return [(action, -1) for action in actions]


class _ReverseOrder:
    def __init__(self):
        self.calls = 0

    def plan(self, cursor, actions, *, ply, depth):
        self.calls += 1
        return [(action, 0) for action in reversed(actions)]


def test_plain_policy_changes_nothing():
    game = ChessGame(MIDDLEGAME)
    board = game.initial_state()
    plain = alphabeta(game, board, depth=3, evaluator=EVAL)
    hooked = alphabeta(game, board, depth=3, evaluator=EVAL, policy=PlainPolicy())
    assert (hooked.value, hooked.move, hooked.nodes) == (plain.value, plain.move, plain.nodes)


def test_policy_reductions_and_order_reach_the_worker():
    game = ChessGame(MIDDLEGAME)
    board = game.initial_state()
    reduced = alphabeta(game, board, depth=4, evaluator=EVAL, policy=_ReduceEverything())
    # Every action one ply shallower: a depth-4 search becomes a depth-2 search.
    assert reduced.value == alphabeta(game, board, depth=2, evaluator=EVAL).value
    reverse = _ReverseOrder()
    reordered = alphabeta(game, board, depth=2, evaluator=EVAL, policy=reverse)
    assert reverse.calls > 1
    assert reordered.value == alphabeta(game, board, depth=2, evaluator=EVAL).value
    assert reordered.nodes != alphabeta(game, board, depth=2, evaluator=EVAL).nodes


def test_policy_sees_the_game_history_on_the_board():
    seen = []

    class Spy:
        def plan(self, cursor, actions, *, ply, depth):
            seen.append((ply, len(cursor.state.move_stack)))
            return None

    board = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci)
    alphabeta(ChessGame(), board, depth=2, evaluator=EVAL, policy=Spy())
    assert (0, 3) in seen and (1, 4) in seen


def test_null_predictor_and_belief_checks():
    board = chess.Board()
    assert NullPredictor().predict_proba(board) == {}
    legal = list(board.legal_moves)
    e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
    assert checked_beliefs({e4: 0.5, d4: 0.25}, legal) == {e4: 0.5, d4: 0.25}
    with pytest.raises(ValueError, match="not legal"):
        checked_beliefs({chess.Move.from_uci("e2e5"): 0.1}, legal)
    with pytest.raises(ValueError, match="outside"):
        checked_beliefs({e4: 1.5}, legal)
    with pytest.raises(ValueError, match="sum"):
        checked_beliefs({e4: 0.6, d4: 0.6}, legal)
