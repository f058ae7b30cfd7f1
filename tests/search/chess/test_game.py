"""The chess adapter: perft against the published counts, game-over rules, mates, evaluation."""

import random

import chess
import chess.polyglot
import pytest

from search import HeuristicOrderer, Limits, LinearEvaluator, TranspositionTable, alphabeta, minimax, search
from search.chess.evaluation import DEFAULT_WEIGHTS, chess_features, material_pst_evaluator
from search.chess.game import MATE, ChessGame, is_mate_score, mate_in_plies

EVAL = material_pst_evaluator()
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
TACTICAL = "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"


def _cursor_perft(cursor, depth):
    if depth == 0:
        return 1
    total = 0
    for move in cursor.actions():
        cursor.push(move)
        total += _cursor_perft(cursor, depth - 1)
        cursor.pop()
    return total


def _game_perft(game, state, depth):
    """Leaf count through the public protocol: ACTIONS and RESULT, no cursor."""
    if depth == 0:
        return 1
    return sum(_game_perft(game, game.result(state, a), depth - 1) for a in game.actions(state))


# Published perft counts (chessprogramming.org "Perft Results"), depths 1, 2, 3.
PUBLISHED_PERFT = {
    "start": (chess.STARTING_FEN, (20, 400, 8_902)),
    "kiwipete": (KIWIPETE, (48, 2_039, 97_862)),
    "position3": (POSITION_3, (14, 191, 2_812)),
    "position4": (POSITION_4, (6, 264, 9_467)),
}


@pytest.mark.parametrize("name", list(PUBLISHED_PERFT))
def test_cursor_perft_matches_the_published_counts(name):
    fen, counts = PUBLISHED_PERFT[name]
    game = ChessGame(fen)
    cursor = game.cursor(game.initial_state())
    assert tuple(_cursor_perft(cursor, depth) for depth in (1, 2, 3)) == counts
    assert cursor.ply == 0


@pytest.mark.parametrize("name", list(PUBLISHED_PERFT))
def test_game_protocol_perft_matches_the_published_counts(name):
    fen, counts = PUBLISHED_PERFT[name]
    game = ChessGame(fen)
    depth = 2 if name == "kiwipete" else 3  # copying boards: keep the suite fast
    assert _game_perft(game, game.initial_state(), depth) == counts[depth - 1]


def test_public_protocol_moves_are_the_legal_moves():
    game = ChessGame(KIWIPETE)
    board = game.initial_state()
    assert set(game.actions(board)) == set(board.legal_moves)
    with pytest.raises(ValueError, match="illegal"):
        game.result(board, chess.Move.from_uci("e1e3"))
    child = game.result(board, chess.Move.from_uci("e1g1"))
    assert board.fen() == KIWIPETE  # the input board is untouched
    assert child.move_stack == [chess.Move.from_uci("e1g1")]


@pytest.mark.parametrize(
    "fen",
    [
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
        "8/8/8/4k3/8/8/8/4KB2 w - - 0 1",  # insufficient material
        "8/8/8/4k3/8/8/1R6/4K3 w - - 100 80",  # fifty-move rule
    ],
    ids=["stalemate", "insufficient", "fifty-moves"],
)
def test_drawn_endings(fen):
    game = ChessGame(fen)
    board = game.initial_state()
    assert game.is_terminal(board) and game.cursor(board).is_terminal()
    assert game.utility(board, 0) == game.utility(board, 1) == 0
    assert game.actions(board) == ()
    for move in board.legal_moves:
        with pytest.raises(ValueError, match="over"):
            game.result(board, move)


def test_checkmate_utility_rewards_quicker_mates():
    board = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    game = ChessGame()
    assert game.is_terminal(board)
    assert game.utility(board, 0) == MATE and game.utility(board, 1) == -MATE
    # Read through a cursor, a mate p plies below its root is worth MATE - p.
    before = chess.Board("7k/8/6K1/8/8/8/6Q1/8 w - - 0 1")
    cursor = game.cursor(before)
    cursor.push(chess.Move.from_uci("g2g7"))
    assert cursor.is_terminal()
    assert cursor.utilities() == (MATE - 1, -(MATE - 1))


