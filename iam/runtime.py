"""Where and with what the toolkit's work runs: the engine program, its caches, local processes or a Dask cluster.

A :class:`Runtime` says what the work runs on, as opposed to what it computes: the UCI
engine the engine families read (with its cache and timeout), the search scores' cache,
the number of local processes, and the Dask scheduler. The same work gives the same
results whichever runtime runs it, so a runtime is never an estimator's parameter and
never goes into a model file: whoever runs a model gives it one.

Everything heavy in the toolkit is a map of a top-level function over independent items
(training runs, pieces of positions, searches). :func:`run_map` runs such a map in order,
serially, in ``jobs`` local processes (joblib), or on a Dask distributed cluster, and
returns the same results whichever runs it: each item carries its own seed, none comes
from the worker.

>>> run_map(abs, [-2, 3, -1], Runtime())
[2, 3, 1]
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from iam.errors import IAMError, ParameterError

__all__ = [
    "MAX_ENGINE_DEPTH",
    "Runtime",
    "EngineSettings",
    "ExecutionError",
    "RuntimeParameterError",
    "SchedulerAddressError",
    "SCHEDULER_VARIABLE",
    "TIMEOUT_VARIABLE",
    "runtime_from",
    "run_map",
    "map_in_order",
    "dask_client",
    "dask_result",
]

T = TypeVar("T")
R = TypeVar("R")

SCHEDULER_VARIABLE = "IAM_SCHEDULER"
"""Environment variable naming the Dask scheduler when no address is given."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a scheduler before giving up (``$IAM_SCHEDULER_TIMEOUT`` when it is set)."""

TIMEOUT_VARIABLE = "IAM_SCHEDULER_TIMEOUT"
"""Environment variable with the seconds to wait for the scheduler."""

_MAX_JOBS = 1024


class ExecutionError(IAMError):
    """The Dask scheduler cannot be reached, or the library to reach it is not installed."""


class SchedulerAddressError(ExecutionError, ParameterError):
    """The scheduler's address (``scheduler``) is empty or not a ``tcp://`` or ``tls://`` address."""


class RuntimeParameterError(ParameterError, ValueError):
    """A runtime's ``jobs`` or ``engine`` is not one it accepts."""


MAX_ENGINE_DEPTH = 60
"""The deepest fixed depth an analysis may ask for: each ply costs an engine about twice the one before, and
stockfish at depth 60 already takes hours a position (a larger depth would look like a hang)."""


@dataclass(frozen=True)
class EngineSettings:
    """Which UCI engine scores the moves, how deep, and where its analyses are cached."""

    path: str
    depth: int = 8
    cache: str | None = None
    timeout: float | None = None
    """Seconds one position's analysis may take (``None``: derived from the depth)."""


@dataclass(frozen=True)
class Runtime:
    """What the work runs on: the engine program and the caches, ``jobs`` local processes or a Dask scheduler."""

    engine: str | None = None
    """Path of the UCI engine the ``engine`` and ``glance`` families run (None: no engine)."""
    engine_cache: str | None = None
    """SQLite file keeping the engine's analyses across runs and processes."""
    engine_timeout: float | None = None
    """Seconds one position's analysis may take (None: derived from the depth)."""
    search_cache: str | None = None
    """SQLite file keeping the search family's scores across runs and processes (:mod:`iam.evidence.search_cache`;
    may be the engine cache's file). The scores are the same with or without it."""
    jobs: int = 1
    """Local worker processes (ignored with a scheduler)."""
    scheduler: str | None = None
    """Address of a Dask scheduler, e.g. ``tcp://127.0.0.1:8786`` (None: local processes)."""
    scheduler_timeout: float = CONNECT_TIMEOUT
    """Seconds to wait for the scheduler to answer."""

    def __post_init__(self) -> None:
        jobs = self.jobs
        if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or not 1 <= jobs <= _MAX_JOBS:
            raise RuntimeParameterError("jobs", jobs, f"an integer from 1 to {_MAX_JOBS}")
        if self.engine is not None and not isinstance(self.engine, str):
            raise RuntimeParameterError("engine", self.engine, "the path of a UCI engine or None")

    @property
    def distributed(self) -> bool:
        """Whether the work goes to a Dask cluster."""
        return self.scheduler is not None

    @property
    def workers(self) -> int:
        """How many pieces to cut the work into, at the least (a cluster's size is unknown here: four)."""
        return 4 if self.distributed else max(1, self.jobs)

    @property
    def local(self) -> Runtime:
        """This runtime without its scheduler: its ``jobs`` processes on this machine."""
        return replace(self, scheduler=None) if self.distributed else self

    def engine_settings(self, depth: int) -> EngineSettings | None:
        """The engine at ``depth`` (a model's parameter), or None without an engine."""
        if not self.engine:
            return None
        return EngineSettings(path=self.engine, depth=depth, cache=self.engine_cache, timeout=self.engine_timeout)


