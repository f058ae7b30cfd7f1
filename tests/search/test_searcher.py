"""The Searcher object: the same answers as the one-call functions, parts kept across searches."""

import pytest

from search import (
    HeuristicOrderer,
    Limits,
    ModelledPlayer,
    NullPredictor,
    Searcher,
    TranspositionTable,
    alphabeta,
    guided_search,
    guided_searcher,
    search,
)
from search.chess.evaluation import material_pst_evaluator
from search.chess.game import ChessGame
from search.games import TicTacToe
from search.games.seeds import coin_flip_game

EVAL = material_pst_evaluator()
TACTICAL = "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"


def _fields(result):
    return (result.value, result.move, tuple(result.pv), result.nodes, result.qnodes, result.depth)


def test_search_equals_the_function_with_the_same_parts():
    game = ChessGame(TACTICAL)
    board = game.initial_state()
    searcher = Searcher(game, evaluator=EVAL, ordering=HeuristicOrderer(), table=TranspositionTable(),
                        quiescence=True)
    ours = searcher.search(board, Limits(depth=3))
    theirs = search(game, board, evaluator=EVAL, limits=Limits(depth=3), ordering=HeuristicOrderer(),
                    table=TranspositionTable(), quiescence=True)
    assert _fields(ours) == _fields(theirs)


def test_the_table_carries_over_between_searches():
    game = ChessGame(TACTICAL)
    searcher = Searcher(game, evaluator=EVAL, ordering=HeuristicOrderer(), table=TranspositionTable(),
                        quiescence=True)
    first = searcher.search(game.initial_state(), Limits(depth=3))
    second = searcher.search(game.initial_state(), Limits(depth=3))
    assert second.value == first.value and second.total_nodes < first.total_nodes


def test_fixed_depth_equals_alphabeta_and_solves_tictactoe():
    game = TicTacToe()
    result = Searcher(game).search_depth(game.initial_state(), None)
    assert result.value == 0 == alphabeta(game, game.initial_state()).value
    shallow = Searcher(game, evaluator=lambda state: 0)
    assert [r.depth for r in shallow.iterate(game.initial_state(), Limits(depth=3))] == [1, 2, 3]


def test_refuses_what_it_cannot_search():
    with pytest.raises(ValueError, match="chance"):
        Searcher(coin_flip_game())
    with pytest.raises(ValueError, match="evaluator"):
        Searcher(TicTacToe(), quiescence=True)


def test_the_guided_search_is_a_searcher_with_a_model_policy():
    game = ChessGame(TACTICAL)
    board = game.initial_state()
    searcher = guided_searcher(game, modelled=ModelledPlayer(NullPredictor(), 1), evaluator=EVAL,
                               ordering=HeuristicOrderer(), table=TranspositionTable(), quiescence=True)
    assert isinstance(searcher, Searcher) and searcher.policy is not None
    guided = guided_search(game, board, modelled=ModelledPlayer(NullPredictor(), 1), evaluator=EVAL,
                           limits=Limits(depth=3), ordering=HeuristicOrderer(), table=TranspositionTable(),
                           quiescence=True)
    assert _fields(searcher.search(board, Limits(depth=3))) == _fields(guided.result)
    assert searcher.policy.stats().calls == guided.predictions.calls