def test_threefold_repetition_ends_the_game_and_twofold_ends_a_search_line():
    game = ChessGame()
    board = chess.Board()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for uci in shuffle:
        board.push_uci(uci)
    assert not game.is_terminal(board)
    cursor = game.cursor(board)
    assert not cursor.is_terminal()  # at the root only the threefold rule counts
    for uci in shuffle[:2]:
        cursor.push(chess.Move.from_uci(uci))
    assert cursor.is_terminal()  # below the root a repeated position is a draw
    for uci in shuffle:
        board.push_uci(uci)
    assert game.is_terminal(board) and game.cursor(board).is_terminal()


def _mating_moves(board, n):
    """Moves that force mate in ``n`` moves, by brute force with python-chess alone."""
    found = []
    for move in list(board.legal_moves):
        board.push(move)
        if board.is_checkmate():
            ok = True
        elif n == 1 or board.is_game_over():
            ok = False
        else:
            ok = True
            for reply in list(board.legal_moves):
                board.push(reply)
                ok = bool(_mating_moves(board, n - 1))
                board.pop()
                if not ok:
                    break
        board.pop()
        if ok:
            found.append(move)
    return found


def test_mate_in_one():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1")
    result = alphabeta(ChessGame(), board, depth=1, evaluator=EVAL)
    assert result.move == chess.Move.from_uci("e1e8")
    assert is_mate_score(result.value) and mate_in_plies(result.value) == 1


@pytest.mark.parametrize(
    "fen",
    [
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
    ],
    ids=["white-mates", "black-mates"],
)
def test_mate_in_two(fen):
    board = chess.Board(fen)
    assert not _mating_moves(board, 1)
    mating = _mating_moves(board, 2)
    assert mating
    result = alphabeta(ChessGame(), board, depth=3, evaluator=EVAL, ordering=HeuristicOrderer())
    assert result.move in mating
    assert mate_in_plies(result.value) == 3
    deepened = search(ChessGame(), board, evaluator=EVAL, limits=Limits(depth=4), table=TranspositionTable())
    assert deepened.move in mating
    line = board.copy()
    for move in deepened.pv[:3]:
        line.push(move)
    assert line.is_checkmate()


# White mates in two (Qg1-g5 or the like, then mate on the back rank or h-file); the
# e-pawns reach e4/e5 in one move each or in two, so the same position (the same key)
# is two plies or four plies away from here.
MATE_IN_TWO_AFTER_PAWNS = "7k/4p3/6K1/8/8/8/4P3/6Q1 w - - 0 1"


def test_mate_distances_survive_transpositions_of_different_length():
    root = chess.Board(MATE_IN_TWO_AFTER_PAWNS)
    short, long = root.copy(), root.copy()
    for uci in "e2e4 e7e5".split():
        short.push_uci(uci)
    for uci in "e2e3 e7e6 e3e4 e6e5".split():
        long.push_uci(uci)
    assert chess.polyglot.zobrist_hash(short) == chess.polyglot.zobrist_hash(long)
    assert long.ply() == short.ply() + 2
    table = TranspositionTable()
    hits = 0
    for board in (short, long, short):  # one table throughout, as the UCI engine keeps it
        result = alphabeta(
            ChessGame(), board, depth=3, evaluator=EVAL, ordering=HeuristicOrderer(), table=table
        )
        assert result.value == MATE - 3 and mate_in_plies(result.value) == 3
        hits += result.tt_hits
    assert hits > 0  # the later searches did read the earlier ones' mate scores


# White mates in three; two plies later (the table kept, as between UCI moves) the
# entries stored three plies below the old root sit one ply below the new one.
MATE_IN_THREE = "7k/8/8/8/5K2/8/8/6Q1 w - - 0 1"


def test_mate_distances_count_from_each_root_when_the_table_is_kept():
    board = chess.Board(MATE_IN_THREE)
    table = TranspositionTable()
    first = alphabeta(ChessGame(), board, depth=5, evaluator=EVAL, ordering=HeuristicOrderer(), table=table)
    assert mate_in_plies(first.value) == 5
    for move in first.pv[:2]:
        board.push(move)
    later = alphabeta(ChessGame(), board, depth=3, evaluator=EVAL, ordering=HeuristicOrderer(), table=table)
    assert later.tt_hits > 0
    assert mate_in_plies(later.value) == 3
    fresh = alphabeta(ChessGame(), board, depth=3, evaluator=EVAL)
    assert fresh.value == later.value


