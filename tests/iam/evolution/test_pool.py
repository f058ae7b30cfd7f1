"""iam.evolution.pool: tasks come back with their tags, serially in order, from processes and a cluster."""

import operator

import pytest

from iam.evolution.pool import TaskPool
from iam.runtime import Runtime


def _drain(pool: TaskPool) -> dict:
    results = {}
    while len(pool):
        tag, result = pool.next()
        results[tag] = result
    return results


def test_serial_tasks_run_in_the_order_they_were_submitted():
    with TaskPool() as pool:
        for i in range(3):
            pool.submit(("task", i), operator.mul, i, 10)
        assert len(pool) == 3
        assert [pool.next() for _ in range(3)] == [(("task", i), 10 * i) for i in range(3)]
        with pytest.raises(IndexError):
            pool.next()


def test_local_processes_give_every_tag_its_own_result():
    with TaskPool(Runtime(jobs=2)) as pool:
        for i in range(5):
            pool.submit(i, pow, i, 2)
        assert _drain(pool) == {i: i * i for i in range(5)}


def test_a_task_that_fails_raises_when_it_is_taken_back():
    with TaskPool() as pool:
        pool.submit("bad", operator.truediv, 1, 0)
        with pytest.raises(ZeroDivisionError):
            pool.next()


@pytest.mark.slow
def test_a_cluster_gives_every_tag_its_own_result(cluster):
    with TaskPool(Runtime(scheduler=cluster, scheduler_timeout=30)) as pool:
        for i in range(4):
            pool.submit(("t", i), pow, i, 3)
        assert _drain(pool) == {("t", i): i ** 3 for i in range(4)}
