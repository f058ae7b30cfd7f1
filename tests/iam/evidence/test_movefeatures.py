"""Move features against positions whose answers are known by hand."""

from __future__ import annotations

import chess
import pytest

from iam.evidence.movefeatures import MOVE_FEATURES, move_features, static_exchange
from iam.priors.positions import position_of


def _features(fen: str, moves: str = "") -> tuple[chess.Board, dict]:
    board = chess.Board(fen)
    for uci in moves.split():
        board.push_uci(uci)
    position = position_of(board)
    columns = move_features(position)
    return board, {
        move.uci(): {name: columns[name][i] for name in MOVE_FEATURES} for i, move in enumerate(position.moves)
    }


@pytest.mark.parametrize(
    ("fen", "uci", "expected"),
    [
        ("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 1.0),  # an undefended pawn
        ("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -8.0),  # queen takes a pawn defended by a pawn
        ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 2.0),  # P x N, p x P: a knight for a pawn
        ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 1.0),  # battery: R x p, r x R, R x r
        ("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", "d1d5", 9.0),
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", 0.0),  # a quiet move
    ],
)
def test_static_exchange(fen, uci, expected):
    board = chess.Board(fen)
    assert static_exchange(board, chess.Move.from_uci(uci)) == pytest.approx(expected)


def test_every_legal_move_gets_every_column():
    board, rows = _features(chess.STARTING_FEN)
    assert len(rows) == 20
    assert rows["g1f3"]["piece_knight"] == 1 and rows["g1f3"]["develop"] == 1
    assert rows["e2e4"]["pawn_advance"] == 2 and rows["e2e4"]["piece_pawn"] == 1
    assert rows["e2e4"]["pst_gain"] == pytest.approx(0.40)  # -20 on e2 to +20 on e4, in pawns


def test_recapture_check_castle_and_rescue():
    # 1. e4 d5 2. exd5 Qxd5 3. Nc3: the queen is attacked by the knight and must move.
    board, rows = _features(chess.STARTING_FEN, "e2e4 d7d5 e4d5 d8d5 b1c3")
    assert rows["d5a5"]["rescued"] == 9.0 and rows["d5a5"]["left_en_prise"] == 0.0
    assert rows["a7a6"]["left_en_prise"] == 9.0
    assert rows["d5e5"]["check"] == 1.0 and rows["d5d4"]["check"] == 0.0
    board, rows = _features(chess.STARTING_FEN, "e2e4 d7d5 e4d5")
    assert rows["d8d5"]["recapture"] == 1.0 and rows["g8f6"]["recapture"] == 0.0
    board, rows = _features("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    assert rows["e8g8"]["castle"] == 1.0 and rows["e8c8"]["castle"] == 1.0 and rows["e8f8"]["castle"] == 0.0
    assert rows["e8g8"]["piece_king"] == 1.0


def test_black_moves_are_seen_from_blacks_side():
    board, rows = _features(chess.STARTING_FEN, "e2e4")
    assert rows["e7e5"]["pawn_advance"] == 2 and rows["e7e5"]["pst_gain"] == pytest.approx(0.40)
    assert rows["g8f6"]["develop"] == 1 and rows["g8f6"]["retreat"] == 0
    assert rows["e7e5"]["near_last_move"] == pytest.approx(1 - 1 / 7)  # e5 is next to e4


def test_pinned_pieces_are_those_the_board_calls_pinned():
    """The one-pass pin finder names exactly the pieces python-chess's own test calls pinned, on many game positions."""
    from iam.evidence.movefeatures import _pinned
    from iam.games.bundled import bundled_pgn
    from iam.games.pgn import load_player_games

    games, _ = load_player_games([bundled_pgn("botvinnik.pgn")], player="Botvinnik", max_games=40)
    checked = pinned_seen = 0
    for game in games:
        board = game.board()
        for move in game.moves:
            for color in chess.COLORS:
                expected = 0
                if board.king(color) is not None:
                    for square in chess.scan_forward(board.occupied_co[color] & ~board.kings):
                        if board.is_pinned(color, square):
                            expected |= chess.BB_SQUARES[square]
                assert _pinned(board, color) == expected, board.fen()
                pinned_seen += bool(expected)
                checked += 1
            board.push(move)
    assert checked > 5000 and pinned_seen > 100  # the positions hold pins, not only empty masks
    crossed = chess.Board("4k3/4r3/8/8/1b6/8/3N4/4K3 w - - 0 1")  # the rook on e7 sees the king with nothing between
    assert _pinned(crossed, chess.WHITE) == chess.BB_D2  # so only the knight, between king and bishop, is pinned