def runtime_from(runtime: Runtime | None = None) -> Runtime:
    """``runtime`` (None: ``Runtime()``) with the scheduler of the environment when it names none.

    Its scheduler, else ``$IAM_SCHEDULER`` when it is set (SchedulerAddressError for an empty
    address); the seconds to wait for it, ``$IAM_SCHEDULER_TIMEOUT`` when it is set, else its own.

    >>> runtime_from(Runtime(jobs=2)).jobs
    2
    """
    runtime = Runtime() if runtime is None else runtime
    address = runtime.scheduler if runtime.scheduler is not None else (os.environ.get(SCHEDULER_VARIABLE) or None)
    if address is not None:
        given, address = address, address.strip()
        if not address:
            raise SchedulerAddressError("scheduler", given, "an address such as tcp://127.0.0.1:8786")
    try:
        timeout = float(os.environ.get(TIMEOUT_VARIABLE) or runtime.scheduler_timeout)
    except ValueError:
        raise ExecutionError(f"${TIMEOUT_VARIABLE} must be a number of seconds") from None
    if not 0 < timeout < float("inf"):
        raise ExecutionError("the scheduler's timeout must be a positive number of seconds")
    return replace(runtime, scheduler=address, scheduler_timeout=timeout)


def map_in_order(
    function: Callable[..., R], tasks: Iterable[tuple], runtime: Runtime, *, window: int | None = None
) -> Iterator[R]:
    """``function(*task)`` for every task, yielded in the order of ``tasks`` as they finish.

    Local: serial when ``jobs`` is 1, else joblib processes. Dask: the tasks go to the
    scheduler's workers (each retried twice on a lost worker) and come back in order.
    ``window``: at most this many tasks are taken from ``tasks`` ahead of the result
    being yielded (for a stream of tasks too large to hold); None takes them all at once.
    The scheduler is reached before the first result is asked for, so a wrong address
    fails at once.
    """
    if runtime.distributed:
        client = _connect(runtime)
        return _dask_results(client, function, tasks, window)
    if runtime.jobs == 1:
        return (function(*task) for task in tasks)
    if window is None:
        tasks = list(tasks)
        if len(tasks) <= 1:
            return (function(*task) for task in tasks)
    from joblib import Parallel, delayed

    dispatch = "2*n_jobs" if window is None else max(1, window)
    run = Parallel(n_jobs=runtime.jobs, return_as="generator", pre_dispatch=dispatch)
    return iter(run(delayed(function)(*task) for task in tasks))


def run_map(function: Callable[[T], R], items: Iterable[T], runtime: Runtime) -> list[R]:
    """``[function(item) for item in items]``, run where ``runtime`` says, in order."""
    return list(map_in_order(function, [(item,) for item in items], runtime))


def dask_client(runtime: Runtime):  # -> distributed.Client
    """A client of ``runtime``'s Dask scheduler, checked as :func:`map_in_order` checks it (ExecutionError if the
    scheduler cannot be reached or has no worker); the caller closes it."""
    return _connect(runtime)


def dask_result(future):
    """A Dask future's result; a task whose workers were all lost, or a cluster that cannot load the toolkit's
    code, as an ExecutionError."""
    return _result(future)


def _connect(runtime: Runtime):  # -> distributed.Client
    try:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise ExecutionError(
            "a Dask scheduler needs the distributed package: pip install 'iam-toolkit[cluster]'"
        ) from None
    assert runtime.scheduler is not None  # called for a distributed runtime only
    try:
        scheme, location = parse_address(runtime.scheduler)
        if scheme not in ("tcp", "tls"):
            raise ValueError(scheme)
        parse_host_port(location)
    except ValueError:
        raise SchedulerAddressError(
            "scheduler", runtime.scheduler, "an address such as tcp://127.0.0.1:8786"
        ) from None
    try:
        _ask_identity(runtime.scheduler, runtime.scheduler_timeout)
        client = Client(runtime.scheduler, timeout=runtime.scheduler_timeout, set_as_default=False)
    except Exception as exc:  # any failure to connect is the user's address or network
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ExecutionError(f"cannot reach the Dask scheduler at {runtime.scheduler}: {reason}") from None
    try:
        client.wait_for_workers(1, timeout=runtime.scheduler_timeout)
    except Exception:  # a scheduler with no worker would hold the tasks forever
        client.close()
        raise ExecutionError(
            f"the Dask scheduler at {runtime.scheduler} has no workers (waited {runtime.scheduler_timeout:g} s): "
            f"start some with: dask worker {runtime.scheduler}"
        ) from None
    return client


def _ask_identity(address: str, timeout: float) -> None:
    """Ask the scheduler who it is before a client is made: a client that fails half-built (a port that answers
    but is no scheduler) tries to close itself when collected, waits and prints a traceback at exit."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.core import rpc

    async def identity() -> None:
        peer = rpc(address, timeout=timeout)
        try:
            await asyncio.wait_for(peer.identity(), timeout)
        finally:
            await peer.close_rpc()

    with ThreadPoolExecutor(1) as thread:  # its own event loop, also under a notebook's running one
        try:
            thread.submit(asyncio.run, identity()).result()
        except (TimeoutError, OSError):
            raise
        except Exception:  # what it sent back could not be read as a scheduler's answer (garbage, even 3 EiB)
            raise OSError("it answers, but not as a Dask scheduler") from None


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
