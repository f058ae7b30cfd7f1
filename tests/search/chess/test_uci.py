"""The UCI engine through python-chess's engine client, and its command handling."""

import asyncio
import dataclasses
import io
import re
import subprocess
import sys
import time

import chess
import chess.engine
import pytest

from iam.cli import main as iam_main
from search.chess.uci import (
    ENGINE_NAME,
    FALLBACK_SECONDS,
    MAX_GO_NUMBER,
    UNTIMED_SECONDS,
    EngineModel,
    GoClock,
    GoCommand,
    UciEngine,
    allotted_time,
    clock_problem,
    parse_go,
    time_budget,
)

COMMAND = [sys.executable, "-m", "iam", "uci"]
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1"


@pytest.fixture(scope="module")
def engine():
    with chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=30) as client:
        yield client


def test_identifies_itself(engine):
    assert engine.id["name"] == ENGINE_NAME and ENGINE_NAME.startswith("IAM toolkit ")
    assert engine.options["Threads"].max == 1
    assert "Hash" in engine.options


def test_finds_mate_in_one_and_reports_it(engine):
    board = chess.Board(MATE_IN_ONE)
    result = engine.play(board, chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
    assert result.move == chess.Move.from_uci("e1e8")
    assert result.info["score"].relative == chess.engine.Mate(1)
    assert result.info["pv"][0] == result.move


def test_depth_and_nodes_limits(engine):
    board = chess.Board()
    board.push_uci("e2e4")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["depth"] == 3
    assert info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(nodes=500))
    assert info["nodes"] <= 501


def test_history_reaches_the_engine(engine):
    # Black, a queen down, has shuffled knights with White: ...Ng8 now repeats the
    # position a third time, a draw. Only an engine that got the moves, not just the
    # final position, knows the draw is there and takes it.
    board = chess.Board("4k1n1/8/8/8/8/8/8/1N1QK3 w - - 0 1")
    for uci in ["b1c3", "g8f6", "c3b1", "f6g8", "b1c3", "g8f6", "c3b1"]:
        board.push_uci(uci)
    result = engine.play(board, chess.engine.Limit(depth=3), info=chess.engine.INFO_SCORE)
    assert result.move == chess.Move.from_uci("f6g8")
    assert result.info["score"].relative == chess.engine.Cp(0)
    # The same position without its history: no draw in sight, the lost queen counts.
    bare = engine.play(chess.Board(board.fen()), chess.engine.Limit(depth=3), info=chess.engine.INFO_SCORE)
    assert bare.info["score"].relative.score() < -500


def test_mate_scores_stay_right_when_the_table_is_kept_between_moves():
    out = io.StringIO()
    engine = UciEngine(output=out)
    fen = "7k/8/8/8/5K2/8/8/6Q1 w - - 0 1"  # White mates in three
    engine.handle(f"position fen {fen}")
    engine.handle("go depth 5")
    engine._thread.join()
    first = [line for line in out.getvalue().splitlines() if line.startswith("info depth 5")][-1]
    assert " score mate 3 " in first
    pv = first.split(" pv ")[1].split()
    engine.handle(f"position fen {fen} moves {pv[0]} {pv[1]}")
    engine.handle("go depth 3")
    engine._thread.join()
    second = [line for line in out.getvalue().splitlines() if line.startswith("info depth 3")][-1]
    assert " score mate 2 " in second


def test_infinite_search_stops_on_request(engine):
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8")
    with engine.analysis(board) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 2:
                break
        started = time.perf_counter()
        analysis.stop()
        best = analysis.wait()
        stopped_after = time.perf_counter() - started
    assert best.move in board.legal_moves
    assert stopped_after < 1.0  # "promptly": far below one second even on a busy machine


def test_movetime_and_clock_give_a_legal_move_in_time(engine):
    board = chess.Board("r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1")
    started = time.perf_counter()
    result = engine.play(board, chess.engine.Limit(time=0.3))
    elapsed = time.perf_counter() - started
    assert result.move in board.legal_moves
    assert elapsed < 0.3 + 0.5  # protocol sanity only; overruns are measured in benchmarks/
    result = engine.play(board, chess.engine.Limit(white_clock=2.0, black_clock=2.0, white_inc=0.1))
    assert result.move in board.legal_moves


