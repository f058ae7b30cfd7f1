"""The runtime: what the work runs on, and maps in order locally and on a real Dask cluster, with the same results.

A ranker's runtime is not what it is: it goes to fit, load and use, never into parameters or files.
The cluster is a scheduler and two one-thread workers started as separate processes on
localhost with Dask's own commands; an unreachable scheduler is one error line, exit 2.
"""

from __future__ import annotations

import json
import operator
import time
from pathlib import Path

import chess
import numpy as np
import pytest

from iam.cli import main
from iam.errors import ModelFileError
from iam.games.heldout import first_training_games
from iam.ranker import MoveRanker
from iam.runtime import ExecutionError, Runtime, map_in_order, run_map, runtime_from

NAMES = ("Alpha Ann", "Beta Bob")


def test_local_maps_keep_the_order_and_agree():
    tasks = [(n, 7) for n in range(40)]
    serial = list(map_in_order(operator.mul, tasks, Runtime(jobs=1)))
    parallel = list(map_in_order(operator.mul, tasks, Runtime(jobs=2)))
    assert serial == parallel == [7 * n for n in range(40)]
    assert run_map(abs, [-3, 2, -1], Runtime(jobs=2)) == [3, 2, 1]
    assert run_map(abs, [], Runtime(jobs=2)) == []


def test_the_scheduler_comes_from_the_option_or_the_environment(monkeypatch):
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    monkeypatch.delenv("IAM_SCHEDULER_TIMEOUT", raising=False)
    assert runtime_from(Runtime(jobs=3)) == Runtime(jobs=3, scheduler=None, scheduler_timeout=10.0)
    assert runtime_from() == Runtime()
    monkeypatch.setenv("IAM_SCHEDULER", "tcp://10.0.0.1:8786")
    monkeypatch.setenv("IAM_SCHEDULER_TIMEOUT", "2.5")
    assert runtime_from(Runtime()) == Runtime(jobs=1, scheduler="tcp://10.0.0.1:8786", scheduler_timeout=2.5)
    assert runtime_from(Runtime(scheduler="tcp://127.0.0.1:9999")).scheduler == "tcp://127.0.0.1:9999"
    kept = runtime_from(Runtime(engine="/bin/engine", search_cache="s.sqlite", jobs=2))
    assert (kept.engine, kept.search_cache, kept.jobs) == ("/bin/engine", "s.sqlite", 2)
    with pytest.raises(ExecutionError):
        runtime_from(Runtime(scheduler=" "))
    with pytest.raises(ExecutionError):
        run_map(abs, [1], Runtime(scheduler="nonsense:::"))
    monkeypatch.setenv("IAM_SCHEDULER_TIMEOUT", "soon")
    with pytest.raises(ExecutionError, match="IAM_SCHEDULER_TIMEOUT must be a number"):
        runtime_from(Runtime())


def test_a_runtime_says_where_work_goes_and_checks_its_values():
    assert not Runtime(jobs=3).distributed and Runtime(jobs=3).workers == 3
    remote = Runtime(jobs=3, scheduler="tcp://127.0.0.1:8786")
    assert remote.distributed and remote.workers == 4
    assert remote.local == Runtime(jobs=3) and Runtime(jobs=2).local == Runtime(jobs=2)
    for jobs in (0, 2000, 1.5, True):
        with pytest.raises(ValueError, match="jobs must be an integer"):
            Runtime(jobs=jobs)
    with pytest.raises(ValueError, match="engine must be the path of a UCI engine"):
        Runtime(engine=3)
    assert Runtime().engine_settings(8) is None
    settings = Runtime(engine="/bin/engine", engine_cache="c.sqlite", engine_timeout=5.0).engine_settings(12)
    assert (settings.path, settings.depth, settings.cache, settings.timeout) == ("/bin/engine", 12, "c.sqlite", 5.0)


FAST = ("move", "search", "habits")


@pytest.fixture(scope="module")
def fitted(botvinnik_games, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("runtime") / "search.sqlite")
    ranker = MoveRanker(families=FAST, search_depth=1, max_positions=60, prior="none")
    return ranker.fit(first_training_games(botvinnik_games, 12), runtime=Runtime(search_cache=cache, jobs=2)), cache


def test_the_runtime_is_not_a_ranker_parameter():
    names = set(MoveRanker().get_params())
    assert not names & {"engine", "engine_cache", "search_cache", "jobs", "runtime"}
    assert "engine_depth" in names  # the depth is what the engine family is, so it stays a parameter


def test_engine_families_need_an_engine_in_the_runtime(botvinnik_games):
    ranker = MoveRanker(families=("move", "engine"), max_positions=10, prior="none")
    with pytest.raises(ValueError, match="engine family needs an engine path"):
        ranker.fit(first_training_games(botvinnik_games, 3))
    with pytest.raises(TypeError, match="Runtime"):
        MoveRanker(families=("move",)).fit(first_training_games(botvinnik_games, 3), runtime={"jobs": 2})


