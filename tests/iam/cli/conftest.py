"""Fixtures of the command-line tests: a quickly trained move ranker and a few of its player's games."""

from __future__ import annotations

from pathlib import Path

import pytest

from iam.cli import main

QUICK = ["--families", "move,habits", "--train-positions", "300", "--search-depth", "1"]
"""The quickest ranker training (two families, few positions)."""


@pytest.fixture(scope="session")
def quick_ranker(bundled_head, made_once) -> Path:
    """A move ranker of Botvinnik trained on his first 40 bundled games, trained once per run (under pytest-xdist
    the workers of one run share it: ``made_once`` in tests/conftest.py)."""
    return made_once("quick-ranker-botvinnik.json.gz", lambda path: _train_quick_ranker(bundled_head, path))


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