def test_clock_play_uses_a_plausible_share_of_the_clock(engine):
    board = chess.Board("r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1")
    started = time.perf_counter()
    result = engine.play(board, chess.engine.Limit(white_clock=8.0, black_clock=8.0))
    elapsed = time.perf_counter() - started
    assert result.move in board.legal_moves
    # A fortieth of 8 s is 0.2 s: it thinks most of that, and returns long before 8 s.
    assert 0.1 < elapsed < 1.5


def _wait_for(engine, seconds):
    engine._thread.join(timeout=seconds)
    return not engine._thread.is_alive()


def test_go_without_the_movers_clock_is_noted_and_still_ends():
    sessions = []
    for position, go in (("startpos moves e2e4", "go wtime 1000"), ("startpos", "go movestogo 10")):
        out = io.StringIO()
        engine = UciEngine(output=out)
        engine.handle(f"position {position}")
        engine.handle(go)
        sessions.append((engine, out))
    for engine, out in sessions:
        assert _wait_for(engine, FALLBACK_SECONDS + 5), "the search waited for a stop"
        lines = out.getvalue().splitlines()
        assert any(line.startswith("info string go without") for line in lines)
        assert lines[-1].startswith("bestmove ")


def test_ponder_waits_for_ponderhit_then_keeps_to_the_clock():
    out = io.StringIO()
    engine = UciEngine(output=out)
    engine.handle("position startpos moves e2e4 e7e5")
    engine.handle("go ponder wtime 8000 btime 8000")
    time.sleep(0.4)  # longer than the 0.2 s the clock gives: pondering has no limit
    assert engine._thread.is_alive()
    assert not any(line.startswith("bestmove") for line in out.getvalue().splitlines())
    hit = time.perf_counter()
    engine.handle("ponderhit")
    assert _wait_for(engine, 5)
    after_hit = time.perf_counter() - hit
    lines = out.getvalue().splitlines()
    assert not any("unknown command" in line or "ignored" in line for line in lines)
    assert lines[-1].startswith("bestmove ")
    assert 0.1 < after_hit < 1.5  # the clock's 0.2 s from ponderhit on


def test_ponder_ends_on_stop_and_ponderhit_without_ponder_is_noted():
    lines, _ = _session("ponderhit", "position startpos", "go ponder wtime 8000 btime 8000", "stop")
    assert lines[0].startswith("info string ignored ponderhit")
    assert lines[-1].startswith("bestmove ")


async def _ponder_through_the_client(board, limit, seconds):
    _, client = await chess.engine.popen_uci(COMMAND)
    try:
        first = await asyncio.wait_for(client.play(board, limit, ponder=True, game="g"), seconds)
        assert first.ponder is not None  # the engine names the reply it expects
        board.push(first.move)
        board.push(first.ponder)
        started = time.perf_counter()
        # The client answers the pondered position with ponderhit, not a new go.
        second = await asyncio.wait_for(client.play(board, limit, ponder=True, game="g"), seconds)
        return second, time.perf_counter() - started
    finally:
        await client.quit()


def test_ponderhit_through_the_uci_client():
    board = chess.Board()
    board.push_uci("e2e4")
    limit = chess.engine.Limit(white_clock=4.0, black_clock=4.0)
    second, elapsed = asyncio.run(_ponder_through_the_client(board, limit, 30))
    assert second.move in board.legal_moves
    assert elapsed < 1.5


def test_game_over_position_gets_the_null_move(engine):
    board = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    result = engine.play(board, chess.engine.Limit(depth=2))
    assert not result.move  # "bestmove 0000", the protocol's null move


def _session(*lines):
    out = io.StringIO()
    engine = UciEngine(output=out)
    engine.run(lines)
    return out.getvalue().splitlines(), engine


def test_malformed_and_unknown_commands_are_noted_and_ignored():
    lines, engine = _session(
        "hello",
        "position fen not a fen",
        "position startpos moves e2e5",
        "setoption name Colour value blue",
        "setoption name Hash value 0",
        "isready",
    )
    notes = [line for line in lines if line.startswith("info string")]
    assert len(notes) == 5
    assert lines[-1] == "readyok"
    assert engine.board == chess.Board()  # the valid part of each bad position: the start


