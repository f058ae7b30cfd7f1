"""The fast board against python-chess: perft, and random playouts compared move by move."""

import random

import chess
import pytest

from search.chess.board import Position, from_move, to_move

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

# Published perft counts (chessprogramming.org "Perft Results"); depth 4 where it runs in seconds.
PERFT = {
    "start": (chess.STARTING_FEN, (20, 400, 8_902, 197_281)),
    "kiwipete": (KIWIPETE, (48, 2_039, 97_862)),
    "position3": (POSITION_3, (14, 191, 2_812, 43_238)),
    "position4": (POSITION_4, (6, 264, 9_467, 422_333)),
    "position5": (POSITION_5, (44, 1_486, 62_379)),
    "position6": (POSITION_6, (46, 2_079, 89_890)),
}


def _perft(position: Position, depth: int) -> int:
    in_check = position.in_check()
    total = 0
    for move in position.pseudo_moves():
        if position.make(move, in_check):
            total += _perft(position, depth - 1) if depth > 1 else 1
        position.unmake()
    return total


@pytest.mark.parametrize("name", list(PERFT))
def test_perft_matches_the_published_counts(name):
    fen, counts = PERFT[name]
    position = Position.from_fen(fen)
    before = (list(position.board), position.key, position.mg, position.eg, position.castling)
    assert tuple(_perft(position, depth) for depth in range(1, len(counts) + 1)) == counts
    assert (list(position.board), position.key, position.mg, position.eg, position.castling) == before


def _snapshot(position: Position) -> tuple:
    return (tuple(position.board), position.side, position.castling, position.ep, position.halfmove,
            position.key, tuple(position.keys), tuple(position.kings), position.mg, position.eg,
            position.phase, position.heavy)


def _fresh_sums(position: Position) -> tuple:
    copy = Position.from_board(position.to_board())
    return copy.key, copy.mg, copy.eg, copy.phase, copy.heavy


@pytest.mark.parametrize("seed", range(12))
def test_random_playouts_agree_with_python_chess(seed):
    """Legal moves, check, mate, stalemate, draws and keys, at every ply of random games."""
    rng = random.Random(seed)
    fen = rng.choice([chess.STARTING_FEN, KIWIPETE, POSITION_4, POSITION_5, POSITION_6, POSITION_3])
    board = chess.Board(fen)
    position = Position.from_board(board)
    keys_by_position: dict = {}
    snapshots = []
    for _ply in range(400):
        legal = {to_move(m) for m in position.legal_moves()}
        assert legal == set(board.legal_moves), board.fen()
        assert position.in_check() == board.is_check()
        assert position.has_legal_move() == bool(legal)
        assert position.insufficient_material() == board.is_insufficient_material()
        assert (position.repetitions() >= 2) == board.is_repetition(3)
        assert position.halfmove == board.halfmove_clock
        # the incremental key and evaluation sums equal a recount (the key without history)
        assert (position.key, position.mg, position.eg, position.phase, position.heavy) == _fresh_sums(position)
        # equal keys exactly when python-chess counts the positions as the same
        identity = board._transposition_key()
        assert keys_by_position.setdefault(position.key, identity) == identity
        if board.is_game_over(claim_draw=False) or board.halfmove_clock >= 100:
            break
        # mostly quiet king and knight moves, so that threefold repetitions and the
        # fifty-move rule happen (seeds 2, 5, 8 repeat three times; seed 0 reaches 100)
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        shuffles = [
            m for m in moves
            if board.piece_type_at(m.from_square) in (chess.KNIGHT, chess.KING) and not board.is_capture(m)
        ]
        move = rng.choice(shuffles if shuffles and rng.random() < 0.8 else moves)
        snapshots.append(_snapshot(position))
        assert position.make(from_move(move))
        board.push(move)
    while snapshots:  # unmake restores every part of the position exactly
        position.unmake()
        assert _snapshot(position) == snapshots.pop()


def test_outcomes_a_random_game_may_miss():
    mated = Position.from_fen("7k/5KQ1/8/8/8/8/8/8 b - - 0 1")
    assert mated.in_check() and not mated.has_legal_move()
    stalemate = Position.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert not stalemate.in_check() and not stalemate.has_legal_move()
    same_bishops = Position.from_fen("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1")  # both on light squares
    assert same_bishops.insufficient_material()
    assert not Position.from_fen("8/8/4kb2/8/8/3K1B2/8/8 w - - 0 1").insufficient_material()
    assert not Position.from_fen("8/8/4kn2/8/8/3KB3/8/8 w - - 0 1").insufficient_material()


def test_en_passant_counts_in_the_key_only_when_it_can_be_taken():
    # White's pawn d5 could take e6 en passant, but it is pinned to its king on a5.
    pinned = chess.Board("8/8/8/K2Pp2r/8/8/8/7k w - e6 0 2")
    free = chess.Board("8/8/8/3Pp3/8/8/8/K6k w - e6 0 2")
    assert Position.from_board(pinned).ep == 0 and not pinned.has_legal_en_passant()
    assert Position.from_board(free).ep != 0
    legal = {to_move(m) for m in Position.from_board(free).legal_moves()}
    assert to_move(from_move(chess.Move.from_uci("d5e6"))) in legal


def test_history_from_the_move_stack_counts_for_repetition():
    board = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"):
        board.push_uci(uci)
    assert board.is_repetition(3)
    assert Position.from_board(board).repetitions() == 2


def test_round_trip_through_python_chess():
    board = chess.Board(KIWIPETE)
    assert Position.from_board(board).to_board().fen() == board.fen()


def test_only_standard_chess():
    with pytest.raises(ValueError):
        Position.from_board(chess.Board(chess.STARTING_FEN, chess960=True))
