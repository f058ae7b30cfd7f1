"""search.chess.pst: the tapered tables' layout, hand-computed entries, symmetry and the phase."""

import chess
import pytest

from search.chess.board import Position, from_move, to_mailbox
from search.chess.pst import EG_TABLE, EG_VALUES, MG_TABLE, MG_VALUES, PHASE, PHASE_TOTAL

KINDS = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}


def _at(square_name):
    return to_mailbox(chess.parse_square(square_name))


def test_tables_have_sixteen_pieces_of_120_mailbox_entries_and_zero_off_the_board():
    for table in (MG_TABLE, EG_TABLE):
        assert len(table) == 16 and all(len(row) == 120 for row in table)
        board_squares = {to_mailbox(s) for s in chess.SQUARES}
        for piece in range(-6, 7):
            assert all(table[piece][i] == 0 for i in range(120) if i not in board_squares)
        assert all(v == 0 for v in table[0])


@pytest.mark.parametrize(
    ("table", "piece", "square", "value"),
    [
        (MG_TABLE, 1, "e4", 100 + 6 + 12),  # rank bonus, central pawn bonus
        (EG_TABLE, 1, "e4", 120 + 12),
        (EG_TABLE, 1, "a7", 120 + 80),  # one step from promotion
        (MG_TABLE, 2, "a1", 320 + 12 - 36),  # knight on the rim
        (MG_TABLE, 2, "d4", 320 + 12),
        (MG_TABLE, 4, "d7", 500 + 15 + 4),  # rook on the seventh, central file
        (MG_TABLE, 6, "g1", 22),  # the sheltered king
        (MG_TABLE, 6, "e4", -36),  # the exposed king
        (EG_TABLE, 6, "e4", 24),  # the endgame king belongs in the centre
        (EG_TABLE, 5, "a1", 950 + 6 - 18),
    ],
)
def test_hand_computed_entries(table, piece, square, value):
    assert table[piece][_at(square)] == value


def test_black_entries_are_the_mirrored_white_entries_negated():
    for table in (MG_TABLE, EG_TABLE):
        for piece in range(1, 7):
            for square in chess.SQUARES:
                mirrored = chess.square_mirror(square)
                assert table[-piece][to_mailbox(mirrored)] == -table[piece][to_mailbox(square)]


def test_material_values_and_phase_weights():
    assert MG_VALUES[1:6] == (100, 320, 330, 500, 900) and EG_VALUES[1] > MG_VALUES[1]
    assert [PHASE[p] for p in range(1, 7)] == [0, 1, 1, 2, 4, 0]
    assert [PHASE[-p] for p in range(1, 7)] == [0, 1, 1, 2, 4, 0]
    start = chess.Board()
    total = sum(PHASE[KINDS[p.symbol().upper()]] for p in start.piece_map().values())
    assert total == PHASE_TOTAL == 24


def _sums(board):
    mg = eg = phase = 0
    for square, piece in board.piece_map().items():
        code = KINDS[piece.symbol().upper()] * (1 if piece.color == chess.WHITE else -1)
        mg += MG_TABLE[code][to_mailbox(square)]
        eg += EG_TABLE[code][to_mailbox(square)]
        phase += PHASE[code]
    return mg, eg, phase


def test_the_start_position_is_balanced():
    assert _sums(chess.Board())[:2] == (0, 0)


def test_the_fast_boards_running_sums_and_evaluation_follow_the_tables():
    """Along a game with captures and castling, the incremental sums equal the tables summed over the board,
    and the evaluation is the tapered blend from the mover's side."""
    board = chess.Board()
    position = Position.from_board(board)
    for san in ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "Nf3", "Nf6", "Bc4", "Bg4", "O-O", "Bxf3", "Qxf3"]:
        move = board.push_san(san)
        position.make(from_move(move))
        mg, eg, phase = _sums(board)
        assert (position.mg, position.eg, position.phase) == (mg, eg, phase)
        blended = (mg * phase + eg * (PHASE_TOTAL - phase)) // PHASE_TOTAL
        assert position.evaluate() == (blended if board.turn == chess.WHITE else -blended)


def test_piece_values_standard_are_the_tables_and_shift_nothing():
    from search.chess.pst import PieceValues

    standard = PieceValues.standard()
    assert standard.middlegame == MG_VALUES[1:6] and standard.endgame == EG_VALUES[1:6]
    assert standard.shifts() == ((0,) * 7, (0,) * 7)
    odd = PieceValues.uniform((99.6, 300, 300.4, 500, 1000))
    assert odd.middlegame == odd.endgame == (100, 300, 300, 500, 1000)
    assert odd.shifts() == ((0, 0, -20, -30, 0, 100, 0), (0, -20, 10, -20, -30, 50, 0))


@pytest.mark.parametrize("bad", [(100, 300, 300, 500), (100, 300, 300, 500, 900.5), (100, 300, 300, 500, 10**6)])
def test_piece_values_refuse_anything_but_five_whole_centipawn_values(bad):
    from search.chess.pst import PieceValues

    with pytest.raises(ValueError, match="five whole numbers"):
        PieceValues(bad, (100, 300, 300, 500, 900))


def test_square_scales_multiply_each_piece_s_bonus_and_the_search_reads_them():
    from search.chess.engine import ChessSearch
    from search.chess.pst import SQUARE_NAMES, PieceValues

    standard = PieceValues.standard()
    assert standard.squares == (1.0,) * 12 and standard.tables() == (MG_TABLE, EG_TABLE)
    scales = [1.0] * 12
    scales[SQUARE_NAMES.index("pawn_squares_mg")] = 0.5
    scales[SQUARE_NAMES.index("knight_squares_eg")] = 2.0
    middle, end = standard.with_squares(scales).tables()
    assert middle[KINDS["P"]][_at("e4")] == 100 + 9  # half of the bonus of 18
    assert middle[-KINDS["P"]][_at("e5")] == -(100 + 9)  # Black's mirror
    assert end[KINDS["N"]][_at("a1")] == 290 - 44  # twice -22 on the rim
    assert middle[KINDS["N"]][_at("a1")] == MG_TABLE[KINDS["N"]][_at("a1")]  # the other tables unchanged
    # kings and a pawn on e4: an endgame (phase 0), the kings' bonuses cancel, the pawn's is 12
    board = chess.Board("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1")
    pawn_eg = SQUARE_NAMES.index("pawn_squares_eg")
    assert ChessSearch(values=standard).evaluate(board) == ChessSearch().evaluate(board) == 132
    assert ChessSearch(values=standard.with_squares([0.0] * 12)).evaluate(board) == 120
    doubled = [2.0 if i == pawn_eg else 1.0 for i in range(12)]
    assert ChessSearch(values=standard.with_squares(doubled)).evaluate(board) == 144


@pytest.mark.parametrize("bad", [(1.0,) * 11, (1.0,) * 11 + (-0.5,)])
def test_piece_values_refuse_square_scales_that_are_not_twelve_from_0_to_100(bad):
    from search.chess.pst import PieceValues

    with pytest.raises(ValueError, match="12 scales"):
        PieceValues.standard().with_squares(bad)
