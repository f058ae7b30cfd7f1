"""The retrograde solver on small games and on the KQ-vs-K chess endgame.

The endgame is checked two ways: against facts that hold for KQK whatever the
reference (White to move always wins; the longest mate takes 10 moves, 19 plies;
Black's draws are stalemates or a hanging queen), and against the Gaviota table that
python-chess's source release ships, when scripts/fetch_tablebases.py has
fetched it (.ci/run does).
"""

import itertools
import os
import random
import sys
from pathlib import Path

import chess
import chess.gaviota
import pytest

from search import HeuristicOrderer, alphabeta, best_action, retrograde
from search.chess.endgames import ChessEndgame, symmetry_key
from search.chess.evaluation import material_pst_evaluator
from search.chess.game import ChessGame, mate_in_plies
from search.games import Nim, TicTacToe

GAVIOTA_DIR = Path(
    os.environ.get("IAM_GAVIOTA_DIR", Path(sys.prefix) / "share" / "iam-tablebases" / "gaviota")
)


@pytest.fixture(scope="module")
def kqk():
    game = ChessEndgame("KQ", "K")
    states = list(game.states())
    return game, states, retrograde(game, states)


def test_nim_with_three_piles_matches_minimax():
    from search import minimax

    game = Nim((1, 2, 3))
    solution = retrograde(game)
    assert solution.outcome[game.initial_state()] == minimax(game, game.initial_state()).value


def test_best_action_keeps_the_solved_value_in_tictactoe():
    game = TicTacToe()
    solution = retrograde(game)
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.result(state, best_action(game, state, solution))
    assert game.utility(state, 0) == 0  # perfect play by both sides draws


def test_open_state_sets_are_refused():
    game = ChessEndgame("KQ", "K")
    some = list(itertools.islice(game.states(), 50))
    with pytest.raises(ValueError, match="closed"):
        retrograde(game, some)


def test_symmetry_key_merges_mirror_images():
    board = chess.Board("8/8/8/3k4/8/8/1Q6/K7 w - - 0 1")
    mirrored = board.transform(chess.flip_horizontal)
    rotated = board.transform(chess.flip_vertical).transform(chess.flip_horizontal)
    assert symmetry_key(board) == symmetry_key(mirrored) == symmetry_key(rotated)
    assert symmetry_key(board) != symmetry_key(board.transform(chess.shift_right))


@pytest.mark.slow
def test_kqk_facts(kqk):
    game, states, solution = kqk
    white = [s for s in states if s[0]]
    black = [s for s in states if not s[0]]
    assert all(solution.outcome[s] == 1 for s in white)
    assert max(solution.distance[s] for s in white) == 19  # mate in 10
    for state in black:
        if solution.outcome[state] == 0:
            board = game.board(state)
            hanging = any(board.piece_type_at(m.to_square) == chess.QUEEN for m in board.legal_moves)
            assert board.is_stalemate() or hanging
        else:
            assert solution.outcome[state] == -1


@pytest.mark.slow
def test_kqk_short_mates_agree_with_alphabeta_on_the_chess_adapter(kqk):
    game, states, solution = kqk
    rng = random.Random(7)
    short = [s for s in states if s[0] and solution.distance[s] in (1, 3)]
    evaluator = material_pst_evaluator()
    for state in rng.sample(short, 8):
        board = game.board(state)
        result = alphabeta(ChessGame(), board, depth=3, evaluator=evaluator, ordering=HeuristicOrderer())
        assert mate_in_plies(result.value) == solution.distance[state]


@pytest.mark.slow
@pytest.mark.skipif(
    not (GAVIOTA_DIR / "kqk.gtb.cp4").exists(),
    reason="Gaviota KQK table not fetched (run scripts/fetch_tablebases.py)",
)
def test_kqk_agrees_with_the_gaviota_tablebase(kqk):
    game, states, solution = kqk
    rng = random.Random(11)
    with chess.gaviota.open_tablebase(str(GAVIOTA_DIR)) as tablebase:
        for state in rng.sample(states, 300):
            board = game.board(state)
            expected = tablebase.probe_dtm(board)  # plies, signed for the side to move
            distance = solution.distance[state] or 0
            assert solution.outcome[state] * distance == expected, board.fen()
            assert solution.outcome[state] == tablebase.probe_wdl(board), board.fen()
