"""Tasks handed out one at a time and taken back as they finish: what lets a deme go on as soon as its own
games are in, where :func:`iam.runtime.map_in_order` waits for a whole batch in order.

A :class:`TaskPool` runs ``function(*arguments)`` where the runtime says: serially in the
order of submission (one job), in local worker processes, or on a Dask cluster's workers
(each task retried twice on a lost worker, as :func:`iam.runtime.map_in_order` does, so a
worker killed mid-task costs only that task's work). :meth:`TaskPool.next` gives back one
finished task's tag and result; which one comes first depends on the workers, so a caller
that wants the same results whatever the order makes each task's result depend on its own
inputs alone.

>>> with TaskPool() as pool:
...     pool.submit("a", abs, -2)
...     pool.submit("b", abs, 3)
...     [pool.next(), pool.next()]
[('a', 2), ('b', 3)]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from iam.runtime import Runtime, dask_client, dask_result

__all__ = ["TaskPool"]


class TaskPool:
    """Submit tagged tasks, take them back as they finish (serial, local processes or a Dask cluster)."""

    def __init__(self, runtime: Runtime = Runtime()) -> None:
        self._runtime = runtime
        self._serial: deque[tuple[Hashable, Callable[..., Any], tuple]] = deque()
        self._running: dict[Any, Hashable] = {}  # future -> tag
        self._client = dask_client(runtime) if runtime.distributed else None
        self._completed: Any = None  # the cluster's futures, as they finish
        if self._client is not None:
            from distributed import as_completed

            self._completed = as_completed(loop=self._client.loop)
        self._executor = None
        if self._client is None and runtime.jobs > 1:  # processes of its own, apart from joblib's
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(runtime.jobs, mp_context=multiprocessing.get_context("spawn"))

    def __enter__(self) -> TaskPool:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __len__(self) -> int:
        """Tasks submitted and not yet taken back."""
        return len(self._serial) + len(self._running)

    def submit(self, tag: Hashable, function: Callable[..., Any], *arguments) -> None:
        """Start ``function(*arguments)`` (serially: when :meth:`next` asks for it), known by ``tag``."""
        if self._client is not None:
            future = self._client.submit(function, *arguments, pure=False, retries=2)
            self._completed.add(future)
        elif self._executor is not None:
            future = self._executor.submit(function, *arguments)
        else:
            self._serial.append((tag, function, arguments))
            return
        self._running[future] = tag

    def next(self) -> tuple[Hashable, Any]:
        """A finished task's tag and result (serially: the first submitted); IndexError when none is left."""
        if self._serial:
            tag, function, arguments = self._serial.popleft()
            return tag, function(*arguments)
        if not self._running:
            raise IndexError("no task is running")
        if self._completed is not None:
            future = next(self._completed)
            return self._running.pop(future), dask_result(future)
        from concurrent.futures import FIRST_COMPLETED, wait

        done = wait(list(self._running), return_when=FIRST_COMPLETED).done
        future = next(f for f in self._running if f in done)
        return self._running.pop(future), future.result()

    def close(self) -> None:
        """Forget the tasks not taken back; close the cluster's client or stop the local processes."""
        self._serial.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self._client is not None:
            for future in self._running:
                future.cancel()
            self._client.close()
            self._client = self._completed = None
        self._running.clear()
