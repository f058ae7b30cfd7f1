"""Engine analysis of many games: values checked against the analyser itself, the same table
from one process, two processes and a Dask cluster, and a cluster that loses a worker mid-run.

The engine tests use the real stockfish and skip without it. The cluster is a Dask scheduler
and two one-thread workers, each under its nanny, started as separate processes on localhost;
one worker process is killed while it analyses, and the run must still finish with the
undisturbed table and a shared cache holding every position.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import chess
import pandas as pd
import pytest

from iam.cli import main
from iam.engines.analysis import EngineAnalyser
from iam.engines.runs import COLUMNS, LOSS_CAP, AnalysisSettings, analyse_games, played_moves
from iam.games.pgn import load_player_games
from iam.runtime import Runtime

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "tests" / "data" / "tiny.pgn"
PLAYER = "Tester, Tom"
STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


@pytest.fixture()
def stockfish() -> str:
    if STOCKFISH is None:
        pytest.skip("no stockfish installed (Debian: apt-get install stockfish)")
    return STOCKFISH


@pytest.fixture(scope="module")
def tiny_games():
    games, _ = load_player_games([TINY], player=PLAYER)
    return games


def _cached_positions(path: Path) -> int:
    """Rows of the cache's analyses table (0 before the file has its tables)."""
    assert path.exists()
    connection = sqlite3.connect(path, timeout=30)
    try:
        return connection.execute("SELECT count(*) FROM analyses").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        connection.close()


def test_the_positions_are_the_players_moves_or_all_of_them(tiny_games):
    player = list(played_moves(tiny_games))
    every = list(played_moves(tiny_games, all_moves=True))
    assert len(player) == sum(game.player_moves for game in tiny_games)
    assert len(every) == sum(len(game.moves) for game in tiny_games)
    colors = {game.index: game.color for game in tiny_games}
    assert all(played.board.turn == colors[played.game] for played in player)
    assert all(played.move in played.board.legal_moves for played in every)
    assert [played.ply for played in every if played.game == tiny_games[0].index] == list(
        range(len(tiny_games[0].moves))
    )


def test_settings_refuse_a_depth_or_task_size_below_one():
    for options in ({"depth": 0}, {"positions_per_task": 0}, {"depth": True}):
        with pytest.raises(ValueError):
            AnalysisSettings("stockfish", **options)


def test_the_table_holds_the_analysers_scores(stockfish, tiny_games, tmp_path):
    settings = AnalysisSettings(stockfish, depth=5, cache=str(tmp_path / "cache.sqlite"), positions_per_task=3)
    analysis = analyse_games(tiny_games, settings, Runtime())
    table = analysis.moves
    assert tuple(table.columns) == COLUMNS
    assert len(table) == sum(game.player_moves for game in tiny_games)
    assert analysis.positions == len({chess.Board(fen).epd() for fen in table["fen"]})
    assert analysis.fresh == analysis.positions and analysis.cached == 0
    with EngineAnalyser(stockfish, depth=5) as reference:  # in memory: scored afresh, independently of the run's cache
        for row in table.itertuples():
            board = chess.Board(row.fen)
            scores = {move.uci(): score for move, score in reference.analyse(board).scores.items()}
            assert row.played_score == scores[row.played]
            assert row.best_score == max(scores.values()) == scores[row.best]
            assert row.loss == row.best_score - row.played_score >= 0
            assert row.rank == 1 + sum(score > row.played_score for score in scores.values())
            assert row.legal_moves == board.legal_moves.count()
            assert row.played_san == board.san(chess.Move.from_uci(row.played))
            assert row.side == ("white" if board.turn else "black")
    assert (table.loc[table["played"] == table["best"], "rank"] == 1).all()
    assert (table["rank"] == 1).mean() == analysis.best_share
    assert analysis.mean_loss == table["loss"].clip(upper=LOSS_CAP).mean()


