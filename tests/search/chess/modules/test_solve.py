"""search.chess.modules.solve: traces within a cap, solved-from nodes, the solve rate against a node budget."""

import chess
import numpy as np
import pytest

from search.chess.modules.kernels import ModuleSearch
from search.chess.modules.solve import (
    SuitePosition,
    first_solved,
    nodes_to_rate,
    read_suite,
    solve_curve,
    solve_nodes,
    trace,
)
from search.chess.modules.space import DepthOrdering

BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
OPENING = "r1bqk1nr/ppp2ppp/2np4/b3p3/2B1P3/2P2N2/P2P1PPP/RNBQ1RK1 w kq - 0 1"


def test_a_suite_is_read_with_its_best_moves_and_names(tmp_path):
    path = tmp_path / "suite.epd"
    path.write_text(f'{BACK_RANK.rsplit(" ", 2)[0]} bm Ra8; id "mate";\n\n{OPENING.rsplit(" ", 2)[0]} bm d4 Bb3;\n')
    first, second = read_suite(path)
    assert (first.name, first.best) == ("mate", frozenset({chess.Move.from_uci("a1a8")}))
    assert second.name == "suite.epd:3" and len(second.best) == 2


def test_a_suite_line_without_a_best_move_is_refused(tmp_path):
    path = tmp_path / "suite.epd"
    path.write_text(f'{OPENING.rsplit(" ", 2)[0]} id "no answer";\n')
    with pytest.raises(ValueError, match="suite.epd:1: no best move"):
        read_suite(path)


def test_a_trace_stays_within_its_cap_and_is_the_start_of_a_longer_one():
    search = ModuleSearch(DepthOrdering.default(), table_size=1 << 14)
    board = chess.Board(OPENING)
    short, long = trace(search, board, 5_000), trace(search, board, 40_000)
    assert short and all(spent <= 5_000 for spent, _ in short)
    assert long[: len(short)] == short and len(long) > len(short)
    assert [spent for spent, _ in long] == sorted(spent for spent, _ in long)


def test_the_first_solved_nodes_need_every_later_answer_right():
    best = {"good"}
    assert first_solved([(10, "bad"), (50, "good"), (90, "good")], best) == 50
    assert first_solved([(10, "good"), (50, "bad"), (90, "good")], best) == 90
    assert first_solved([(10, "good"), (50, "bad")], best) is None
    assert first_solved([], best) is None


def test_a_mate_is_solved_at_the_first_iteration():
    position = SuitePosition("mate", chess.Board(BACK_RANK), frozenset({chess.Move.from_uci("a1a8")}))
    search = ModuleSearch(DepthOrdering.default(), table_size=1 << 14)
    assert solve_nodes(search, [position], 2_000) == [trace(search, position.board, 2_000)[0][0]]


def test_the_solve_curve_and_the_nodes_to_a_rate():
    solved = [100, None, 400, 50]
    assert solve_curve(solved, [10, 50, 100, 1000]).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert (nodes_to_rate(solved, 0.5), nodes_to_rate(solved, 0.75), nodes_to_rate(solved, 1.0)) == (100, 400, None)
    assert nodes_to_rate(solved, 0.0) == 0
    assert np.isclose(solve_curve([None], [10])[0], 0.0)