def test_position_with_moves_and_fen():
    _, engine = _session("position startpos moves e2e4 e7e5 g1f3")
    assert engine.board.move_stack[-1] == chess.Move.from_uci("g1f3")
    assert len(engine.board.move_stack) == 3
    _, engine = _session(f"position fen {MATE_IN_ONE} moves e1e2")
    assert engine.board.fen().startswith("6k1/5ppp/8/8/8/8/4RPPP/6K1 b")


def test_session_ends_each_go_with_bestmove():
    lines, _ = _session("position startpos", "go depth 2", "isready")
    assert any(line.startswith("info depth 2") for line in lines)
    assert any(line.startswith("bestmove ") for line in lines)


def test_go_parsing_and_time_budget():
    go = parse_go("wtime 60000 btime 1000 winc 500 binc 0 movestogo 20".split())
    assert go == GoCommand(clock=GoClock(wtime=60000, btime=1000, winc=500, movestogo=20))
    assert allotted_time(go, chess.WHITE) == pytest.approx(60 / 20 + 0.4)
    assert allotted_time(go, chess.BLACK) == pytest.approx(1 / 20)
    assert time_budget(go, chess.WHITE) == pytest.approx(60 / 20 + 0.4 - 0.030)  # safety margin
    assert time_budget(GoCommand(clock=GoClock(btime=10)), chess.BLACK) == 0.0  # never more than the clock
    assert allotted_time(parse_go(["movetime", "1000"]), chess.WHITE) == 1.0
    assert time_budget(parse_go(["movetime", "1000"]), chess.WHITE) < 1.0
    assert time_budget(parse_go(["infinite"]), chess.WHITE) is None
    assert allotted_time(parse_go([]), chess.WHITE) == UNTIMED_SECONDS  # a bare go ends on its own
    assert allotted_time(parse_go(["mate", "3"]), chess.WHITE) == UNTIMED_SECONDS
    assert allotted_time(parse_go(["depth", "3"]), chess.WHITE) is None
    # Pondering has no limit until ponderhit; its clocks are kept for then.
    ponder = parse_go("ponder wtime 8000 btime 8000".split())
    assert ponder == GoCommand(clock=GoClock(wtime=8000, btime=8000), ponder=True)
    assert time_budget(ponder, chess.WHITE) is None
    # Clock words without the mover's clock: malformed, noted, a fallback that ends.
    for words, turn in ((["wtime", "1000"], chess.BLACK), (["movestogo", "10"], chess.WHITE),
                        (["binc", "100"], chess.BLACK)):
        go = parse_go(words)
        assert clock_problem(go, turn) is not None
        assert allotted_time(go, turn) == FALLBACK_SECONDS
    assert clock_problem(parse_go(["wtime", "1000"]), chess.WHITE) is None
    assert clock_problem(parse_go(["depth", "3"]), chess.WHITE) is None
    # Malformed words are left out and noted, never the whole go (a GUI waits for bestmove).
    for bad, kept in ((["depth"], GoCommand()), (["depth", "0"], GoCommand(depth=1)),
                      (["nodes", "-5"], GoCommand(nodes=1)), (["movetime", "-1"], GoCommand(movetime=0)),
                      (["wtime", "-5"], GoCommand(clock=GoClock(wtime=0))), (["movestogo", "0"], GoCommand()),
                      (["mate", "0"], GoCommand(mate=1)), (["wibble", "movetime", "100"], GoCommand(movetime=100))):
        go = parse_go(bad)
        assert len(go.problems) == 1 and dataclasses.replace(go, problems=()) == kept
    assert parse_go(["searchmoves", "e2e4", "d2d4", "depth", "2"]).searchmoves == (
        chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4"))
    assert parse_go(["movetime", "9" * 400]).movetime == MAX_GO_NUMBER


def test_guided_engine_announces_itself_and_reports_the_predictor(small_model):
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(small_model, name="a model of Botvinnik"))
    engine.run(["uci", "position startpos moves e2e4", "go depth 4"])
    lines = out.getvalue().splitlines()
    assert "info string guided search with a model of Botvinnik at the opponent's nodes" in lines
    predictor_line = next(line for line in lines if line.startswith("info string predictor"))
    assert int(predictor_line.split()[3]) > 0  # it was asked about some positions
    best = chess.Move.from_uci(lines[-1].split()[1])
    board = chess.Board()
    board.push_uci("e2e4")
    assert lines[-1].startswith("bestmove") and best in board.legal_moves


