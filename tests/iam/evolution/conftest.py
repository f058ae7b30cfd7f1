"""What the evolution's cluster tests share: killing a worker while it plays a deme's games."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

import pytest


@pytest.fixture
def kill_a_busy_worker() -> Callable[[object, dict, list], threading.Thread]:
    """Start a thread that SIGKILLs the first worker of ``client`` seen with a task (its pid from ``pids``,
    ``client.run(os.getpid)``), within 30 s; the killed worker's address goes into ``killed``."""

    def start(client, pids: dict, killed: list) -> threading.Thread:
        def kill() -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not killed:
                busy = [worker for worker, tasks in client.processing().items() if tasks]
                if busy:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(busy[0])
                time.sleep(0.02)

        thread = threading.Thread(target=kill, daemon=True)
        thread.start()
        return thread

    return start
