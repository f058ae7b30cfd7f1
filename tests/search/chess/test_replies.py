"""The cheap reply policy and the fast core's selectivity at the modelled player's nodes."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from search.chess.board import Position, from_move
from search.chess.engine import ChessSearch
from search.chess.exploit import ExploitingSearch, ExploitingSettings
from search.chess.pst import MG_TABLE
from search.chess.replies import REPLY_INPUTS, ReplyPolicy, reply_inputs
from search.opponent.exploitation import Exploitation
from search.result import Limits

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
TACTICAL = "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"

UNIFORM = ReplyPolicy(np.zeros(REPLY_INPUTS))
"""Every move alike: with a threshold above 1 / moves, every quiet move is unlikely."""


def _inputs(fen: str, uci: str) -> tuple[tuple[int, ...], float]:
    position = Position.from_board(chess.Board(fen))
    rows, gains = reply_inputs(position, [from_move(chess.Move.from_uci(uci))])
    return rows[0], gains[0]


def test_inputs_of_a_knight_move_by_hand_and_the_same_from_the_other_side():
    # Ng1-f3: a knight (type 2, row 1) arrives on f3 (square 21) and leaves g1 (square 6); f3 is not attacked.
    inputs, gain = _inputs(chess.STARTING_FEN, "g1f3")
    assert inputs == (64 + 21, 384 + 64 + 6)
    knight = 2
    assert gain == pytest.approx((MG_TABLE[knight][21 + 5 + 20] - MG_TABLE[knight][21 + 6]) / 100.0)
    assert gain > 0  # a knight is worth more in front of the king than on its home square
    # Black's Ng8-f6 after 1.e4 is the same move from Black's side.
    black_inputs, black_gain = _inputs("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "g8f6")
    assert (black_inputs, black_gain) == (inputs, pytest.approx(gain))


def test_inputs_of_a_capture_into_an_attack_out_of_an_attack():
    # The rook on d1 takes the knight on d5, which the e6 pawn defends; the rook stood unattacked.
    inputs, _ = _inputs("4k3/8/4p3/3n4/8/8/8/3RK3 w - - 0 1", "d1d5")
    rook = 3  # type 4, row 3
    assert inputs == (rook * 64 + 35, 384 + rook * 64 + 3, 768 + 1, 775 + rook)
    # The knight flees the rook's attack to a square the rook does not reach.
    inputs, _ = _inputs("4k3/8/8/3n4/8/8/8/3RK3 b - - 0 1", "d5f6")
    knight = 1
    assert 781 + knight in inputs and 775 + knight not in inputs


def test_the_policy_refuses_weights_of_the_wrong_shape_or_not_finite():
    with pytest.raises(ValueError):
        ReplyPolicy(np.zeros(REPLY_INPUTS - 1))
    with pytest.raises(ValueError):
        ReplyPolicy(np.full(REPLY_INPUTS, np.nan))


def test_unlikely_moves_are_the_quiet_ones_believed_less_than_the_threshold():
    weights = np.zeros(REPLY_INPUTS)
    weights[64 + 21] = 10.0  # a knight arriving on f3 (or f6 from Black's side)
    policy = ReplyPolicy(weights)
    start = Position.from_board(chess.Board())
    beliefs = dict(zip(start.legal_moves(), np.exp(policy.log_beliefs(start, start.legal_moves()))))
    knight = from_move(chess.Move.from_uci("g1f3"))
    assert beliefs[knight] == pytest.approx(np.exp(10) / (np.exp(10) + 19))
    assert sum(beliefs.values()) == pytest.approx(1.0)
    unlikely = policy.unlikely(start, 0.01)
    assert knight not in unlikely and len(unlikely) == 19
    assert policy.unlikely(start, 0.01) is unlikely and policy.asked == 1  # kept by position
    # A capture is never reduced, however unlikely.
    capture = Position.from_board(chess.Board("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1"))
    assert from_move(chess.Move.from_uci("d1d5")) not in UNIFORM.unlikely(capture, 0.99)
    assert len(UNIFORM.unlikely(capture, 0.99)) == len(capture.legal_moves()) - 1


def test_with_nothing_unlikely_or_too_shallow_the_selective_search_is_the_plain_one():
    for fen, depth, below in [(MIDDLEGAME, 4, 1e-9), (TACTICAL, 3, 1e-9), (MIDDLEGAME, 2, 0.9)]:
        board = chess.Board(fen)
        plain = ChessSearch().search(board, Limits(depth=depth))
        search = ChessSearch(replies=UNIFORM, reduce_below=below)
        selective = search.search(board, Limits(depth=depth))
        assert search.reduced == 0
        assert (selective.value, selective.move, selective.nodes, selective.qnodes) == (
            plain.value, plain.move, plain.nodes, plain.qnodes)


def test_reducing_his_quiet_moves_saves_nodes_and_asks_only_about_his_positions():
    sides = []

    class Recording(ReplyPolicy):
        def position_beliefs(self, position):
            sides.append(position.side)
            return super().position_beliefs(position)

    for fen in (MIDDLEGAME, MIDDLEGAME.replace(" w ", " b ")):
        board = chess.Board(fen)
        plain = ChessSearch().search(board, Limits(depth=4))
        search = ChessSearch(replies=Recording(np.zeros(REPLY_INPUTS)), reduce_below=0.5)
        selective = search.search(board, Limits(depth=4))
        assert search.reduced > 50
        assert selective.nodes + selective.qnodes < 0.8 * (plain.nodes + plain.qnodes)
        assert selective.move in board.legal_moves
        his = 1 if board.turn == chess.WHITE else 0
        assert sides and set(sides) == {his}
        sides.clear()


def test_the_exploiting_search_reduces_only_with_a_weight_a_threshold_and_a_reply_policy():
    class Modelled:
        reply_policy_ = UNIFORM

        def predict_proba(self, board):
            return {}

    reducing = ExploitingSettings(reduce_below=0.05)
    search = ExploitingSearch(Modelled(), exploitation=Exploitation(weight=0.5), settings=reducing)
    assert search.fast.replies is UNIFORM
    assert ExploitingSearch(Modelled(), exploitation=Exploitation(weight=0.0), settings=reducing).fast.replies is None
    assert ExploitingSearch(Modelled(), exploitation=Exploitation(weight=0.5)).fast.replies is None
    with pytest.raises(ValueError):
        ExploitingSettings(reduce_below=1.0)
    with pytest.raises(ValueError):
        ChessSearch(reduce_below=-0.1)