@pytest.mark.parametrize("fen", [MIDDLEGAME, TACTICAL, KIWIPETE])
def test_ordering_and_table_change_nodes_not_the_value(fen):
    game = ChessGame(fen)
    board = game.initial_state()
    plain = alphabeta(game, board, depth=3, evaluator=EVAL)
    ordered = alphabeta(game, board, depth=3, evaluator=EVAL, ordering=HeuristicOrderer())
    assert plain.value == ordered.value
    assert ordered.nodes < plain.nodes


@pytest.mark.parametrize("fen", [MIDDLEGAME, TACTICAL])
def test_the_table_saves_nodes_where_chess_transposes(fen):
    # Chess transposes from depth 4 on (W a, B x, W b = W b, B x, W a): the table must
    # then save nodes, with the same value.
    game = ChessGame(fen)
    board = game.initial_state()
    ordered = alphabeta(game, board, depth=4, evaluator=EVAL, ordering=HeuristicOrderer())
    tabled = alphabeta(
        game, board, depth=4, evaluator=EVAL, ordering=HeuristicOrderer(), table=TranspositionTable()
    )
    assert tabled.value == ordered.value
    assert tabled.tt_hits > 0
    assert tabled.nodes < ordered.nodes


@pytest.mark.parametrize("fen", [MIDDLEGAME, TACTICAL])
def test_alphabeta_equals_minimax_at_depth_two(fen):
    game = ChessGame(fen)
    board = game.initial_state()
    assert alphabeta(game, board, depth=2, evaluator=EVAL).value == minimax(
        game, board, depth=2, evaluator=EVAL
    ).value


def test_quiescence_sees_the_recapture():
    # White's queen can take a pawn defended by a pawn; at depth 1 without quiescence
    # that looks like a free pawn.
    board = chess.Board("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1")
    game = ChessGame()
    naive = alphabeta(game, board, depth=1, evaluator=EVAL)
    careful = alphabeta(game, board, depth=1, evaluator=EVAL, quiescence=True)
    assert naive.move == chess.Move.from_uci("d2d5")
    assert careful.move != chess.Move.from_uci("d2d5")
    assert careful.qnodes > 0


def test_quiescence_does_not_stand_pat_in_check():
    # Nc7+ forks king and queen. At depth 1 Black is in check at the horizon: standing
    # pat there (and then trying only captures) misses that the queen falls after any
    # king move; searching the evasions finds it.
    board = chess.Board("q3k3/7p/8/3N4/8/8/7P/6K1 w - - 0 1")
    game = ChessGame()
    result = alphabeta(game, board, depth=1, evaluator=EVAL, quiescence=True)
    assert result.move == chess.Move.from_uci("d5c7")
    assert result.value > 200  # a knight up, not a queen down
    after = board.copy()
    after.push_uci("d5c7")
    assert not game.stand_pat_allowed(after) and game.stand_pat_allowed(board)
    cursor = game.cursor(after)
    assert set(cursor.noisy_actions()) == set(after.legal_moves)  # every evasion is noisy


def test_evaluation_is_zero_at_the_start_and_antisymmetric():
    assert EVAL(chess.Board()) == 0
    rng = random.Random(5)
    board = chess.Board()
    for _ in range(60):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        position = chess.Board(board.fen())
        assert EVAL(position.mirror()) == -EVAL(position)


def test_evaluation_is_the_weighted_feature_sum():
    board = chess.Board("4k3/8/8/8/8/8/8/RN2K3 w - - 0 1")
    features = chess_features(board)
    assert features[:5] == (0, 1, 0, 1, 0)
    assert EVAL(board) == sum(w * f for w, f in zip(DEFAULT_WEIGHTS, features))
    with pytest.raises(ValueError, match="weights"):
        LinearEvaluator(chess_features, (1, 2))(board)
