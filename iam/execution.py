"""Where independent work runs: local processes, or the workers of a Dask scheduler.

Everything heavy in the toolkit is a map of a top-level function over independent items
(training runs, pieces of positions, searches). :func:`run_map` runs such a map in order,
serially, in ``jobs`` local processes (joblib), or on a Dask distributed cluster, and
returns the same results whichever runs it: each item carries its own seed, none comes
from the worker.

>>> run_map(abs, [-2, 3, -1], Execution())
[2, 3, 1]
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from iam.errors import IAMError, ParameterError

__all__ = [
    "Execution",
    "ExecutionError",
    "SchedulerAddressError",
    "SCHEDULER_VARIABLE",
    "TIMEOUT_VARIABLE",
    "execution_from",
    "run_map",
    "map_in_order",
]

T = TypeVar("T")
R = TypeVar("R")

SCHEDULER_VARIABLE = "IAM_SCHEDULER"
"""Environment variable naming the Dask scheduler when no address is given."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a scheduler before giving up (``$IAM_SCHEDULER_TIMEOUT`` when it is set)."""

TIMEOUT_VARIABLE = "IAM_SCHEDULER_TIMEOUT"
"""Environment variable with the seconds to wait for the scheduler."""


class ExecutionError(IAMError):
    """The Dask scheduler cannot be reached, or the library to reach it is not installed."""


class SchedulerAddressError(ExecutionError, ParameterError):
    """The scheduler's address (``scheduler``) is empty or not a ``tcp://`` or ``tls://`` address."""


@dataclass(frozen=True)
class Execution:
    """Where a map runs: ``jobs`` local processes (1: in this process), or the Dask scheduler at ``scheduler``."""

    jobs: int = 1
    """Local worker processes (ignored with a scheduler)."""
    scheduler: str | None = None
    """Address of a Dask scheduler, e.g. ``tcp://127.0.0.1:8786`` (None: local processes)."""
    timeout: float = CONNECT_TIMEOUT
    """Seconds to wait for the scheduler to answer."""

    @property
    def distributed(self) -> bool:
        """Whether the work goes to a Dask cluster."""
        return self.scheduler is not None

    @property
    def workers(self) -> int:
        """How many pieces to cut the work into, at the least (a cluster's size is unknown here: four)."""
        return 4 if self.distributed else max(1, self.jobs)


def execution_from(jobs: int = 1, scheduler: str | None = None, *, timeout: float | None = None) -> Execution:
    """The execution of ``jobs`` local processes, or of ``scheduler`` (else ``$IAM_SCHEDULER`` when it is set).

    ``timeout``: seconds to wait for the scheduler (None: ``$IAM_SCHEDULER_TIMEOUT``, else 10).

    >>> execution_from(2, None).jobs
    2
    """
    address = scheduler if scheduler is not None else (os.environ.get(SCHEDULER_VARIABLE) or None)
    if address is not None:
        given, address = address, address.strip()
        if not address:
            raise SchedulerAddressError("scheduler", given, "an address such as tcp://127.0.0.1:8786")
    if timeout is None:
        try:
            timeout = float(os.environ.get(TIMEOUT_VARIABLE) or CONNECT_TIMEOUT)
        except ValueError:
            raise ExecutionError(f"${TIMEOUT_VARIABLE} must be a number of seconds") from None
    if not 0 < timeout < float("inf"):
        raise ExecutionError("the scheduler's timeout must be a positive number of seconds")
    return Execution(jobs=max(1, jobs), scheduler=address, timeout=timeout)


def map_in_order(
    function: Callable[..., R], tasks: Iterable[tuple], execution: Execution, *, window: int | None = None
) -> Iterator[R]:
    """``function(*task)`` for every task, yielded in the order of ``tasks`` as they finish.

    Local: serial when ``jobs`` is 1, else joblib processes. Dask: the tasks go to the
    scheduler's workers (each retried twice on a lost worker) and come back in order.
    ``window``: at most this many tasks are taken from ``tasks`` ahead of the result
    being yielded (for a stream of tasks too large to hold); None takes them all at once.
    The scheduler is reached before the first result is asked for, so a wrong address
    fails at once.
    """
    if execution.distributed:
        client = _connect(execution)
        return _dask_results(client, function, tasks, window)
    if execution.jobs == 1:
        return (function(*task) for task in tasks)
    if window is None:
        tasks = list(tasks)
        if len(tasks) <= 1:
            return (function(*task) for task in tasks)
    from joblib import Parallel, delayed

    dispatch = "2*n_jobs" if window is None else max(1, window)
    run = Parallel(n_jobs=execution.jobs, return_as="generator", pre_dispatch=dispatch)
    return iter(run(delayed(function)(*task) for task in tasks))


def run_map(function: Callable[[T], R], items: Iterable[T], execution: Execution) -> list[R]:
    """``[function(item) for item in items]``, run where ``execution`` says, in order."""
    return list(map_in_order(function, [(item,) for item in items], execution))


def _connect(execution: Execution):  # -> distributed.Client
    try:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise ExecutionError(
            "a Dask scheduler needs the distributed package: pip install 'iam-toolkit[cluster]'"
        ) from None
    assert execution.scheduler is not None  # called for a distributed execution only
    try:
        scheme, location = parse_address(execution.scheduler)
        if scheme not in ("tcp", "tls"):
            raise ValueError(scheme)
        parse_host_port(location)
    except ValueError:
        raise SchedulerAddressError(
            "scheduler", execution.scheduler, "an address such as tcp://127.0.0.1:8786"
        ) from None
    try:
        client = Client(execution.scheduler, timeout=execution.timeout, set_as_default=False)
    except Exception as exc:  # any failure to connect is the user's address or network
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ExecutionError(f"cannot reach the Dask scheduler at {execution.scheduler}: {reason}") from None
    try:
        client.wait_for_workers(1, timeout=execution.timeout)
    except Exception:  # a scheduler with no worker would hold the tasks forever
        client.close()
        raise ExecutionError(
            f"the Dask scheduler at {execution.scheduler} has no workers (waited {execution.timeout:g} s): "
            f"start some with: dask worker {execution.scheduler}"
        ) from None
    return client


def _dask_results(client, function: Callable[..., R], tasks: Iterable[tuple], window: int | None) -> Iterator[R]:
    """The results of the tasks in order, at most ``window`` of them submitted ahead (all when None)."""
    from collections import deque

    try:
        with warnings.catch_warnings():
            # each task carries its own copy of what it needs (a model, a scorer, a chunk of text), as a
            # local process does: nothing is shared between a worker's threads, and a large task is expected
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            warnings.filterwarnings("ignore", message="Large object", category=UserWarning)
            if window is None:
                tasks = list(tasks)
                columns = [list(column) for column in zip(*tasks)]
                futures = deque(client.map(function, *columns, pure=False, retries=2) if tasks else [])
                while futures:
                    yield _result(futures.popleft())
                return
            pending: deque = deque()
            for task in tasks:
                pending.append(client.submit(function, *task, pure=False, retries=2))
                if len(pending) >= window:
                    yield _result(pending.popleft())
            while pending:
                yield _result(pending.popleft())
    finally:
        client.close()


def _result(future):
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker as exc:
        raise ExecutionError(f"the Dask workers were lost running {exc.args[0] if exc.args else 'a task'}") from None
    except RuntimeError as exc:
        if "deserializ" not in str(exc):
            raise
        raise ExecutionError(
            "the Dask cluster cannot load this toolkit's code: install the same version on the scheduler and "
            "every worker, and restart them after an upgrade"
        ) from None
