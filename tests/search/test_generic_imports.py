"""search/ is generic: no module outside search/chess/ imports python-chess, even indirectly."""

import ast
import subprocess
import sys
from pathlib import Path

SEARCH = Path(__file__).resolve().parents[2] / "search"


def _generic_modules() -> list[Path]:
    return sorted(p for p in SEARCH.rglob("*.py") if "chess" not in p.relative_to(SEARCH).parts)


def _imported_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_generic_module_imports_chess_or_the_chess_package():
    offenders = {
        str(path.relative_to(SEARCH)): sorted(
            name for name in _imported_names(path)
            if name == "chess" or name.startswith("chess.") or name.startswith("search.chess")
        )
        for path in _generic_modules()
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) > 15  # the walk found the generic modules


def test_importing_every_generic_module_leaves_python_chess_unloaded():
    modules = [
        ".".join(("search", *path.relative_to(SEARCH).with_suffix("").parts)).removesuffix(".__init__")
        for path in _generic_modules()
    ]
    code = f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\nprint('chess' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=SEARCH.parent)
    assert out.stdout.strip() == "False"
