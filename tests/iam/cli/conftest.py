"""Fixtures of the command-line tests: a quickly trained move ranker and a few of its player's games."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from iam.cli import main

QUICK = ["--families", "move,habits", "--train-positions", "300", "--search-depth", "1"]
"""The quickest ranker training (two families, few positions)."""


@pytest.fixture(scope="session")
def quick_ranker(bundled_head, tmp_path_factory) -> Path:
    """A move ranker of Botvinnik trained on his first 40 bundled games.

    Under pytest-xdist the workers of one run share it: the first to need it trains it (the others wait on a lock)
    into the run's own temporary folder, which no other run reads.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return _train_quick_ranker(bundled_head, tmp_path_factory.mktemp("quick") / "botvinnik.json.gz")
    folder = tmp_path_factory.getbasetemp().parent  # this run's folder, holding each worker's own
    path = folder / "quick-ranker-botvinnik.json.gz"
    with open(folder / "quick-ranker.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            _train_quick_ranker(bundled_head, path.with_name("quick-ranker-partial.json.gz")).rename(path)
    return path


def _train_quick_ranker(bundled_head, path: Path) -> Path:
    argv = ["train", str(bundled_head(40)), "--player", "Botvinnik, Mikhail", *QUICK, "-o", str(path), "--quiet"]
    assert main(argv) == 0
    return path


@pytest.fixture(scope="session")
def later_games(tmp_path_factory) -> Path:
    """Botvinnik's bundled games 100 to 111, which the quick ranker never saw."""
    from iam.games.bundled import default_pgn

    text = default_pgn().read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("later") / "later.pgn"
    path.write_text("".join("[Event " + game for game in text.split("[Event ")[101:113]), encoding="utf-8")
    return path
