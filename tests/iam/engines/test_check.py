"""A UCI engine as the judge of the imitation's drawn moves, and his rate by it (real stockfish; skipped without)."""

from __future__ import annotations

import json
import shutil

import chess
import pytest

from iam.engines.analysis import EngineError
from iam.engines.check import EngineJudge, cached_judged_rate, his_positions, judged_rate
from iam.games.pgn import PlayerGame
from search.chess.imitation import BLUNDER_LOSS, RATE_POSITIONS, DeepCheck
from search.result import Limits

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
needs_stockfish = pytest.mark.skipif(
    STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)"
)
ROOK_TAKES_QUEEN = "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"
MOVE = chess.Move.from_uci


@needs_stockfish
def test_the_engine_judges_a_hung_queen_a_blunder_and_its_best_move_sound():
    board = chess.Board(ROOK_TAKES_QUEEN)
    with EngineJudge(STOCKFISH, depth=6) as judge:
        wait = judge.check(board, MOVE("e1e2"), Limits())
        take = judge.check(board, MOVE("d1d5"), Limits(time=2.0))
        assert judge.name.endswith("at depth 6") and judge.engine_name in judge.name
    assert wait is not None and wait.loss > 500 and wait.best == MOVE("d1d5") and wait.depth == 6
    assert take is not None and take.loss == 0 and take.best == MOVE("d1d5")


@needs_stockfish
def test_a_moves_verdict_is_its_own_whichever_moves_are_judged_with_it():
    """At depth 12 a search's scores depend on what the engine's hash holds: a judge that searched several moves
    of a position one after the other on one hash gave e5d3 here 101, 127 or 217 cp, by the moves judged before it
    (and the engine's best move g6g5 a loss of 22 or 112). Each move judged on its own gets the check's verdict."""
    board = chess.Board("8/pp1kp1b1/3p2p1/4nb2/2Pn1N2/8/PP1B1PP1/2RNKB1r b - - 0 23")
    drawn, best, other = MOVE("e5d3"), MOVE("g6g5"), MOVE("f5d3")
    with EngineJudge(STOCKFISH, depth=12) as judge:
        alone = judge.check(board, drawn, Limits())
        together = judge.losses(board, {other, best, drawn})
        assert judge.losses(board, [drawn]) == {drawn: together[drawn]}
        assert judge.losses(board, [best, drawn]) == {best: 0, drawn: together[drawn]}
        with pytest.raises(EngineError, match="did not judge"):
            judge.losses(board, [MOVE("e1e2")])
    assert alone is not None and alone.best == best and together[drawn] == alone.loss
    assert together[best] == 0 and 0 < together[drawn] < BLUNDER_LOSS


@needs_stockfish
def test_his_rate_by_the_judge_is_measured_once_and_kept_beside_the_model(tmp_path):
    """Half his moves hang the queen: his rate is 0.5; the second ask reads the file (a judge whose engine is not
    started), a judge of another depth measures afresh."""
    game = PlayerGame(0, chess.WHITE, ROOK_TAKES_QUEEN, (MOVE("e1e2"),), "loss")
    board = chess.Board(ROOK_TAKES_QUEEN)
    with EngineJudge(STOCKFISH, depth=4) as judge:
        assert judged_rate(judge, [(board, MOVE("d1d5")), (board, MOVE("e1e2"))]) == 0.5
        assert judged_rate(judge, []) is None
        cache = tmp_path / "model.json.check-rates.json"
        assert cached_judged_rate(judge, [game], cache) == 1.0
    stored = json.loads(cache.read_text())
    assert stored["format"] == "iam-check-rates" and list(stored["rates"].values()) == [1.0]

    class Cached(EngineJudge):
        def check(self, *args, **kwargs):
            raise AssertionError("measured again")

    again = Cached(STOCKFISH, depth=4)
    again._engine_name = judge.engine_name  # as it was: the cache names the engine
    assert cached_judged_rate(again, [game], cache) == 1.0
    with EngineJudge(STOCKFISH, depth=3) as other:
        assert cached_judged_rate(other, [game], cache) == 1.0
    assert len(json.loads(cache.read_text())["rates"]) == 2


def test_his_positions_are_his_moves_drawn_with_the_seed():
    game = PlayerGame(0, chess.BLACK, chess.STARTING_FEN, tuple(map(MOVE, ["e2e4", "c7c5", "g1f3", "d7d6"])), "draw")
    positions = his_positions([game])
    assert sorted(move.uci() for _, move in positions) == ["c7c5", "d7d6"]
    assert all(board.turn == chess.BLACK and move in board.legal_moves for board, move in positions)
    assert len(his_positions([game] * 600)) == RATE_POSITIONS and his_positions([game], 1) == his_positions([game], 1)


def test_a_missing_engine_is_one_line_and_an_illegal_move_is_not_judged(tmp_path):
    judge = EngineJudge(str(tmp_path / "no-engine"))
    assert judge.check(chess.Board(), MOVE("e2e5"), Limits()) is None  # illegal: never reaches the engine
    with pytest.raises(EngineError, match="not found") as raised:
        judge.start()
    assert "\n" not in str(raised.value)
    assert judge.check(chess.Board(), MOVE("e2e4"), Limits()) is None and "not found" in judge.failure
    with pytest.raises(ValueError, match="positive whole number"):
        EngineJudge("stockfish", depth=0)
    assert BLUNDER_LOSS == 200


def test_his_rate_for_the_ceiling_is_measured_on_a_thousand_positions_and_a_smaller_sample_is_not_read(tmp_path):
    """Two blunders in 200 positions are too few to set a ceiling on: his rate is measured on 1,000 of his training
    positions (each judged once), and a file beside the model holding only his rate on 200 of them is not read."""
    game = PlayerGame(0, chess.WHITE, ROOK_TAKES_QUEEN, (MOVE("e1e2"),), "loss")
    judged = []

    class Counting(EngineJudge):
        def check(self, board, move, limits, stop=None):
            judged.append(move)
            return DeepCheck(move, 0 if len(judged) % 4 else 900, self.depth)  # every fourth a blunder

    judge = Counting("stockfish", depth=12)
    judge._engine_name = "Counting"
    cache = tmp_path / "model.json.check-rates.json"
    games = [game] * 1500
    assert cached_judged_rate(judge, games, cache) == 0.25 and len(judged) == RATE_POSITIONS == 1000
    key = next(iter(json.loads(cache.read_text())["rates"]))
    assert "| 1000 positions |" in key
    smaller = {key.replace("1000 positions", "200 positions"): 0.5}
    smaller = {"format": "iam-check-rates", "version": 1, "rates": smaller}
    cache.write_text(json.dumps(smaller))
    judged.clear()
    assert cached_judged_rate(judge, games, cache) == 0.25 and len(judged) == 1000
    assert cached_judged_rate(judge, games, cache) == 0.25 and len(judged) == 1000  # kept: read, not judged
