"""Start positions with pieces against pawns: the removal, the quiet test, the development games only."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.evolution.imbalances import (
    IMBALANCES,
    Imbalance,
    imbalance_positions,
    interleave,
    material,
    pieces_worth,
    quiet,
    remove_imbalance,
)

ITALIAN = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4")
OTHER = ("1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 7. Rc1 c6 8. Bd3 dxc4 9. Bxc4 Nd5 "
         "10. Bxe7 Qxe7")
GAME = "1. Nf3 Nf6 2. g3 g6 3. Bg2 Bg7 4. O-O O-O 5. d3 d6 6. Nbd2 Nbd7 7. c3 c6 8. Re1 Re8 9. a4 a5 10. b3 b6"


def _pgn(white: str, black: str, moves: str = GAME, result: str = "1/2-1/2") -> str:
    return f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n{moves} {result}\n\n'


def test_each_side_loses_its_share():
    rook_for_knight = Imbalance("exchange", "NP", "R")
    made = remove_imbalance(ITALIAN, rook_for_knight, piece_side=chess.BLACK, rng=np.random.default_rng(1))
    assert made is not None
    # pawns, knights, bishops, rooks, queens: Black a knight and a pawn fewer, White a rook fewer
    assert material(made, chess.BLACK) == (7, 1, 2, 2, 1)
    assert material(made, chess.WHITE) == (8, 2, 2, 1, 1)
    assert material(ITALIAN, chess.WHITE) == (8, 2, 2, 2, 1)  # the position given is left alone
    # the castling right of the rook that went is gone, the other kept
    assert made.castling_rights & chess.BB_RANK_1 in (chess.BB_A1, chess.BB_H1)


def test_a_missing_piece_makes_none():
    board = chess.Board("4k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1")  # no minor pieces
    assert remove_imbalance(board, IMBALANCES[0], piece_side=chess.WHITE, rng=np.random.default_rng(0)) is None


@pytest.mark.parametrize(("fen", "expected"), [
    ("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1", True),
    ("4k3/ppp5/8/3p4/4P3/8/PPP5/4K3 w - - 0 1", False),  # White can take on d5
    ("4k3/ppp5/8/3p4/4P3/8/PPP5/4K3 b - - 0 1", False),  # Black to move, can take on e4
    ("4k3/ppp5/8/3p4/8/8/PPP1P3/4K3 b - - 0 1", True),
    ("4k3/ppp5/8/1B1p4/8/8/PPP5/4K3 b - - 0 1", False),  # in check
    ("4k3/ppp5/8/8/8/4n3/PPP2P2/4K3 w - - 0 1", False),  # not in check, but fxe3 takes
])
def test_quiet_means_no_capture_for_either_side(fen, expected):
    assert quiet(chess.Board(fen)) is expected


def test_positions_come_from_development_games_only(tmp_path):
    """Game i of a player is a development game when i % 5 == 3: of eight games, only game 3 (a double fianchetto,
    Black's pawn on g6); the others, the test game 4 among them, are a queen's gambit (no black pawn on g6)."""
    texts = [_pgn("Ann", f"Opp{i}", GAME if i == 3 else OTHER) for i in range(8)]
    path = tmp_path / "ann.pgn"
    path.write_text("".join(texts), encoding="utf-8")
    fens = imbalance_positions([("Ann", path)], count=10, first_ply=12, last_ply=20)
    # one development game (index 3), so one position at most, from it
    assert len(fens) == 1
    board = chess.Board(fens[0])
    assert quiet(board) and board.piece_at(chess.G6) == chess.Piece(chess.PAWN, chess.BLACK)
    # the first imbalance: a knight against two pawns, the piece side White
    assert material(board, chess.WHITE)[0] == 6 and material(board, chess.BLACK)[0] == 8
    assert material(board, chess.BLACK)[1] == material(board, chess.WHITE)[1] - 1


def test_the_imbalances_take_turns_and_the_sides_too(tmp_path):
    texts = [_pgn("Ann", f"Opp{i}") for i in range(60)]  # twelve development games, all the same moves
    path = tmp_path / "ann.pgn"
    path.write_text("".join(texts), encoding="utf-8")
    fens = imbalance_positions([("Ann", path)], count=12, first_ply=12, last_ply=20, seed=3)
    full = (8, 2, 2, 2, 1)
    # the six imbalances with the piece side White, then again with it Black (the last game finds none quiet)
    white_side = [((6, 2, 2, 2, 1), (8, 1, 2, 2, 1)), ((6, 2, 2, 2, 1), (8, 2, 1, 2, 1)),
                  ((5, 2, 2, 2, 1), (8, 1, 2, 2, 1)), ((5, 2, 2, 2, 1), (8, 2, 1, 2, 1)),
                  ((7, 1, 2, 2, 1), (8, 2, 2, 1, 1)), ((6, 2, 1, 2, 1), (8, 2, 2, 1, 1))]
    expected = white_side + [(black, white) for white, black in white_side[:5]]
    found = [(material(chess.Board(fen), chess.WHITE), material(chess.Board(fen), chess.BLACK)) for fen in fens]
    assert found == expected and full not in [side for pair in found for side in pair]
    assert all(quiet(chess.Board(fen)) for fen in fens)


def test_most_pieces_keeps_the_lighter_positions(tmp_path):
    path = tmp_path / "ann.pgn"
    path.write_text("".join(_pgn("Ann", f"Opp{i}") for i in range(10)), encoding="utf-8")
    # two development games (3 and 8); the piece side keeps all its pieces (31 points), the other 28
    assert imbalance_positions([("Ann", path)], count=2, first_ply=12, last_ply=20, most_pieces=30) == []
    assert len(imbalance_positions([("Ann", path)], count=2, first_ply=12, last_ply=20, most_pieces=31)) == 2
    assert pieces_worth(ITALIAN, chess.WHITE) == 31


def test_bad_requests_are_refused(tmp_path):
    with pytest.raises(ValueError, match="count"):
        imbalance_positions([], count=0)
    with pytest.raises(ValueError, match="first_ply"):
        imbalance_positions([], count=1, first_ply=30, last_ply=20)


def test_interleave_takes_both_lists_in_turn_and_keeps_every_position():
    openings = [f"o{i}" for i in range(3)]
    made = [f"i{i}" for i in range(6)]
    assert interleave(openings, made) == ["o0", "i0", "i1", "o1", "i2", "i3", "o2", "i4", "i5"]
    assert interleave(openings, made, take=(3, 1)) == ["o0", "o1", "o2", "i0", "i1", "i2", "i3", "i4", "i5"]
    assert interleave(made, openings, take=(2, 1)) == ["i0", "i1", "o0", "i2", "i3", "o1", "i4", "i5", "o2"]
    assert interleave([], made) == made


def test_interleave_needs_a_positive_take():
    with pytest.raises(ValueError, match="at least one"):
        interleave(["a"], ["b"], take=(0, 1))