def test_the_engine_searches_its_own_moves_plainly_even_for_the_modelled_colour(small_model):
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(small_model, modelled_color=chess.WHITE))
    engine.run(["uci", "position startpos moves e2e4 e7e5", "go depth 4"])
    lines = out.getvalue().splitlines()
    assert "info string the engine moves for the modelled player here: plain search" in lines
    assert not any(line.startswith("info string predictor") for line in lines)
    plain = io.StringIO()
    UciEngine(output=plain).run(["uci", "position startpos moves e2e4 e7e5", "go depth 4"])
    assert lines[-1] == plain.getvalue().splitlines()[-1]  # the same bestmove as without a model


def test_guided_engine_through_the_uci_client(small_model, tmp_path):
    path = tmp_path / "botvinnik.json.gz"
    small_model.save(path)
    with chess.engine.SimpleEngine.popen_uci([*COMMAND, "--model", str(path)], timeout=60) as client:
        board = chess.Board()
        for uci in ("d2d4", "g8f6", "c2c4"):
            board.push_uci(uci)
        result = client.play(board, chess.engine.Limit(time=0.3))
        assert result.move in board.legal_moves
        result = client.play(board, chess.engine.Limit(nodes=800))
        assert result.move in board.legal_moves


# An engine whose opponent model breaks the predictor contract: it believes in a move
# that is not legal, so the guided search raises once it first asks (depth 3).
FAULTY_ENGINE = [
    sys.executable,
    "-c",
    "import sys, chess\n"
    "from search.chess.uci import EngineModel, UciEngine\n"
    "class Illegal:\n"
    "    def predict_proba(self, board):\n"
    "        return {chess.Move.from_uci('a1a8'): 0.5}\n"
    "UciEngine(model=EngineModel(Illegal())).run(sys.stdin)\n",
]


async def _play_twice(command, board, limits, seconds):
    """Two ``play`` calls through python-chess, each given ``seconds`` to answer."""
    _, client = await chess.engine.popen_uci(command)
    try:
        results = []
        for limit in limits:
            results.append(
                await asyncio.wait_for(client.play(board, limit, info=chess.engine.INFO_ALL), seconds)
            )
        return results
    finally:
        await client.quit()


def test_search_error_still_ends_with_the_deepest_completed_move():
    board = chess.Board()
    board.push_uci("e2e4")
    first, second = asyncio.run(
        _play_twice(FAULTY_ENGINE, board, [chess.engine.Limit(depth=4), chess.engine.Limit(depth=1)], 30)
    )
    assert first.info["string"].startswith("search error: ValueError")
    assert first.info["depth"] == 2  # depths 1 and 2 never ask the model (it is first asked at depth 3)
    assert first.move == first.info["pv"][0]
    assert second.move in board.legal_moves  # and the engine still answers afterwards


def test_search_error_before_any_depth_falls_back_to_a_legal_move():
    out = io.StringIO()
    engine = UciEngine(output=out)

    def broken(*args, **kwargs):
        raise ZeroDivisionError("search broke")

    engine.fast.iterate = broken  # the plain search's core
    engine.handle("position startpos moves e2e4")
    engine.handle("go depth 3")
    engine._thread.join(timeout=10)
    lines = out.getvalue().splitlines()
    assert "info string search error: ZeroDivisionError: search broke" in lines
    board = chess.Board()
    board.push_uci("e2e4")
    assert lines[-1].startswith("bestmove ")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves


class _Uniform:
    """A move predictor that believes every legal move equally."""

    def predict_proba(self, board):
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


def _mode(name):
    """The keyword arguments of a :class:`UciEngine` in one of its four modes."""
    from search.chess.imitation import Imitation
    from search.opponent.exploitation import Exploitation

    return {
        "plain": {},
        "guided": {"model": EngineModel(_Uniform())},
        "exploit": {"model": EngineModel(_Uniform()), "exploitation": Exploitation(weight=0.5)},
        "imitate": {"model": EngineModel(_Uniform()), "imitation": Imitation()},
    }[name]