def test_a_fitted_ranker_keeps_its_runtime_and_a_file_never_holds_it(fitted, tmp_path):
    ranker, cache = fitted
    assert ranker.runtime == Runtime(search_cache=cache, jobs=2)
    document = ranker.to_dict()
    assert not {"engine", "engine_cache", "search_cache", "jobs", "runtime"} & set(document["params"])
    path = tmp_path / "r.json.gz"
    ranker.save(path)
    plain = MoveRanker.load(path)
    assert plain.runtime == Runtime()
    cached = MoveRanker.load(path, runtime=Runtime(search_cache=cache))
    board = chess.Board()
    board.push_san("e4")
    expected = ranker.predict_proba(board)
    for loaded in (plain, cached):
        found = loaded.predict_proba(board)
        assert list(found) == list(expected)
        assert np.allclose(list(found.values()), list(expected.values()))
    assert plain.use(Runtime(search_cache=cache)) is plain and plain.runtime.search_cache == cache


def test_a_file_with_engine_evidence_is_refused_without_an_engine(fitted):
    ranker, _ = fitted
    document = ranker.to_dict()
    document["families"] = ["move", "engine"]
    document["params"]["families"] = ["move", "engine"]
    with pytest.raises(ModelFileError, match="name the engine program"):
        MoveRanker.from_dict(document)


@pytest.fixture(scope="module")
def model_files(synthetic_model_files) -> dict[str, Path]:
    """IAM model files of both invented players (training games only)."""
    return synthetic_model_files


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_a_cluster_gives_the_results_of_local_processes(capsys, monkeypatch, cluster, model_files, synthetic_players):
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    assert run_map(abs, range(-10, 0), Runtime(scheduler=cluster)) == list(range(10, 0, -1))
    query = synthetic_players["Alpha Ann"]
    models = [model_files["Beta Bob"], model_files["Alpha Ann"]]
    identify = ("identify", query, "--models", *models, "--json", "--quiet", "--max-positions", "8")
    code, local, _ = _run(capsys, *identify)
    assert code == 0
    code, remote, _ = _run(capsys, *identify, "--scheduler", cluster)
    assert code == 0 and json.loads(remote) == json.loads(local)
    assert json.loads(local)["candidates"][0]["candidate"] == "Alpha Ann"
    evaluate = ("evaluate", model_files["Alpha Ann"], query, "--json", "--quiet")
    code, local, _ = _run(capsys, *evaluate)
    assert code == 0
    monkeypatch.setenv("IAM_SCHEDULER", cluster)  # the address from the environment
    code, remote, _ = _run(capsys, *evaluate)
    assert code == 0 and json.loads(remote) == json.loads(local)


def test_an_unreachable_scheduler_is_one_error_line(capsys, monkeypatch, model_files, synthetic_players):
    monkeypatch.setenv("IAM_SCHEDULER_TIMEOUT", "1")
    started = time.monotonic()
    code, out, err = _run(capsys, "identify", synthetic_players["Alpha Ann"], "--models", *model_files.values(),
                          "--quiet", "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and not out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iam: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1")
    assert time.monotonic() - started < 15


def test_a_scheduler_without_workers_is_one_error_line(tmp_path):
    distributed = pytest.importorskip("distributed")
    import asyncio

    async def empty_scheduler() -> None:
        async with distributed.Scheduler(host="127.0.0.1", port=0, dashboard_address=None) as scheduler:
            runtime = Runtime(scheduler=scheduler.address, scheduler_timeout=1.0)
            started = time.monotonic()
            with pytest.raises(ExecutionError, match="has no workers"):
                await asyncio.to_thread(run_map, abs, [1, 2], runtime)
            assert time.monotonic() - started < 10

    asyncio.run(empty_scheduler())


_WEB_PROXY_CASE = """
import socket, sys, threading
from iam.runtime import ExecutionError, Runtime, run_map
server = socket.create_server(("127.0.0.1", 0))
def answer_as_a_web_server():
    while True:
        try:
            peer, _ = server.accept()
            peer.recv(1024)
            peer.sendall(b"HTTP/1.1 400 Bad Request\\r\\nconnection: close\\r\\ncontent-length: 0\\r\\n\\r\\n")
            peer.close()
        except OSError:
            return
threading.Thread(target=answer_as_a_web_server, daemon=True).start()
try:
    run_map(abs, [1, 2], Runtime(scheduler=f"tcp://127.0.0.1:{server.getsockname()[1]}", scheduler_timeout=2.0))
except ExecutionError as error:
    print(error, file=sys.stderr)
"""


def test_a_port_that_answers_as_a_web_server_is_one_error_and_leaves_nothing_behind():
    """A client half-built against a port that is no scheduler (a web proxy) waits and prints a traceback when
    collected: the scheduler is asked who it is before a client is made."""
    pytest.importorskip("distributed")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _WEB_PROXY_CASE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:" in done.stderr
    assert done.stderr.strip().endswith(": it answers, but not as a Dask scheduler")
