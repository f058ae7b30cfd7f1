"""The compiled core's own machinery: growing stacks and tables, stops and deadlines across threads, its cache."""

import threading
import time

import chess
import pytest

from search import HeuristicOrderer, Limits, TranspositionTable, search
from search.chess import board as fast_board
from search.chess import engine, play
from search.chess.board import Position, from_move
from search.chess.engine import ChessSearch
from search.chess.evaluation import tapered_evaluator
from search.chess.game import ChessGame

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"


def test_a_position_grows_its_stacks_past_their_first_capacity():
    position = Position.from_board(chess.Board())
    start = position.key
    shuffle = [from_move(chess.Move.from_uci(uci)) for uci in ("g1f3", "g8f6", "f3g1", "f6g8")]
    for ply in range(1200):
        assert position.make(shuffle[ply % 4])
    assert position.halfmove == 1200 and position.key == start
    assert len(position.keys) == 1201 and position.repetitions() == 300
    for _ in range(1200):
        position.unmake()
    assert position.key == start and position.keys == [start] and position.moves_made() == []


def test_a_small_table_is_emptied_when_full_and_the_values_stay_those_of_alpha_beta():
    searcher = ChessSearch(table_size=64)
    fast = searcher.search(chess.Board(MIDDLEGAME), Limits(depth=4))
    generic = search(
        ChessGame(), chess.Board(MIDDLEGAME), evaluator=tapered_evaluator(), limits=Limits(depth=4),
        ordering=HeuristicOrderer(), table=TranspositionTable(), quiescence=True,
    )
    assert (fast.value, fast.move) == (generic.value, generic.move)
    assert 0 < len(searcher.table) <= 64 and 0 < len(searcher.qtable) <= 64


def test_the_table_grows_and_keeps_what_it_holds():
    searcher = ChessSearch()
    board = chess.Board(KIWIPETE)
    searcher.search(board, Limits(depth=4))
    assert len(searcher.table) > 1024  # past the first slots: it grew
    assert Position.from_board(board).key in searcher.table
    searcher.clear()
    assert len(searcher.table) == 0 and Position.from_board(board).key not in searcher.table


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """The kernels loaded (or compiled) before any test times them."""
    ChessSearch().search(chess.Board(KIWIPETE), Limits(depth=2))
    ChessSearch().score_moves(chess.Board(KIWIPETE), 2)


def test_a_stop_from_another_thread_ends_the_compiled_search_at_once():
    stop = threading.Event()
    found = []
    worker = threading.Thread(target=lambda: found.append(ChessSearch().search(chess.Board(KIWIPETE), Limits(),
                                                                               stop=stop)))
    worker.start()
    time.sleep(0.3)
    asked = time.perf_counter()
    stop.set()
    worker.join(timeout=5)
    assert not worker.is_alive() and time.perf_counter() - asked < 2.0  # unstopped, it would never end
    assert found[0].depth >= 1 and found[0].move in chess.Board(KIWIPETE).legal_moves


def test_a_deadline_ends_a_scoring_in_the_middle_of_the_compiled_search():
    started = time.perf_counter()
    with pytest.raises(TimeoutError, match="deadline"):
        ChessSearch().score_moves(chess.Board(KIWIPETE), 8, deadline=started + 0.2)
    assert time.perf_counter() - started < 3.0  # a depth-8 scoring of this position takes far longer


def test_other_threads_run_while_the_compiled_search_thinks():
    """The search's entry points release the GIL: a UCI engine answers while it thinks."""
    done = threading.Event()
    counted = [0]

    def count() -> None:
        while not done.is_set():
            counted[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = counted[0]
        started = time.perf_counter()
        ChessSearch().search(chess.Board(KIWIPETE), Limits(time=0.5))
        assert time.perf_counter() - started >= 0.4
        assert counted[0] - before > 10_000
    finally:
        done.set()
        counter.join()


def test_the_compiled_code_is_cached_under_the_digest_of_all_the_cores_files():
    """A kernel of the search holds the board's code: a change to any core file makes the cache stale."""
    for kernel in (engine._negamax, engine._quiesce, fast_board._make, play._play_node):
        locator = kernel._cache._impl.locator
        assert type(locator) in fast_board._CORE_LOCATORS
        assert locator.get_source_stamp() == fast_board._core_stamp()
    assert {name.rsplit("/", 1)[-1] for name in fast_board._CORE_FILES} == {"board.py", "engine.py", "pst.py",
                                                                             "play.py", "result.py"}
