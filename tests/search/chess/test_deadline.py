"""Predictions and scorings under a deadline: a search keeps to its clock whatever its model costs."""

from __future__ import annotations

import time

import chess
import pytest

from search.chess.deadline import BoundedPredictor, PredictionClock
from search.chess.engine import ChessSearch
from search.chess.exploit import ExploitingSearch
from search.chess.scoring import RootScoreCache, score_root_moves
from search.chess.uci import parse_go
from search.opponent.exploitation import Exploitation
from search.result import MAX_PLY, Limits


class Slow:
    """A predictor that takes ``seconds`` a call and then believes every legal move alike."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls = 0

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        self.calls += 1
        time.sleep(self.seconds)
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


def test_a_call_past_its_deadline_is_abandoned_and_its_cost_remembered():
    clock = PredictionClock()
    board = chess.Board()
    slow = Slow(0.3)
    started = time.perf_counter()
    bounded = BoundedPredictor(slow, started + 0.05, clock)
    assert bounded.predict_proba(board) == {}
    assert time.perf_counter() - started < 0.25  # not the call's 0.3 s
    assert bounded.skipped == 1 and clock.busy()
    assert bounded.predict_proba(board) == {} and slow.calls == 1  # not asked while the abandoned call runs
    clock.running.join()
    assert clock.cost == pytest.approx(0.3, abs=0.2) and not clock.busy()
    tight = BoundedPredictor(slow, time.perf_counter() + 0.1, clock)
    assert tight.predict_proba(board) == {} and slow.calls == 1  # the last call's cost does not fit: not started
    roomy = BoundedPredictor(slow, time.perf_counter() + 5.0, clock)
    beliefs = roomy.predict_proba(board)
    assert len(beliefs) == 20 and roomy.skipped == 0
    assert len(BoundedPredictor(slow, None, clock).predict_proba(board)) == 20  # no deadline: in the caller's thread


def test_a_bounded_call_passes_the_predictors_error_on():
    class Broken:
        def predict_proba(self, board):
            raise RuntimeError("broken model")

    with pytest.raises(RuntimeError, match="broken model"):
        BoundedPredictor(Broken(), time.perf_counter() + 5.0, PredictionClock()).predict_proba(chess.Board())


def test_a_scoring_past_its_deadline_raises_and_is_not_kept():
    board = chess.Board()
    with pytest.raises(TimeoutError, match="deadline"):
        ChessSearch().score_moves(board, 3, deadline=time.perf_counter())
    cache = RootScoreCache()
    with pytest.raises(TimeoutError):
        cache.scores(board, 3, deadline=time.perf_counter())
    assert len(cache) == 0 and cache.misses == 1  # asked for, not kept
    assert cache.scores(board, 2, deadline=time.perf_counter() + 60) == score_root_moves(board, 2)


def test_the_exploiting_search_keeps_to_its_time_when_a_prediction_costs_more():
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    slow = Slow(0.6)
    search = ExploitingSearch(slow, exploitation=Exploitation(weight=0.5))
    started = time.perf_counter()
    found = search.search(board, Limits(time=0.2))
    assert time.perf_counter() - started < 0.5  # the 0.6 s prediction was cut short
    assert found.move in board.legal_moves and found.predictions == 0
    if search.clock.running is not None:  # abandoned at the deadline (a loaded machine may leave no time to start it)
        search.clock.running.join()
    search.clock.cost = 0.6  # what the abandoned call cost, known once it ended
    # The cost is known: the next move does not start a prediction that cannot fit.
    calls = slow.calls
    found = search.search(board, Limits(time=0.2))
    assert slow.calls == calls and found.predictions == 0 and found.move in board.legal_moves


def test_a_depth_beyond_the_deepest_ply_is_read_as_that_ply():
    go = parse_go(["depth", "1000000000"])
    assert go.depth == MAX_PLY and "beyond" in go.problems[0]
    assert parse_go(["mate", "999"]).mate == MAX_PLY // 2
    assert parse_go(["depth", str(MAX_PLY)]).problems == ()
