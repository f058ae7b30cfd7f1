"""The fast chess search against the generic search on the python-chess adapter.

Both search the same tree with the same evaluation (the tapered piece-square value) and
the same rules, so at a fixed depth they must return the same value and move.
"""

import threading

import chess
import pytest

from search import HeuristicOrderer, Limits, TranspositionTable, search
from search.chess.engine import MATE, ChessSearch, table_bytes
from search.chess.evaluation import tapered_evaluator
from search.chess.pst import PieceValues

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
TACTICAL = "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ENDGAME = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
SHARP = "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1"  # checks, mating threats, hanging pieces


def _generic(fen: str, depth: int, table: bool):
    return search(
        chess_game(), chess.Board(fen), evaluator=tapered_evaluator(), limits=Limits(depth=depth),
        ordering=HeuristicOrderer(), table=TranspositionTable() if table else None, quiescence=True,
    )


def chess_game():
    from search.chess.game import ChessGame

    return ChessGame()


@pytest.mark.parametrize(
    ("fen", "depth"),
    [(MIDDLEGAME, 3), (TACTICAL, 3), (ENDGAME, 4), (chess.STARTING_FEN, 3), (SHARP, 4)],
)
@pytest.mark.parametrize("table", [False, True])
def test_same_value_and_move_as_the_generic_search(fen, depth, table):
    generic = _generic(fen, depth, table)
    fast = ChessSearch(use_table=table).search(chess.Board(fen), Limits(depth=depth))
    assert (fast.value, fast.move, fast.depth) == (generic.value, generic.move, generic.depth)


def test_finds_the_mate_and_reports_its_distance():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    result = ChessSearch().search(board, Limits(depth=3))
    assert result.move == chess.Move.from_uci("a1a8") and result.value == MATE - 1


def test_iterations_stop_at_a_node_budget_with_a_legal_move():
    board = chess.Board(KIWIPETE)
    result = ChessSearch().search(board, Limits(nodes=30_000))
    assert result.move in board.legal_moves
    assert result.total_nodes <= 30_000 + 1_024 + 1  # checked every 1024 nodes
    assert 1 <= result.depth < 6


def test_a_stop_request_before_depth_one_still_gives_a_move():
    stop = threading.Event()
    stop.set()
    board = chess.Board(MIDDLEGAME)
    result = ChessSearch().search(board, Limits(nodes=10), stop=stop)
    assert result.depth == 0 and result.move in board.legal_moves


def test_a_finished_game_yields_no_iteration():
    board = chess.Board("7k/5KQ1/8/8/8/8/8/8 b - - 0 1")
    assert list(ChessSearch().iterate(board, Limits(depth=3))) == []
    result = ChessSearch().search(board, Limits(depth=3))
    assert result.move is None and result.value == -MATE


def test_a_repetition_below_the_root_is_a_draw():
    # White is a rook down; Qh6-g6 checks forever: the search sees the perpetual as 0.
    board = chess.Board("5r1k/6pp/7Q/8/8/8/5PPP/r5K1 w - - 0 1")
    generic = _generic(board.fen(), 5, True)
    fast = ChessSearch().search(board, Limits(depth=5))
    assert fast.value == generic.value


def test_the_table_carries_over_and_changes_no_value():
    searcher = ChessSearch()
    board = chess.Board(TACTICAL)
    first = searcher.search(board, Limits(depth=3))
    again = searcher.search(board, Limits(depth=3))
    assert again.value == first.value and again.total_nodes < first.total_nodes


@pytest.mark.parametrize(
    ("fen", "depth"), [(MIDDLEGAME, 3), (TACTICAL, 4), (ENDGAME, 5), (chess.STARTING_FEN, 4), (SHARP, 4)],
)
def test_a_value_deepened_by_two_plies_is_the_search_s_and_plain_alpha_beta_s(fen, depth):
    board = chess.Board(fen)
    value = ChessSearch().value(board, depth)
    assert value == ChessSearch().search(board, Limits(depth=depth)).value
    assert value == ChessSearch(use_table=False).search(board, Limits(depth=depth)).value
    if depth <= 3:  # the generic search in pure Python; the compiled one is held to it at depths 3 and 4 above
        assert value == _generic(fen, depth, table=False).value
    assert ChessSearch().value(board, 1) == ChessSearch().search(board, Limits(depth=1)).value
    with pytest.raises(ValueError, match="depth"):
        ChessSearch().value(board, 0)


def test_a_finished_game_is_valued_as_the_search_values_it():
    mated, stalemate = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert ChessSearch().value(mated, 3) == ChessSearch().search(mated, Limits(depth=3)).value == -MATE
    assert ChessSearch().value(stalemate, 4) == 0


def test_a_root_restriction_must_be_a_legal_move():
    with pytest.raises(ValueError, match="not legal"):
        ChessSearch().search(chess.Board(), Limits(depth=1), only=chess.Move.from_uci("e2e5"))


