"""Engine evidence: complete, correctly signed, reproducible scores; a cache that survives
concurrent writers and a dying engine; one-line errors for every bad input.

Tests that need an engine use the real stockfish (Debian's package installs it as
/usr/games/stockfish) and skip without it; the refusals run everywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import chess
import pytest

from iam.engines.analysis import MATE_SCORE, MAX_CENTIPAWNS, SCHEMA_VERSION, EngineAnalyser, EngineError, MoveScores
from iam.engines.cache import AnalysisCache
from iam.errors import IAMError

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"  # Nxh4 wins the queen
BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
MIDDLEGAMES = [  # ply 30 of the first four long games of the bundled Botvinnik file
    "r1b1r1k1/p2nBppp/1p2p3/3p4/q2P4/1NnBP3/P1Q2PPP/R3K2R w KQ - 2 16",
    "r1b2r2/pp1nqpbk/3p2pp/2pPp2n/2P1P3/P1N1BNPP/1P3P2/2RQRBK1 w - - 3 16",
    "r4rk1/p1qn1ppp/1ppbp3/6B1/2PP4/5NP1/PP2QP1P/3R1RK1 w - - 0 16",
    "r3kb1r/1q3pp1/p3p3/1ppPn1Bp/6n1/2N2N2/PP3PPP/R2Q1RK1 w kq - 0 16",
]


@pytest.fixture()
def stockfish() -> str:
    if STOCKFISH is None:
        pytest.skip("no stockfish installed (Debian: apt-get install stockfish)")
    return STOCKFISH


@pytest.fixture()
def engine_link(stockfish, tmp_path) -> Path:
    """A path to stockfish that a test can delete, to show the cache works without an engine."""
    link = tmp_path / "bin" / "stockfish"
    link.parent.mkdir()
    link.symlink_to(stockfish)
    return link


def boards(fens: list[str]) -> list[chess.Board]:
    return [chess.Board(fen) for fen in fens]


def test_every_legal_move_is_scored_and_the_hanging_queen_is_taken(stockfish):
    board = chess.Board(HANGING_QUEEN)
    with EngineAnalyser(stockfish, depth=4) as analyser:
        result = analyser.analyse(board)
        assert analyser.engine_id.startswith("Stockfish")
    assert isinstance(result, MoveScores) and result.depth == 4
    assert set(result.scores) == set(board.legal_moves)
    assert all(isinstance(score, int) for score in result.scores.values())
    best = max(result.scores, key=result.scores.get)
    assert board.san(best) == "Nxh4" and next(iter(result.scores)) == best  # best first
    assert result.scores[best] > 500 and sorted(result.scores.values())[-2] < result.scores[best] - 500


def test_mate_scores_are_signed_from_the_side_to_move(stockfish):
    board = chess.Board(BACK_RANK)
    defender = chess.Board(BACK_RANK.replace(" w ", " b "))
    rook_ending = chess.Board("k7/8/1K6/8/8/8/8/7R w - - 0 1")
    with EngineAnalyser(stockfish, depth=5) as analyser:
        attack, defence, ending = analyser.analyse_many([board, defender, rook_ending])
    assert attack.scores[board.parse_san("Ra8#")] == MATE_SCORE - 1
    assert defence.scores[defender.parse_san("Kh8")] == -(MATE_SCORE - 1)  # walks into Ra8#
    assert abs(defence.scores[defender.parse_san("h6")]) <= MAX_CENTIPAWNS  # luft: no mate
    assert ending.scores[rook_ending.parse_san("Rh8#")] == MATE_SCORE - 1
    assert ending.scores[rook_ending.parse_san("Rd1")] == MATE_SCORE - 2  # ...Kb8 Rd8#


def test_positions_without_moves_need_no_engine(tmp_path):
    mated = chess.Board("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1")
    stalemated = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    with EngineAnalyser(tmp_path / "no-engine", depth=3) as analyser:
        assert analyser.analyse_many([mated, stalemated]) == [MoveScores({}, 3), MoveScores({}, 3)]


def test_scores_do_not_depend_on_what_was_analysed_before(stockfish):
    positions = boards(MIDDLEGAMES[:3])
    with EngineAnalyser(stockfish, depth=3) as first:
        forward = first.analyse_many(positions)
    with EngineAnalyser(stockfish, depth=3) as second:
        backward = second.analyse_many(positions[::-1])[::-1]
    assert forward == backward  # the first analysed fresh equals the last after two others


def test_scores_do_not_depend_on_the_game_the_position_came_from(stockfish):
    played = chess.Board()
    for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]:  # the start position, twice repeated
        played.push_san(san)
    late = chess.Board(MIDDLEGAMES[0].replace(" 2 16", " 90 70"))  # fifty-move clock near its end
    with EngineAnalyser(stockfish, depth=4) as analyser:
        from_games = analyser.analyse_many([played, late])
    with EngineAnalyser(stockfish, depth=4) as analyser:
        alone = analyser.analyse_many(boards([chess.STARTING_FEN, MIDDLEGAMES[0]]))
    assert from_games == alone


def test_moves_left_out_by_the_engine_are_scored_by_a_restricted_search(stockfish, tmp_path):
    capped = _proxy_capping_multipv(stockfish, tmp_path, cap=5)
    board = chess.Board(MIDDLEGAMES[0])
    with EngineAnalyser(capped, depth=3) as analyser:
        result = analyser.analyse(board)
    with EngineAnalyser(capped, depth=3) as analyser:
        again = analyser.analyse_many([chess.Board(MIDDLEGAMES[1]), board])[1]
    assert set(result.scores) == set(board.legal_moves) and board.legal_moves.count() > 3 * 5
    assert again == result


def test_cache_hits_need_no_engine(engine_link, tmp_path):
    cache = tmp_path / "cache.sqlite"
    positions = boards(MIDDLEGAMES[:2])
    ticks = []
    with EngineAnalyser(engine_link, depth=2, cache=cache) as analyser:
        warm = analyser.analyse_many(positions, progress=ticks.append)
    assert ticks == [1, 1]
    engine_link.unlink()
    with EngineAnalyser(engine_link, depth=2, cache=cache) as offline:
        assert offline.engine_id.startswith("Stockfish")
        again = offline.analyse_many(positions + positions[:1], progress=ticks.append)
        assert again == warm + warm[:1]
        assert [list(result.scores) for result in again[:2]] == [list(result.scores) for result in warm]  # best first
        assert ticks[-1] == 3  # all cache hits reported at once
        with pytest.raises(EngineError, match="not found"):
            offline.analyse(chess.Board(MIDDLEGAMES[2]))
        with pytest.raises(EngineError, match="not found"):
            EngineAnalyser(engine_link, depth=3, cache=cache).analyse(positions[0])  # other depth, other key


def test_a_partial_analysis_holds_the_best_lines_and_is_cached_apart(engine_link, tmp_path):
    cache = tmp_path / "cache.sqlite"
    two_moves = chess.Board("7k/8/8/8/8/8/8/K6R b - - 0 1")  # in check: Kg8 or Kg7
    positions = [chess.Board(HANGING_QUEEN), chess.Board(MIDDLEGAMES[0]), two_moves]
    with EngineAnalyser(engine_link, depth=4, cache=cache, lines=3) as analyser:
        partial = analyser.analyse_many(positions)
        assert analyser.fresh == 3
    with EngineAnalyser(engine_link, depth=4, cache=cache) as analyser:
        complete = analyser.analyse_many(positions)
        assert analyser.fresh == 3  # the partial entries do not serve a complete analysis
        name = analyser.engine_id
    for board, few, every in zip(positions, partial, complete):
        assert few.lines == 3 and every.lines is None
        assert len(few.scores) == min(3, board.legal_moves.count()) and set(few.scores) <= set(board.legal_moves)
        assert list(few.scores.values()) == sorted(few.scores.values(), reverse=True)
        assert set(every.scores) == set(board.legal_moves)
    assert next(iter(partial[0].scores)) == next(iter(complete[0].scores)) == chess.Move.from_uci("f3h4")
    with sqlite3.connect(cache) as connection:
        sources = {row[0] for row in connection.execute("SELECT engine FROM analyses")}
    assert sources == {name, f"{name} multipv 3"}
    engine_link.unlink()
    with EngineAnalyser(engine_link, depth=4, cache=cache, lines=3) as offline:
        assert offline.analyse_many(positions) == partial
        assert [list(r.scores) for r in offline.analyse_many(positions)] == [list(r.scores) for r in partial]
    with EngineAnalyser(engine_link, depth=4, cache=cache) as offline:
        assert offline.analyse_many(positions) == complete
    with pytest.raises(EngineError, match="not found"):
        EngineAnalyser(engine_link, depth=4, cache=cache, lines=2).analyse(positions[1])  # other width, other key


def test_a_partial_analysis_with_multipv_capped_below_its_width_takes_the_best_of_the_rest(stockfish, tmp_path):
    capped = _proxy_capping_multipv(stockfish, tmp_path, cap=2)
    board = chess.Board(MIDDLEGAMES[0])
    with EngineAnalyser(capped, depth=3, lines=5) as analyser:
        scores = analyser.analyse(board).scores
    assert len(scores) == 5 and set(scores) <= set(board.legal_moves)
    assert list(scores.values()) == sorted(scores.values(), reverse=True)


def test_two_processes_write_one_cache(engine_link, tmp_path):
    cache = tmp_path / "shared.sqlite"
    all_positions = [chess.Board()]
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5"]:
        board = all_positions[-1].copy()
        board.push_san(san)
        all_positions.append(board)
    fens = [board.fen() for board in all_positions]
    halves = [fens[:9], fens[4:]]  # five positions in common, four of each alone
    script = textwrap.dedent(
        """
        import sys, chess
        from iam.engines.analysis import EngineAnalyser
        with EngineAnalyser(sys.argv[1], depth=2, cache=sys.argv[2], timeout=60) as analyser:
            analyser.analyse_many(chess.Board(fen) for fen in sys.argv[3:])
        """
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(engine_link), str(cache), *half], stderr=subprocess.PIPE)
        for half in halves
    ]
    for worker in workers:
        assert worker.wait(timeout=60) == 0, worker.stderr.read().decode()
    with sqlite3.connect(cache) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("SELECT count(*) FROM analyses").fetchone()[0] == len(fens)
    engine_link.unlink()
    with EngineAnalyser(engine_link, depth=2, cache=cache) as offline:
        results = offline.analyse_many(all_positions)
    assert all(set(result.scores) == set(board.legal_moves) for result, board in zip(results, all_positions))


def test_an_engine_killed_mid_run_keeps_what_was_finished(stockfish, tmp_path):
    pid_file = tmp_path / "engine.pid"
    wrapper = _executable(tmp_path / "engine.sh", f'#!/bin/sh\necho $$ > "{pid_file}"\nexec "{stockfish}"\n')
    cache = tmp_path / "cache.sqlite"
    positions = boards(MIDDLEGAMES)

    def kill_engine(count: int) -> None:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)

    with EngineAnalyser(wrapper, depth=2, cache=cache) as analyser:
        expected = "failed during analysis .*: 1 of 4 positions finished and kept in the cache, 3 not analysed"
        with pytest.raises(EngineError, match=expected) as error:
            analyser.analyse_many(positions, progress=kill_engine)
    assert "\n" not in str(error.value)
    wrapper.unlink()
    with EngineAnalyser(wrapper, depth=2, cache=cache) as offline:
        assert set(offline.analyse(positions[0]).scores) == set(positions[0].legal_moves)
        with pytest.raises(EngineError, match="not found"):
            offline.analyse(positions[1])


def test_an_engine_whose_process_has_ended_before_the_next_position_is_one_line(stockfish, tmp_path):
    """The engine is killed and python-chess has closed its event loop before the next analysis is asked for."""
    pid_file = tmp_path / "engine.pid"
    wrapper = _executable(tmp_path / "engine.sh", f'#!/bin/sh\necho $$ > "{pid_file}"\nexec "{stockfish}"\n')
    positions = boards(MIDDLEGAMES)

    with EngineAnalyser(wrapper, depth=2, cache=tmp_path / "cache.sqlite") as analyser:

        def kill_and_wait(count: int) -> None:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
            loop = analyser._engines[0].protocol.loop
            for _ in range(500):  # up to 5 s for the background loop to notice and close
                if loop.is_closed():
                    return
                time.sleep(0.01)
            pytest.fail("the engine's event loop did not close after its process was killed")

        expected = "failed during analysis \\(.+\\): 1 of 4 positions finished and kept in the cache, 3 not analysed"
        with pytest.raises(EngineError, match=expected):
            analyser.analyse_many(positions, progress=kill_and_wait)


def test_an_analysis_asked_of_a_closed_event_loop_is_the_engine_ending():
    """The engine may die between two calls into it: its event loop is closed.

    That is the engine ending, not a crash.
    """
    import asyncio
    from types import SimpleNamespace

    from iam.engines.analysis import _analyse_until

    loop = asyncio.new_event_loop()
    loop.close()
    engine = SimpleNamespace(protocol=SimpleNamespace(loop=loop))
    with pytest.raises(chess.engine.EngineTerminatedError, match="process has ended"):
        _analyse_until(engine, time.monotonic() + 1, chess.Board(), chess.engine.Limit(depth=1))

    closed: list[str] = []

    class Dead:
        def quit(self):
            closed.append("quit")
            raise RuntimeError("Event loop is closed")

        def close(self):
            closed.append("close")
            raise RuntimeError("Event loop is closed")

    analyser = EngineAnalyser.__new__(EngineAnalyser)
    analyser._engines = [Dead()]
    analyser._stop_engine()
    assert closed == ["quit", "close"] and analyser._engines == [None]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", None),  # an empty file becomes a new cache
        (os.urandom(4096), "is unusable: file is not a database"),
        ("foreign", "a SQLite database of another kind"),
        ("newer", f"has schema version {SCHEMA_VERSION + 1}, this version reads {SCHEMA_VERSION}"),
    ],
)
def test_cache_files_that_are_not_ours_are_refused_in_one_line(tmp_path, content, message):
    cache = tmp_path / "cache.sqlite"
    if content == "foreign":
        with sqlite3.connect(cache) as connection:
            connection.execute("CREATE TABLE games (white TEXT, black TEXT)")
    elif content == "newer":
        EngineAnalyser(tmp_path / "no-engine", cache=cache).close()
        with sqlite3.connect(cache) as connection:
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    else:
        cache.write_bytes(content)
    if message is None:
        EngineAnalyser(tmp_path / "no-engine", cache=cache).close()
        return
    with pytest.raises(EngineError, match=message) as error:
        EngineAnalyser(tmp_path / "no-engine", cache=cache)
    assert isinstance(error.value, IAMError) and "\n" not in str(error.value) and str(cache) in str(error.value)


def test_a_damaged_entry_is_refused_and_a_sound_one_served_without_engine(tmp_path):
    cache, engine = tmp_path / "cache.sqlite", str(tmp_path / "gone")
    board = chess.Board()
    EngineAnalyser(engine, cache=cache).close()
    stored = {move.uci(): index for index, move in enumerate(board.legal_moves)}
    sound = json.dumps(stored)
    with sqlite3.connect(cache) as connection:
        connection.execute("INSERT INTO engines VALUES (?, 1, 1, 'Some Engine 1.0')", (engine,))
        connection.execute("INSERT INTO analyses VALUES (?, 'Some Engine 1.0', 8, ?)", (board.epd(), sound))
        connection.execute("INSERT INTO analyses VALUES (?, 'Some Engine 1.0', 9, '{\"e2e4\": 1}')", (board.epd(),))
    with EngineAnalyser(engine, depth=8, cache=cache) as analyser:
        assert analyser.analyse(board).scores[chess.Move.from_uci("h2h4")] == stored["h2h4"]
    with pytest.raises(EngineError, match="damaged: the entry for .* does not match its legal moves"):
        EngineAnalyser(engine, depth=9, cache=cache).analyse(board)


def test_partial_and_complete_entries_are_told_apart_and_illegal_ones_refused(tmp_path):
    cache = AnalysisCache(tmp_path / "cache.sqlite", label="engine cache", error=EngineError)
    board = chess.Board()
    best = {chess.Move.from_uci(uci): score for uci, score in (("e2e4", 30), ("d2d4", 25), ("g1f3", 20))}
    cache.put(board.epd(), "Some Engine multipv 3", 8, best)
    assert cache.get(board.epd(), "Some Engine multipv 3", 8, board, lines=3) == best
    with pytest.raises(EngineError, match="does not match its legal moves"):
        cache.get(board.epd(), "Some Engine multipv 3", 8, board)  # a complete analysis asked: refused
    with pytest.raises(EngineError, match="does not match its legal moves"):
        cache.get(board.epd(), "Some Engine multipv 3", 8, board, lines=4)  # too few moves
    cache.put(board.epd(), "Some Engine multipv 2", 8, {chess.Move.from_uci("e2e5"): 1, chess.Move.from_uci("e2e4"): 0})
    with pytest.raises(EngineError, match="does not match its legal moves"):
        cache.get(board.epd(), "Some Engine multipv 2", 8, board, lines=2)  # e2e5 is not a legal move
    cache.put(board.epd(), "Some Engine", 8, {move: 0 for move in board.legal_moves})
    assert len(cache.get(board.epd(), "Some Engine", 8, board, lines=20) or {}) == 20  # 20 legal moves: complete
    with pytest.raises(EngineError, match="does not match its legal moves"):
        cache.get(board.epd(), "Some Engine", 8, board, lines=3)
    cache.close()


def test_bad_engine_paths_fail_fast_in_one_line(tmp_path):
    plain_file = tmp_path / "notes.txt"
    plain_file.write_text("not an engine")
    cases = [
        (tmp_path / "missing", "not found"),
        (plain_file, "is not executable"),
        (tmp_path, "is a folder"),
        ("/bin/true", "exited during the UCI handshake"),
        ("/bin/cat", "did not answer the UCI handshake within 1 s"),  # echoes, never says uciok
    ]
    for path, message in cases:
        started = time.monotonic()
        with EngineAnalyser(path, depth=1, timeout=1.0) as analyser:
            with pytest.raises(EngineError, match=message) as error:
                analyser.analyse(chess.Board())
        assert time.monotonic() - started < 5.0
        assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_invalid_arguments_are_refused():
    with pytest.raises(ValueError, match="depth"):
        EngineAnalyser("stockfish", depth=0)
    for lines in (0, -1, 2.5, "3"):
        with pytest.raises(ValueError, match="lines must be a positive integer or None"):
            EngineAnalyser("stockfish", lines=lines)
    with EngineAnalyser("/nonexistent/engine") as analyser:
        with pytest.raises(ValueError, match="invalid position"):
            analyser.analyse(chess.Board("8/8/8/8/8/8/8/8 w - - 0 1"))
        with pytest.raises(ValueError, match="standard chess"):
            analyser.analyse(chess.Board(chess960=True))


def _executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _proxy_capping_multipv(stockfish: str, folder: Path, *, cap: int) -> Path:
    """A UCI engine that is stockfish, except that it declares MultiPV at most ``cap``."""
    script = textwrap.dedent(
        f"""\
        #!{sys.executable}
        import os, re, subprocess, sys, threading
        engine = subprocess.Popen([{stockfish!r}], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        def forward():
            for line in engine.stdout:
                line = re.sub(r"(option name MultiPV .* max )\\d+", r"\\g<1>{cap}", line)
                sys.stdout.write(line)
                sys.stdout.flush()
            os._exit(0)  # the engine quit: so does its proxy
        threading.Thread(target=forward, daemon=True).start()
        for line in sys.stdin:
            engine.stdin.write(line)
            engine.stdin.flush()
        engine.wait()
        """
    )
    return _executable(folder / "capped-engine", script)


def test_a_program_that_forgets_to_close_its_analyser_still_exits(stockfish):
    script = (
        "import chess\n"
        "from iam.engines.analysis import EngineAnalyser\n"
        f"analyser = EngineAnalyser({stockfish!r}, depth=1)\n"
        "print(len(analyser.analyse(chess.Board()).scores))\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0 and finished.stdout.strip() == "20"


def test_switching_a_fresh_cache_to_wal_waits_for_another_process_doing_the_same():
    # SQLite answers "database is locked" at once, without its busy timeout, when two
    # processes switch one fresh file to write-ahead logging together: the switch retries.
    import sqlite3

    from iam.engines.cache import use_wal as _use_wal

    class Contended:
        def __init__(self, failures: int, message: str = "database is locked") -> None:
            self.failures, self.message, self.calls = failures, message, 0

        def execute(self, sql: str):
            self.calls += 1
            if self.calls <= self.failures:
                raise sqlite3.OperationalError(self.message)
            assert sql == "PRAGMA journal_mode = WAL"

    contended = Contended(failures=3)
    _use_wal(contended)
    assert contended.calls == 4
    other = Contended(failures=1, message="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        _use_wal(other)
    assert other.calls == 1


def _fake_engine(tmp_path: Path, answers: str, *, name: str = "fake") -> Path:
    """A UCI engine script answering its n-th ``go`` with the n-th of ``answers``
    (``|``-separated, the last repeated): ``GOOD`` scores every legal move (mate in
    10**12 for the first), ``HANG`` prints nothing, ``DIE`` exits, other text is printed
    with ``;`` as line breaks."""
    script = textwrap.dedent(
        f'''\
        #!{sys.executable}
        import sys
        import chess
        answers, searches, board = {answers.split("|")!r}, 0, chess.Board()
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "uci":
                print("id name Fake 1\\noption name MultiPV type spin default 1 min 1 max 500\\nuciok", flush=True)
            elif words[0] == "isready":
                print("readyok", flush=True)
            elif words[0] == "position" and words[1] == "fen":
                board = chess.Board(" ".join(words[2:8]))
            elif words[0] == "go":
                searches += 1
                answer = answers[min(searches, len(answers)) - 1]
                if answer == "DIE":
                    sys.exit(1)
                if answer == "GOOD":
                    for rank, move in enumerate(board.legal_moves, 1):
                        score = "mate 999999999999" if rank == 1 else f"cp {{rank}}"
                        print(f"info depth 2 multipv {{rank}} score {{score}} pv {{move.uci()}}")
                    print(f"bestmove {{next(iter(board.legal_moves)).uci()}}", flush=True)
                elif answer != "HANG":
                    print(answer.replace(";", "\\n"), flush=True)
            elif words[0] == "quit":
                break
        '''
    )
    return _executable(tmp_path / name, script)


def test_an_engine_answering_with_an_illegal_move_is_an_error_naming_it(tmp_path):
    for name, answer in (("illegal-best", "info depth 1 multipv 1 score cp 5 pv e2e4;bestmove a1a8"),
                         ("illegal-pv", "info depth 1 multipv 1 score cp 5 pv a1a8;bestmove e2e4")):
        engine = _fake_engine(tmp_path, answer, name=name)
        with EngineAnalyser(engine, depth=2, analysis_timeout=20) as analyser:
            started = time.monotonic()
            with pytest.raises(EngineError, match=f"engine {engine} failed during analysis") as error:
                analyser.analyse(chess.Board())
        assert time.monotonic() - started < 15  # answered at once, long before the time limit
        assert "\n" not in str(error.value) and "0 of 1 positions" in str(error.value)


def test_an_engine_that_never_answers_is_stopped_at_the_time_limit_and_restarted(tmp_path):
    engine = _fake_engine(tmp_path, "HANG|GOOD")
    with EngineAnalyser(engine, depth=2, analysis_timeout=1.0) as analyser:
        with pytest.raises(EngineError, match=r"no answer within 1 s at depth 2 on .*: 0 of 1 positions"):
            analyser.analyse(chess.Board())
        board = chess.Board("7k/8/8/8/8/8/8/K5R1 w - - 0 1")
        with pytest.raises(EngineError, match="no answer within 1 s"):  # a fresh engine, hanging on its first go
            analyser.analyse(board)


def test_an_engine_dying_after_three_analyses_is_counted_right_and_huge_mates_stay_mates(tmp_path):
    fens = ["7k/8/8/8/8/8/8/K7 w - - 0 1", "7k/8/8/8/8/8/8/K7 b - - 0 1", "6k1/8/8/8/8/8/8/K7 w - - 0 1",
            "6k1/8/8/8/8/8/8/K7 b - - 0 1"]
    engine = _fake_engine(tmp_path, "GOOD|GOOD|GOOD|DIE")
    cache = tmp_path / "cache.sqlite"
    with EngineAnalyser(engine, depth=2, cache=cache) as analyser:
        first = analyser.analyse(chess.Board(fens[0]))  # one position a call, as the predictors ask
        analyser.analyse(chess.Board(fens[1]))
        analyser.analyse(chess.Board(fens[2]))
        with pytest.raises(EngineError, match=r": 3 of 4 positions finished and kept in the cache, 1 not analysed"):
            analyser.analyse(chess.Board(fens[3]))
    best = next(iter(chess.Board(fens[0]).legal_moves))
    assert MAX_CENTIPAWNS < first.scores[best] < MATE_SCORE  # a win by mate, however long the engine says
    assert max(first.scores, key=first.scores.get) == best
    engine.unlink()
    with EngineAnalyser(engine, depth=2, cache=cache) as offline:  # the three are served from the cache
        assert offline.analyse(chess.Board(fens[2])).scores


def test_evaluate_with_a_hanging_engine_ends_in_one_line(tmp_path, capsys):
    from iam.cli import main as iam_main

    engine = _fake_engine(tmp_path, "HANG")
    code = iam_main(["compare", "--predictor", "engine-best", "--engine", str(engine), "--engine-timeout", "1",
                     "--engine-cache", str(tmp_path / "cache.sqlite"), "--max-positions", "2", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("iam: error: engine ") and "no answer within 1 s" in err
    assert err.count("\n") == 1
    assert iam_main(["compare", "--predictor", "engine-best", "--engine", str(engine), "--engine-timeout", "nan"]) == 2
    assert "--engine-timeout must be a finite number, not nan" in capsys.readouterr().err


def test_an_analysis_its_stopped_event_loop_never_runs_is_the_engine_ending():
    """The loop may stop after the analysis is handed to it and before it runs it: that ends the wait, never hangs."""
    import asyncio
    import warnings
    from types import SimpleNamespace

    from iam.engines.analysis import _analyse_until

    loop = asyncio.new_event_loop()  # open, never running: nothing will ever run what it is handed
    engine = SimpleNamespace(protocol=SimpleNamespace(loop=loop))
    try:
        with pytest.raises(chess.engine.EngineTerminatedError, match="process has ended"):
            _analyse_until(engine, time.monotonic() + 60, chess.Board(), chess.engine.Limit(depth=1))
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the analysis it never ran
            loop.close()


def test_two_engines_give_the_scores_one_engine_gives(stockfish, tmp_path):
    """A batch spread over two engine processes: the same scores, each position analysed once, progress counted."""
    positions = boards([*MIDDLEGAMES, HANGING_QUEEN, BACK_RANK, chess.STARTING_FEN])
    positions.append(positions[0].copy())  # a copy is asked for once and reported twice
    for lines in (None, 3):
        with EngineAnalyser(stockfish, depth=6, lines=lines) as one:
            alone = one.analyse_many(positions)
        told, lanes = [], []
        with EngineAnalyser(stockfish, depth=6, lines=lines, engines=2, cache=tmp_path / f"{lines}.sqlite") as two:
            two._score_moves = _noting_lanes(two._score_moves, lanes)
            spread = two.analyse_many(positions, progress=told.append)
            assert two.fresh == len(positions) - 1
        assert sorted(set(lanes)) == [0, 1] and len(lanes) == len(positions) - 1  # both processes did work
        assert [result.scores for result in spread] == [result.scores for result in alone]
        assert [list(result.scores) for result in spread] == [list(result.scores) for result in alone]  # same order too
        assert sum(told) == len(positions)


def _noting_lanes(score_moves, lanes: list[int]):
    def noted(board, lane=0):
        lanes.append(lane)
        return score_moves(board, lane)

    return noted


def test_an_engine_dying_beside_another_keeps_what_both_finished(tmp_path):
    fens = [f"{king}/8/8/8/8/8/8/K7 {side} - - 0 1" for king in ("7k", "6k1", "5k2") for side in "wb"]
    engine = _fake_engine(tmp_path, "GOOD|GOOD|DIE")  # each process dies at its third position
    cache = tmp_path / "cache.sqlite"
    with EngineAnalyser(engine, depth=2, cache=cache, engines=2) as analyser:
        with pytest.raises(
            EngineError, match=r"failed during analysis .*: (\d) of 6 positions finished and kept in the cache"
        ) as error:
            analyser.analyse_many(boards(fens))
    assert "\n" not in str(error.value)
    finished = int(str(error.value).split(": ")[-1].split(" of ")[0])
    assert 2 <= finished <= 4  # the engine that died first had finished two
    engine.unlink()
    kept = 0
    with EngineAnalyser(engine, depth=2, cache=cache) as offline:
        for board in boards(fens):
            try:
                kept += bool(offline.analyse(board).scores)
            except EngineError as missing:
                assert "not found" in str(missing)
    assert kept == finished  # every position it counted as finished is in the cache, and no other


def test_an_engine_count_below_one_is_refused():
    with pytest.raises(ValueError, match="engines must be a positive integer"):
        EngineAnalyser("stockfish", engines=0)
