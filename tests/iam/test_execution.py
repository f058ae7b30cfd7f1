"""The execution layer: maps in order locally and on a real Dask cluster, with the same results.

The cluster is a scheduler and two one-thread workers started as separate processes on
localhost with Dask's own commands; an unreachable scheduler is one error line, exit 2.
"""

from __future__ import annotations

import json
import operator
import time
from pathlib import Path

import pytest

from iam.cli import main
from iam.execution import Execution, ExecutionError, execution_from, map_in_order, run_map

NAMES = ("Alpha Ann", "Beta Bob")


def test_local_maps_keep_the_order_and_agree():
    tasks = [(n, 7) for n in range(40)]
    serial = list(map_in_order(operator.mul, tasks, Execution(jobs=1)))
    parallel = list(map_in_order(operator.mul, tasks, Execution(jobs=2)))
    assert serial == parallel == [7 * n for n in range(40)]
    assert run_map(abs, [-3, 2, -1], Execution(jobs=2)) == [3, 2, 1]
    assert run_map(abs, [], Execution(jobs=2)) == []


def test_the_scheduler_comes_from_the_option_or_the_environment(monkeypatch):
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    assert execution_from(3, None) == Execution(jobs=3, scheduler=None, timeout=10.0)
    monkeypatch.setenv("IAM_SCHEDULER", "tcp://10.0.0.1:8786")
    monkeypatch.setenv("IAM_SCHEDULER_TIMEOUT", "2.5")
    assert execution_from(1, None) == Execution(jobs=1, scheduler="tcp://10.0.0.1:8786", timeout=2.5)
    assert execution_from(1, "tcp://127.0.0.1:9999").scheduler == "tcp://127.0.0.1:9999"
    with pytest.raises(ExecutionError):
        execution_from(1, " ")
    with pytest.raises(ExecutionError):
        run_map(abs, [1], Execution(scheduler="nonsense:::"))


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
    assert run_map(abs, range(-10, 0), Execution(scheduler=cluster)) == list(range(10, 0, -1))
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
            execution = Execution(scheduler=scheduler.address, timeout=1.0)
            started = time.monotonic()
            with pytest.raises(ExecutionError, match="has no workers"):
                await asyncio.to_thread(run_map, abs, [1, 2], execution)
            assert time.monotonic() - started < 10

    asyncio.run(empty_scheduler())