@pytest.mark.parametrize("mode", ["plain", "guided", "exploit", "imitate"])
def test_out_of_range_go_limits_are_clamped_and_answered_without_stop(mode):
    for go in (
        "go wtime -5 btime -5", "go movetime -1", "go depth 0", "go nodes 0", "go mate 2", "go depth -3 movetime x",
    ):
        out = io.StringIO()
        engine = UciEngine(output=out, **_mode(mode))
        engine.handle("position startpos moves e2e4")
        engine.handle(go)
        assert _wait_for(engine, 20), f"{mode}: {go!r} waited for a stop"
        lines = out.getvalue().splitlines()
        assert lines[-1].startswith("bestmove "), (mode, go, lines)
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
        engine._stop_search()


def test_a_position_extending_the_previous_one_plays_only_the_new_moves():
    engine = UciEngine(output=io.StringIO())
    engine.handle("position startpos moves e2e4 e7e5")
    board = engine.board
    engine.handle("position startpos moves e2e4 e7e5 g1f3 b8c6")
    assert engine.board is board and [m.uci() for m in board.move_stack] == ["e2e4", "e7e5", "g1f3", "b8c6"]
    engine.handle("position startpos moves d2d4")  # not an extension: set up afresh
    assert engine.board is not board and [m.uci() for m in engine.board.move_stack] == ["d2d4"]
    engine.handle("position startpos moves d2d4 e7e5 e1e3")  # an illegal move ends the list
    assert [m.uci() for m in engine.board.move_stack] == ["d2d4", "e7e5"]
    engine.handle("position startpos moves d2d4 e7e5 e2e4")  # after an invalid one: set up afresh
    assert [m.uci() for m in engine.board.move_stack] == ["d2d4", "e7e5", "e2e4"]
    engine.handle(f"position fen {MATE_IN_ONE} moves e1e2")  # another set-up, the same moves' prefix
    assert engine.board.fen().startswith("6k1/5ppp/8/8/8/8/4RPPP/6K1 b")


def test_a_very_long_game_is_searched_on_its_recent_history():
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 600  # 2,400 plies of knight moves
    lines, engine = _session("position startpos moves " + " ".join(shuffle), "go depth 2")
    assert len(engine.board.move_stack) == 2400
    assert lines[-1].startswith("bestmove ") and chess.Move.from_uci(lines[-1].split()[1]) in engine.board.legal_moves


class _Slow(_Uniform):
    """A predictor that takes ``seconds`` to answer."""

    def __init__(self, seconds):
        self.seconds = seconds

    def predict_proba(self, board):
        time.sleep(self.seconds)
        return super().predict_proba(board)


@pytest.mark.parametrize("mode", ["guided", "imitate"])
def test_a_prediction_that_cannot_fit_the_clock_is_left_out(mode):
    kwargs = _mode(mode)
    kwargs["model"] = EngineModel(_Slow(5.0))
    out = io.StringIO()
    engine = UciEngine(output=out, **kwargs)
    engine.handle("position startpos moves e2e4")
    engine.handle("go movetime 100")
    assert _wait_for(engine, 3.0), "the engine waited for a prediction longer than its clock"
    lines = out.getvalue().splitlines()
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    if mode == "imitate":
        assert "info string search move: no time for the model's prediction" in lines
        assert engine.choices == {"model": 0, "search": 1}
    else:
        assert any(line.startswith("info string predictor") and "left out for time" in line for line in lines)
    # The abandoned call still runs: the next move does not wait for it or start another.
    engine.handle("go movetime 100")
    assert _wait_for(engine, 3.0)


def test_a_prediction_that_fits_the_clock_is_used():
    out = io.StringIO()
    engine = UciEngine(output=out, **_mode("imitate"))
    engine.handle("position startpos moves e2e4")
    engine.handle("go movetime 2000")
    assert _wait_for(engine, 10.0)
    assert engine.choices == {"model": 1, "search": 0}
    assert any(line.startswith("info string model move") for line in out.getvalue().splitlines())