def test_one_process_two_processes_and_the_cache_give_one_table(stockfish, tiny_games, tmp_path):
    settings = AnalysisSettings(stockfish, depth=5, all_moves=True, positions_per_task=4)
    serial = analyse_games(tiny_games, replace(settings, cache=str(tmp_path / "one.sqlite")), Runtime(jobs=1))
    parallel = analyse_games(tiny_games, replace(settings, cache=str(tmp_path / "two.sqlite")), Runtime(jobs=2))
    again = analyse_games(tiny_games, replace(settings, cache=str(tmp_path / "two.sqlite")), Runtime(jobs=2))
    pd.testing.assert_frame_equal(serial.moves, parallel.moves)
    pd.testing.assert_frame_equal(serial.moves, again.moves)
    assert len(serial.moves) == sum(len(game.moves) for game in tiny_games)
    assert parallel.fresh == parallel.positions and again.fresh == 0 and again.cached == again.positions
    assert _cached_positions(tmp_path / "two.sqlite") == parallel.positions


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_writes_the_table_and_a_summary(stockfish, tiny_games, tmp_path, capsys):
    out, cache = tmp_path / "moves.csv", tmp_path / "cache.sqlite"
    argv = (
        "analyse", TINY, "--player", PLAYER, "--engine", stockfish, "--depth", "5", "--cache", cache, "--out", out,
        "--quiet",
    )
    code, printed, err = _run(capsys, *argv, "--jobs", "2")
    assert code == 0 and not err
    written = pd.read_csv(out, keep_default_na=False)
    expected = analyse_games(tiny_games, AnalysisSettings(stockfish, depth=5, cache=str(cache)), Runtime()).moves
    assert written.to_dict(orient="list") == expected.to_dict(orient="list")
    positions = _cached_positions(cache)
    assert f"{len(expected)} moves in {len(tiny_games)} games of {PLAYER} analysed" in printed
    assert f"{positions} distinct positions: 0 from the cache, {positions} analysed now" in printed
    code, printed, _ = _run(capsys, *argv, "--color", "white")
    assert code == 0 and f"{positions} analysed now" not in printed and "0 analysed now" in printed
    assert set(pd.read_csv(out)["side"]) == {"white"}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"--engine": "{tmp}/no-such-engine"}, "engine {tmp}/no-such-engine not found"),
        ({"PGN": "{tmp}/none.pgn"}, "PGN file not found"),
        ({"--scheduler": "tcp://127.0.0.1:1"}, "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
        ({"--depth": "0"}, "--depth must be at least 1"),
        ({"--depth": "500"}, "--depth must be at most 60"),
        ({"--out": "{tmp}"}, "--out {tmp}: it is a folder"),
    ],
)
def test_bad_input_is_one_error_line(tmp_path, capsys, monkeypatch, change, expected):
    monkeypatch.setenv("IAM_SCHEDULER_TIMEOUT", "1")
    options = {"PGN": str(TINY), "--player": PLAYER, "--engine": STOCKFISH or "stockfish", "--out": "{tmp}/moves.csv",
               "--cache": "{tmp}/cache.sqlite", **change}
    argv = ["analyse", "--quiet"]
    for option, value in options.items():
        argv += [value] if option == "PGN" else [option, value]
    code, out, err = _run(capsys, *(part.replace("{tmp}", str(tmp_path)) for part in argv))
    lines = err.strip().splitlines()
    assert code == 2 and not out
    assert len(lines) == 1 and lines[0].startswith("iam: error: ")
    assert expected.replace("{tmp}", str(tmp_path)) in lines[0]
    assert not (tmp_path / "moves.csv").exists()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, start_dask_cluster):
    """A cluster of this module's own: the kill test leaves it with a worker its nanny restarted."""
    with start_dask_cluster(tmp_path_factory.mktemp("cluster")) as address:
        yield address


def _worker_pids(address: str) -> list[int]:
    """The process ids of the cluster's worker processes (each a child of its nanny)."""
    import distributed

    with distributed.Client(address, timeout=30) as client:
        return sorted(client.run(os.getpid).values())


class _Killer(threading.Thread):
    """Kills the worker process ``pid`` with SIGKILL once the cache holds ``after`` positions, while its engine runs."""

    def __init__(self, pid: int, engine: str, cache: Path, after: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.engine, self.cache, self.after = pid, Path(engine).name, cache, after
        self.cached_at_kill: int | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        import psutil

        worker = psutil.Process(self.pid)
        while not self.stop.wait(0.02):
            if not self.cache.exists() or _cached_positions(self.cache) < self.after:
                continue
            if not any(self.engine in child.name() for child in worker.children()):
                continue  # between two tasks: wait until one is under way
            self.cached_at_kill = _cached_positions(self.cache)
            os.kill(self.pid, signal.SIGKILL)
            return


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_nothing_but_time(stockfish, cluster, botvinnik_games, tmp_path):
    psutil = pytest.importorskip("psutil")
    games = [replace(game, moves=game.moves[:48]) for game in botvinnik_games[:3]]  # about 70 distinct positions
    settings = AnalysisSettings(stockfish, depth=6, positions_per_task=4)
    local = analyse_games(games, replace(settings, cache=str(tmp_path / "local.sqlite")), Runtime(jobs=1))

    pids = _worker_pids(cluster)
    assert len(pids) == 2 and all(
        "distributed.cli.dask_worker" in psutil.Process(pid).parent().cmdline() for pid in pids
    )
    shared = tmp_path / "shared.sqlite"
    killer = _Killer(pids[0], stockfish, shared, after=local.positions // 4)
    killer.start()
    try:
        remote = analyse_games(
            games, replace(settings, cache=str(shared)), Runtime(scheduler=cluster, scheduler_timeout=30)
        )
    finally:
        killer.stop.set()
        killer.join()

    assert killer.cached_at_kill is not None, "the worker was never killed: the run ended first"
    assert 0 < killer.cached_at_kill < local.positions  # killed mid-run, in the middle of a task
    assert not psutil.pid_exists(pids[0]) or psutil.Process(pids[0]).status() == psutil.STATUS_ZOMBIE
    pd.testing.assert_frame_equal(remote.moves, local.moves)
    assert remote.positions == local.positions == _cached_positions(shared)


@pytest.mark.slow
def test_the_command_on_a_cluster_writes_the_local_table(stockfish, cluster, tmp_path, capsys):
    argv = ("analyse", TINY, "--player", PLAYER, "--depth", "5", "--all-moves", "--quiet", "--task-positions", "3")
    code, _, _ = _run(
        capsys, *argv, "--engine", stockfish, "--cache", tmp_path / "local.sqlite", "--out", tmp_path / "local.csv"
    )
    assert code == 0
    code, printed, err = _run(capsys, *argv, "--engine", stockfish, "--cache", tmp_path / "shared.sqlite",
                              "--out", tmp_path / "remote.csv", "--scheduler", cluster)
    assert code == 0 and not err and "0 from the cache" in printed
    assert (tmp_path / "remote.csv").read_text() == (tmp_path / "local.csv").read_text()
    code, out, err = _run(capsys, *argv, "--engine", tmp_path / "missing", "--cache", tmp_path / "none.sqlite",
                          "--out", tmp_path / "none.csv", "--scheduler", cluster)
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1
    assert lines[0].startswith(f"iam: error: engine {tmp_path / 'missing'} not found")
