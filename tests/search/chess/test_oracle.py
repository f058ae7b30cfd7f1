"""search.chess.oracle.LineOracle: where it speaks, what it names, transpositions, noise and refusals."""

import chess
import pytest

from search.chess.board import Position, from_move, to_move
from search.chess.oracle import LineOracle


def _moves(*ucis):
    return [chess.Move.from_uci(u) for u in ucis]


def test_names_the_played_move_at_each_position_of_the_line_and_is_silent_elsewhere():
    board = chess.Board()
    line = _moves("e2e4", "e7e5", "g1f3")
    oracle = LineOracle(board, line)
    assert oracle.positions == 3
    replay = board.copy()
    for move in line:
        assert oracle.predict_proba(replay) == {move: 1.0}
        assert oracle.position_beliefs(Position.from_board(replay)) == {from_move(move): 1.0}
        replay.push(move)
    assert oracle.predict_proba(replay) == {}  # the line's last position names nothing
    assert oracle.predict_proba(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")) == {}


def test_a_transposition_into_the_line_counts_as_the_line():
    """1.Nf3 Nc6 2.e4 e5 reaches the position the line 1.e4 e5 2.Nf3 Nc6 3.Bb5 names Bb5 at."""
    oracle = LineOracle(chess.Board(), _moves("e2e4", "e7e5", "g1f3", "b8c6", "f1b5"))
    other = chess.Board()
    for move in _moves("g1f3", "b8c6", "e2e4", "e7e5"):
        other.push(move)
    assert oracle.predict_proba(other) == {chess.Move.from_uci("f1b5"): 1.0}


def test_the_line_stops_at_an_illegal_move_or_the_end_of_the_game():
    assert LineOracle(chess.Board(), _moves("e2e4", "e2e4", "d2d4")).positions == 1
    fools_mate = _moves("f2f3", "e7e5", "g2g4", "d8h4")
    assert LineOracle(chess.Board(), [*fools_mate, chess.Move.from_uci("e1f2")]).positions == 4
    assert LineOracle(chess.Board(), []).positions == 0


def test_a_position_met_twice_keeps_the_first_move_named_there():
    """The knights go out and back: the start position is named Nf3, not its second move e4."""
    line = _moves("g1f3", "g8f6", "f3g1", "f6g8", "e2e4")
    oracle = LineOracle(chess.Board(), line)
    assert oracle.positions == 4
    assert oracle.predict_proba(chess.Board()) == {chess.Move.from_uci("g1f3"): 1.0}


def test_the_line_starts_from_the_given_board():
    board = chess.Board()
    board.push_san("d4")
    oracle = LineOracle(board, _moves("d7d5"))
    assert oracle.predict_proba(board) == {chess.Move.from_uci("d7d5"): 1.0}
    assert oracle.predict_proba(chess.Board()) == {}


def test_a_noisy_oracle_names_a_legal_move_drawn_by_its_seed():
    """accuracy=0: each named move is a legal move of its position, the same for the same seed."""
    board = chess.Board()
    line = _moves("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4")
    first = LineOracle(board, line, accuracy=0.0, seed=3)
    again = LineOracle(board, line, accuracy=0.0, seed=3)
    replay = board.copy()
    for move in line:
        beliefs = first.predict_proba(replay)
        assert beliefs == again.predict_proba(replay)
        (guess,) = beliefs
        assert guess in replay.legal_moves and beliefs[guess] == 1.0
        position_beliefs = first.position_beliefs(Position.from_board(replay))
        assert {to_move(m) for m in position_beliefs} == {guess}
        replay.push(move)
    others = [LineOracle(board, line, accuracy=0.0, seed=s).predict_proba(board) for s in range(4, 12)]
    assert len({next(iter(o)) for o in others}) > 1  # other seeds draw other moves


@pytest.mark.parametrize("accuracy", [-0.01, 1.01])
def test_accuracy_outside_zero_to_one_is_refused(accuracy):
    with pytest.raises(ValueError, match="accuracy"):
        LineOracle(chess.Board(), _moves("e2e4"), accuracy=accuracy)
