"""search.chess.endgames: symmetry-reduced pawnless endgames checked move by move against python-chess."""

import itertools
import random

import chess
import pytest

from search.chess.endgames import ChessEndgame, symmetry_key


def test_every_image_of_a_position_has_the_same_state():
    """The eight symmetries of the board (flips, rotations, the diagonal) give one state."""
    board = chess.Board("8/8/2k5/8/4N3/8/1R6/6K1 b - - 0 1")
    images = [
        board,
        board.transform(chess.flip_vertical),
        board.transform(chess.flip_horizontal),
        board.transform(chess.flip_diagonal),
        board.transform(chess.flip_anti_diagonal),
        board.transform(chess.flip_vertical).transform(chess.flip_horizontal),
    ]
    assert len({symmetry_key(image) for image in images}) == 1
    assert symmetry_key(board)[0] is chess.BLACK
    white_to_move = board.copy()
    white_to_move.turn = chess.WHITE
    assert symmetry_key(white_to_move) != symmetry_key(board)


def test_symmetry_key_refuses_pawns_and_castling_rights():
    with pytest.raises(ValueError, match="pawns"):
        symmetry_key(chess.Board("8/8/8/3k4/8/8/1P6/K7 w - - 0 1"))
    with pytest.raises(ValueError, match="castling"):
        symmetry_key(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"))


def test_board_of_a_state_is_an_image_of_the_original():
    board = chess.Board("8/8/8/3k4/8/8/1Q6/K7 w - - 0 1")
    game = ChessEndgame("KQ", "K")
    state = symmetry_key(board)
    rebuilt = game.board(state)
    assert symmetry_key(rebuilt) == state
    assert sorted(p.symbol() for p in rebuilt.piece_map().values()) == ["K", "Q", "k"]
    assert rebuilt.turn == chess.WHITE and game.to_move(state) == 0


def test_bare_kings_count_as_the_orbits_of_all_legal_placements():
    """States of K vs K are exactly the symmetry classes of the valid placements, each terminal and drawn."""
    expected = set()
    for white, black in itertools.permutations(chess.SQUARES, 2):
        for turn in (chess.WHITE, chess.BLACK):
            board = chess.Board(None)
            board.set_piece_at(white, chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(black, chess.Piece(chess.KING, chess.BLACK))
            board.turn = turn
            if board.is_valid():
                expected.add(symmetry_key(board))
    game = ChessEndgame("K", "K")
    states = list(game.states())
    assert len(states) == len(set(states)) == len(expected)
    assert set(states) == expected
    assert game.initial_state() == states[0]
    assert all(game.is_terminal(s) and game.utility(s, 0) == 0.0 for s in states[:50])


def test_moves_and_results_agree_with_python_chess():
    """For sampled states: the legal moves are python-chess's and each result is the key of the pushed board."""
    game = ChessEndgame("KR", "KN")
    states = list(itertools.islice(game.states(), 3000))
    for state in random.Random(5).sample(states, 25):
        board = game.board(state)
        actions = game.actions(state)
        assert set(actions) == set(board.legal_moves)
        for move in actions:
            after = board.copy()
            after.push(move)
            assert game.result(state, move) == symmetry_key(after)


def test_a_capture_leads_to_the_smaller_signature():
    """KR vs KN, the rook takes the knight: a KR vs K state with Black to move."""
    board = chess.Board("8/8/8/3k4/8/8/1n6/KR6 w - - 0 1")
    game = ChessEndgame("KR", "KN")
    turn, codes = game.result(symmetry_key(board), chess.Move.from_uci("b1b2"))
    assert turn is chess.BLACK and len(codes) == 3


def test_mate_stalemate_and_insufficient_material():
    """+1 for the side that mates, -1 for the mated side, 0 for stalemate; lone minor pieces are draws."""
    game = ChessEndgame("KQ", "K")
    mate = symmetry_key(chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"))
    assert game.is_terminal(mate) and game.actions(mate) == ()
    assert (game.utility(mate, 0), game.utility(mate, 1)) == (1.0, -1.0)
    stalemate = symmetry_key(chess.Board("k7/8/1Q6/8/8/8/8/1K6 b - - 0 1"))
    assert game.is_terminal(stalemate) and game.utility(stalemate, 0) == 0.0
    going = symmetry_key(chess.Board("8/8/8/3k4/8/8/1Q6/K7 b - - 0 1"))
    assert not game.is_terminal(going) and game.utility(going, 0) == 0.0
    knight = ChessEndgame("KN", "K")
    assert knight.is_terminal(symmetry_key(chess.Board("8/8/8/3k4/8/8/1N6/K7 w - - 0 1")))


def test_illegal_moves_are_refused():
    game = ChessEndgame("KQ", "K")
    state = symmetry_key(chess.Board("8/8/8/3k4/8/8/1Q6/K7 w - - 0 1"))
    board = game.board(state)
    illegal = next(
        chess.Move(a, b) for a in chess.SQUARES for b in chess.SQUARES
        if a != b and board.piece_at(a) and chess.Move(a, b) not in board.legal_moves
    )
    with pytest.raises(ValueError, match="illegal"):
        game.result(state, illegal)


@pytest.mark.parametrize(("white", "black"), [("KK", "K"), ("Q", "K"), ("KP", "K"), ("KQ", "KX")])
def test_bad_signatures_are_refused(white, black):
    with pytest.raises(ValueError, match="one king per side"):
        ChessEndgame(white, black)
