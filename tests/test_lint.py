"""The linter's rules (``[tool.ruff]`` in pyproject.toml) hold over the whole tree; the type checker's over the code."""

from __future__ import annotations

import ast
import re
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


SEARCH_KERNELS = (
    "search.alphabeta:negamax",
    "search.alphabeta:quiesce",
    "search.chess.board:attacked",
    "search.chess.board:in_check",
    "search.chess.board:captures",
    "search.chess.board:pseudo_moves",
    "search.chess.board:make",
    "search.chess.engine:_negamax",
    "search.chess.engine:_quiesce",
    "search.retrograde:retrograde",
)
"""The per-node inner loops of the searches and the move generator, the only functions
allowed past the complexity limit (``# noqa: C901`` on their ``def`` line)."""

_LINTED = ("iam", "search", "experiments", "tests", "scripts", "benchmarks")


def _complexity_exemptions() -> set[str]:
    """``module:function`` of every ``def`` whose line carries ``noqa: C901`` or a bare ``noqa``."""
    found = set()
    for folder in _LINTED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            lines = source.splitlines()
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(source, filename=str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    comment = lines[node.lineno - 1].partition("#")[2]
                    if re.search(r"noqa(?!\s*:)|noqa\s*:[^#]*\bC901\b", comment):
                        found.add(f"{module}:{node.name}")
    return found


def test_only_search_kernels_are_exempt_from_the_complexity_limit():
    assert _complexity_exemptions() == set(SEARCH_KERNELS)


def test_the_type_checker_is_clean():
    """mypy (``[tool.mypy]`` in pyproject.toml) finds no error in iam/, search/ and experiments/."""
    pytest.importorskip("mypy", reason="mypy is installed with the test extra")
    found = subprocess.run(
        [sys.executable, "-m", "mypy", "iam", "search", "experiments"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert found.returncode == 0, found.stdout[-3000:] + found.stderr[-1000:]