@pytest.mark.parametrize("mode, suffix", [("plain", ""), ("guided", " (guided by a model of X)"),
                                          ("exploit", " (exploiting a model of X)"),
                                          ("imitate", " (playing as a model of X)")])
def test_each_mode_has_its_name_and_threads_other_than_one_are_refused(mode, suffix):
    lines, _ = _session_with(_mode(mode), "uci", "setoption name Threads value 1", "setoption name Threads value 4",
                             "isready")
    assert f"id name {ENGINE_NAME}{suffix}" in lines
    assert "option name Threads type spin default 1 min 1 max 1" in lines
    notes = [line for line in lines if line.startswith("info string ignored setoption")]
    assert len(notes) == 1 and "Threads '4' refused" in notes[0]


def _session_with(kwargs, *commands):
    out = io.StringIO()
    kwargs = {**kwargs, "model": dataclasses.replace(kwargs.get("model", EngineModel()), name="a model of X")}
    engine = UciEngine(output=out, **kwargs)
    engine.run(commands)
    return out.getvalue().splitlines(), engine


def test_the_first_go_after_a_burst_of_commands_searches_its_time():
    with subprocess.Popen([*COMMAND], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as process:
        process.stdin.write("uci\nisready\nucinewgame\nposition startpos\ngo movetime 600\n")
        process.stdin.flush()
        for line in process.stdout:
            if line.startswith("readyok"):
                ready = time.perf_counter()
            if line.startswith("bestmove"):
                answered = time.perf_counter() - ready
                break
        process.stdin.write("quit\n")
        process.stdin.flush()
    assert answered > 0.3  # most of its 600 ms, not an answer after a shallow depth


def test_multipv_reports_the_best_lines_best_first_with_the_plain_move_first():
    from search.chess.engine import ChessSearch
    from search.result import Limits

    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    lines, engine = _session("uci", "setoption name MultiPV value 3", f"position fen {fen}", "go depth 3")
    assert "option name MultiPV type spin default 1 min 1 max 256" in lines
    deepest = [line.split() for line in lines if line.startswith("info depth 3 multipv")]
    assert [words[4] for words in deepest] == ["1", "2", "3"]
    moves = [words[words.index("pv") + 1] for words in deepest]
    values = [int(words[words.index("cp") + 1]) for words in deepest]
    assert len(set(moves)) == 3 and values == sorted(values, reverse=True)
    board = chess.Board(fen)
    exact = ChessSearch(use_table=False).score_moves(board, 3)
    assert [exact[chess.Move.from_uci(move)] for move in moves] == values  # each line's value is its move's
    assert sorted(exact.values(), reverse=True)[:3] == values
    assert lines[-1].split()[1] == moves[0] == ChessSearch().search(board, Limits(depth=3)).move.uci()
    refused, engine = _session("setoption name MultiPV value 0", "setoption name MultiPV value x")
    assert sum(line.startswith("info string ignored setoption: MultiPV") for line in refused) == 2
    assert engine.multipv == 1


def test_the_guided_engine_runs_the_fast_core_and_a_silent_model_changes_nothing():
    from search.chess.engine import ChessSearch
    from search.chess.uci.protocol import _info
    from search.opponent.predictor import NullPredictor
    from search.result import Limits

    commands = ("uci", "position startpos moves e2e4 c7c5 g1f3", "go depth 4")
    board = chess.Board()
    for move in ("e2e4", "c7c5", "g1f3"):
        board.push_uci(move)
    exact = [_info(result) for result in ChessSearch().iterate(board, Limits(depth=4))]  # the plain search's
    guided, _ = _session_with({"model": EngineModel(NullPredictor())}, *commands)
    depths = [exact, [line for line in guided if line.startswith("info depth")]]
    strip = [[re.sub(r" (nps|time) \d+", "", line) for line in lines] for lines in depths]
    assert strip[0] == strip[1] and len(strip[0]) == 4  # the same values, lines and node counts
    asked = next(line for line in guided if line.startswith("info string predictor"))
    assert int(asked.split()[3]) > 0  # asked at his nodes, and silent there


def test_a_book_move_is_played_at_once_and_own_book_turns_it_off(tmp_path, capsys):
    from iam.prepare.book import write_book

    board = chess.Board()
    board.push_uci("e2e4")
    book = tmp_path / "book.bin"
    write_book([(board, chess.Move.from_uci("c7c5"), 0.9), (board, chess.Move.from_uci("e7e5"), 0.1)], book)
    started = time.perf_counter()
    lines, _ = _session_with({"book": str(book)}, "uci", "position startpos moves e2e4", "go movetime 2000")
    assert lines[-1] == "bestmove c7c5" and "info string book move c7c5" in lines
    assert time.perf_counter() - started < 1.0  # no search
    assert "option name OwnBook type check default true" in lines
    lines, _ = _session_with({"book": str(book)}, "position startpos moves e2e4 c7c5", "go depth 2")
    assert not any("book move" in line for line in lines)  # out of the book: a search
    lines, _ = _session_with({"book": str(book)}, "setoption name OwnBook value false", "position startpos moves e2e4",
                             "go depth 2")
    assert not any("book move" in line for line in lines)
    cases = ((tmp_path / "missing.bin", "cannot read the book"), (tmp_path / "short.bin", "not a polyglot"))
    for bad, message in cases:
        if bad.name == "short.bin":
            bad.write_bytes(b"12345")
        assert iam_main(["uci", "--book", str(bad)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


class _Stubborn:
    """A predictor sure of one odd move everywhere: the legal move last in UCI order."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = sorted(board.legal_moves, key=lambda move: move.uci())
        return {moves[-1]: 0.95, **{move: 0.05 / (len(moves) - 1) for move in moves[:-1]}}


def _bestmove_and_ponder(lines: list[str]) -> tuple[str, str | None]:
    words = lines[-1].split()
    return words[1], (words[3] if len(words) == 4 and words[2] == "ponder" else None)


def test_the_ponder_move_is_the_models_most_believed_reply_not_the_principal_variations():
    position = "position startpos moves e2e4 e7e5 g1f3"
    lines, _ = _session_with({"model": EngineModel(_Stubborn())}, position, "go depth 4")
    best, ponder = _bestmove_and_ponder(lines)
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3", best):
        board.push_uci(move)
    assert ponder == max(move.uci() for move in board.legal_moves)  # what the model believes he plays
    plain, _ = _session(position, "go depth 4")
    plain_best, plain_ponder = _bestmove_and_ponder(plain)
    assert plain_ponder is not None and (plain_best, plain_ponder) != (best, ponder)  # the plain engine expects another


def test_without_a_belief_for_the_reply_the_ponder_move_is_the_principal_variations():
    # The engine moves for the modelled colour: a plain search, so no belief exists and the line's reply is named.
    position = "position startpos moves e2e4 e7e5"
    lines, _ = _session_with({"model": EngineModel(_Stubborn(), modelled_color=chess.WHITE)}, position, "go depth 4")
    plain, _ = _session(position, "go depth 4")
    assert _bestmove_and_ponder(lines) == _bestmove_and_ponder(plain)
    assert _bestmove_and_ponder(plain)[1] is not None


def test_the_piece_values_option_sets_the_compiled_search_material():
    # The rook takes the knight on a7 or the pawn on h4, both loose: which one is worth more is the material's say.
    fen = "6k1/n7/8/8/R6p/8/8/2K5 w - - 0 1"
    standard, _ = _session("uci", f"position fen {fen}", "go depth 2")
    assert "option name PieceValues type string default <tables>" in standard
    assert standard[-1].split()[1] == "a4a7"
    lines, engine = _session("setoption name PieceValues value 900,100,100,500,1000", f"position fen {fen}",
                             "go depth 2")
    assert engine.piece_values == (900, 100, 100, 500, 1000) and engine.fast.values.middlegame[0] == 900
    assert lines[-1].split()[1] != "a4a7"  # the pawn is worth more: the rook goes after it (a check on g4 first)
    refused, engine = _session("setoption name PieceValues value 1 2 3", "setoption name PieceValues value a b c d e",
                               "setoption name PieceValues value 100 300 300 500 900",
                               "setoption name PieceValues value <tables>")
    assert sum(line.startswith("info string ignored setoption: PieceValues") for line in refused) == 2
    assert engine.piece_values is None and engine.fast.values is None
