"""The linter's rules (``[tool.ruff]`` in pyproject.toml) hold over the whole tree; the type checker's over the code."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
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
    "search.chess.board:_attacked",
    "search.chess.board:_in_check",
    "search.chess.board:_capture_keys",
    "search.chess.board:_pseudo_moves",
    "search.chess.board:_make",
    "search.chess.engine:_negamax",
    "search.chess.engine:_quiesce",
    "search.chess.engine:_root",
    "search.chess.engine:_guided_node",
    "search.chess.play:_play_node",
    "search.chess.play:_play_root",
    "search.chess.modules.kernels:_module_node",
    "search.chess.modules.kernels:_module_root",
    "search.retrograde:retrograde",
)
"""The per-node inner loops of the searches and the move generator, the only functions
allowed past the complexity limit (``# noqa: C901`` on their ``def`` line)."""

_LINTED = ("iam", "search", "experiments", "tests", "scripts", "benchmarks")


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once per session (the rules below only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _complexity_exemptions() -> set[str]:
    """``module:function`` of every ``def`` whose line carries ``noqa: C901`` or a bare ``noqa``."""
    found = set()
    for folder in _LINTED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(_parsed(path)):
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


MAX_PARAMETERS = 10

def _is_dataclass(node: ast.ClassDef) -> bool:
    """Whether ``node`` is decorated with ``dataclass`` or ``dataclasses.dataclass``, called or not."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (isinstance(target, ast.Name) and target.id == "dataclass") or (
            isinstance(target, ast.Attribute) and target.attr == "dataclass"
        ):
            return True
    return False


def _is_init_field(statement: ast.stmt) -> bool:
    """Whether a class body statement declares a dataclass field its constructor takes."""
    if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
        return False
    annotation = ast.unparse(statement.annotation)
    if "ClassVar" in annotation or "KW_ONLY" in annotation:
        return False
    value = statement.value
    if not (isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field"):
        return True
    return not any(
        keyword.arg == "init" and isinstance(keyword.value, ast.Constant) and keyword.value.value is False
        for keyword in value.keywords
    )


def _parameter_counts(tree: ast.AST, module: str) -> dict[str, int]:
    """``module:qualified name`` of every function, method and dataclass in ``tree`` and its parameters.

    A method's ``self`` or ``cls`` is not counted; a dataclass's parameters are its own
    fields, ClassVar and ``init=False`` ones left out.
    """
    counts: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = child.args
                names = [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                if in_class and names and names[0] in ("self", "cls"):
                    names = names[1:]
                counts[f"{module}:{prefix}{child.name}"] = (
                    len(names) + (args.vararg is not None) + (args.kwarg is not None)
                )
                visit(child, f"{prefix}{child.name}.", False)
            elif isinstance(child, ast.ClassDef):
                if _is_dataclass(child):
                    counts[f"{module}:{prefix}{child.name}"] = sum(map(_is_init_field, child.body))
                visit(child, f"{prefix}{child.name}.", True)
            else:
                visit(child, prefix, in_class)

    visit(tree, "", False)
    return counts


def test_no_function_or_dataclass_takes_more_than_ten_parameters():
    """Outside the search kernels, parameters that belong together are grouped in a settings object."""
    over = []
    for folder in ("iam", "search", "experiments"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            tree = _parsed(path)
            over += [
                f"{name} ({count})" for name, count in _parameter_counts(tree, module).items()
                if count > MAX_PARAMETERS and name not in SEARCH_KERNELS
            ]
    assert not over, "more than ten parameters: " + ", ".join(over)


def test_no_dataclass_takes_more_than_ten_fields_with_the_ones_it_inherits():
    """A config that extends another takes the other's fields too: together they stay within the limit."""
    over = []
    for folder in ("iam", "search", "experiments"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            if name.endswith("__main__"):
                continue
            module = importlib.import_module(name)
            for value in vars(module).values():
                if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
                    count = sum(field.init for field in dataclasses.fields(value))
                    qualified = f"{name}:{value.__qualname__}"
                    if count > MAX_PARAMETERS:
                        over.append(f"{qualified} ({count})")
    assert not over, "more than ten fields: " + ", ".join(over)


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def test_errors_below_the_cli_name_parameters_not_command_line_flags():
    """A notebook user is never told about a flag he did not type: only the CLI words errors as its flags."""
    found = []
    for folder in ("iam", "search", "experiments"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).parts[:2] == ("iam", "cli"):
                continue
            tree = _parsed(path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Raise) and node.exc is not None:
                    texts = [part.value for part in ast.walk(node.exc)
                             if isinstance(part, ast.Constant) and isinstance(part.value, str)]
                    found += [f"{path.relative_to(ROOT)}:{node.lineno} {flag}"
                              for text in texts for flag in _FLAG.findall(text)]
    assert not found, "flags in errors below the CLI: " + ", ".join(found)
