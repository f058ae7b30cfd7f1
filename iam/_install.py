"""What is installed: the toolkit's version, and the python-chess floor checked when ``iam`` is imported."""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["__version__", "CHESS_FLOOR", "chess_problem", "check_chess"]

__version__ = "0.18.0"

CHESS_FLOOR = (1, 10)
"""The oldest python-chess the toolkit runs with (pyproject.toml: chess>=1.10)."""


def chess_problem(version: str | None = None) -> str | None:
    """A one-line message when python-chess is missing or older than :data:`CHESS_FLOOR`, else None.

    >>> chess_problem("1.9.4").split(";")[0]
    'python-chess 1.9.4 is older than the 1.10 this toolkit needs'
    >>> chess_problem("1.11.2") is None
    True
    """
    if version is None:
        try:
            import chess
        except ImportError:
            return "python-chess is not installed; install it with: pip install 'chess>=1.10'"
        version = getattr(chess, "__version__", "0")
    found = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if found >= CHESS_FLOOR:
        return None
    floor = ".".join(map(str, CHESS_FLOOR))
    return (
        f"python-chess {version} is older than the {floor} this toolkit needs; "
        f"upgrade it with: pip install --upgrade 'chess>={floor}' (another package may pin an older one)"
    )


def check_chess() -> None:
    """Stop at once when python-chess is too old: ImportError for ``import iam``, one line and exit 2 for the command.

    The ``iam`` command (or ``python -m iam``) imports this package first, so the
    check runs here and speaks as the command when the command is what runs.
    """
    problem = chess_problem()
    if problem is None:
        return
    if Path(sys.argv[0]).name in ("iam", "iam.exe", "-m") if sys.argv else False:
        print(f"iam: error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    raise ImportError(problem)
