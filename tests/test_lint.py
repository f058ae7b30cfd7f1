"""The linter's rules (``[tool.ruff]`` in pyproject.toml) hold over the whole tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_is_clean():
    pytest.importorskip("ruff", reason="ruff is installed with the test extra")
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", str(ROOT)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert found.returncode == 0, found.stdout[-3000:] + found.stderr[-1000:]
