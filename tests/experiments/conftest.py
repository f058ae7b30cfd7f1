"""Shared pieces of the experiment tests: a small PGN and a runner for the prediction experiments."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from iam.cli import main as iam_main


@pytest.fixture(scope="session")
def botvinnik40(bundled_head) -> Path:
    """Botvinnik's first 40 bundled games (32 training, 8 test games)."""
    return bundled_head(40)


def run_json(*argv: str) -> dict:
    """Run ``iam`` with ``argv`` and ``--json --quiet``; the parsed stdout."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = iam_main([*argv, "--json", "--quiet"])
    assert code == 0
    return json.loads(buffer.getvalue())


def run_on(pgn: Path, experiment: str, *options: str) -> dict:
    """Run a prediction experiment on Botvinnik's games in ``pgn``; its JSON."""
    return run_json("experiment", experiment, "--pgn", str(pgn), "--player", "Botvinnik", *options)