BARE_KINGS_AFTER_CAPTURE = "k7/8/8/8/8/8/8/Kq6 w - - 0 1"  # Kxb1, the only move, leaves bare kings


@pytest.mark.parametrize("fen", [BARE_KINGS_AFTER_CAPTURE, "kQ6/8/8/8/8/8/8/K7 b - - 0 1"])
@pytest.mark.parametrize("contempt", [0, 25, -25])
def test_a_draw_costs_the_root_side_its_contempt(fen, contempt):
    found = ChessSearch(contempt=contempt).search(chess.Board(fen), Limits(depth=3))
    assert found.value == -contempt and found.move is not None


def test_with_contempt_the_engine_plays_on_instead_of_repeating():
    # Black, worse after 1.e4, can repeat the position with ...Ng8 (a draw below the root).
    board = chess.Board()
    for san in "e4 Nf6 Nc3 Ng8 Nb1 Nf6 Nc3".split():
        board.push_san(san)
    repeat = board.parse_san("Ng8")
    for depth in (2, 4):
        level = ChessSearch().search(board, Limits(depth=depth))
        assert (level.move, level.value) == (repeat, 0)
        eager = ChessSearch(contempt=50).search(board, Limits(depth=depth))
        assert eager.move != repeat and -50 < eager.value <= 0


def test_a_contempt_for_the_other_side_does_not_read_the_old_table():
    searcher = ChessSearch(contempt=30)
    searcher.search(chess.Board(BARE_KINGS_AFTER_CAPTURE), Limits(depth=3))
    board = chess.Board()
    for san in "e4 Nf6 Nc3 Ng8 Nb1 Nf6 Nc3".split():
        board.push_san(san)
    for _ in range(2):  # Black's root after White's, then Black's again from its own table
        again = searcher.search(board, Limits(depth=4))
        fresh = ChessSearch(contempt=30).search(board, Limits(depth=4))
        assert (again.move, again.value) == (fresh.move, fresh.value)


@pytest.mark.parametrize("table_size", [1, 1_000, 8_192, 8_193, 300_000])
def test_table_bytes_is_what_a_search_of_that_size_allocates(table_size):
    assert table_bytes(table_size) == ChessSearch(table_size=table_size)._tables.nbytes


# ---- piece values: an evaluation parameterised by a weight vector ------------------------------------

ODD_VALUES = PieceValues((80, 350, 310, 480, 1000), (140, 260, 340, 560, 880))


@pytest.mark.parametrize("fen", [MIDDLEGAME, TACTICAL, KIWIPETE, chess.STARTING_FEN])
def test_the_standard_piece_values_search_exactly_as_the_default(fen):
    default = ChessSearch().search(chess.Board(fen), Limits(depth=4))
    valued = ChessSearch(values=PieceValues.standard()).search(chess.Board(fen), Limits(depth=4))
    assert (valued.value, valued.move, valued.nodes, valued.qnodes) == (
        default.value, default.move, default.nodes, default.qnodes)


@pytest.mark.parametrize(("fen", "depth"), [(MIDDLEGAME, 3), (TACTICAL, 3), (ENDGAME, 4), (SHARP, 3)])
def test_other_piece_values_search_as_the_generic_search_with_the_same_values(fen, depth):
    from search.chess.evaluation import tapered_value

    generic = search(
        chess_game(), chess.Board(fen), evaluator=lambda board: tapered_value(board, ODD_VALUES),
        limits=Limits(depth=depth), ordering=HeuristicOrderer(), quiescence=True,
    )
    fast = ChessSearch(use_table=False, values=ODD_VALUES).search(chess.Board(fen), Limits(depth=depth))
    assert (fast.value, fast.move) == (generic.value, generic.move)


def test_piece_values_change_the_evaluation_by_the_material_difference():
    board = chess.Board("4k3/8/8/8/8/8/8/QN2K3 b - - 0 1")  # White a queen and a knight up, Black to move
    plain, valued = ChessSearch(), ChessSearch(values=PieceValues.uniform((100, 300, 300, 500, 700)))
    # Black's view: the queen is worth 700 instead of (900 middlegame, 950 endgame), the knight 300 (320, 290)
    phase = 1 + 4
    shift = ((700 - 900 + 300 - 320) * phase + (700 - 950 + 300 - 290) * (24 - phase)) // 24
    white_view = -plain.evaluate(board)
    assert -valued.evaluate(board) in (white_view + shift, white_view + shift + 1)


def test_setting_values_empties_the_table_and_none_restores_the_default():
    board = chess.Board(MIDDLEGAME)
    engine = ChessSearch()
    engine.search(board, Limits(depth=3))
    engine.values = ODD_VALUES
    assert len(engine.table) == 0 and engine.values == ODD_VALUES
    engine.values = None
    assert engine.search(board, Limits(depth=3)).value == ChessSearch().search(board, Limits(depth=3)).value
    with pytest.raises(TypeError):
        engine.values = (100, 300, 300, 500, 900)
