"""The import graph of iam, search and experiments: no cycle, and the layers point one way.

Every ``import`` counts, at the top of a module or inside a function: a cycle hidden
in a function is still a cycle. The layers, from the bottom: data (reading games, the
held-out protocol, and the small helpers every layer may use), search (generic search,
then the chess adapter), the model (the rest of iam/, with iam/ranker/), the
experiments, the CLI (iam/cli/ and ``python -m iam``). A module may import its own layer and the layers
below it, never one above. That generic search modules never import python-chess is
checked, even indirectly, by tests/search/test_generic_imports.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("iam", "search", "experiments")
LAYERS = (
    (
        "iam.errors", "iam.pgn", "iam.pgntext", "iam.bundled", "iam.heldout", "iam.player_games",
        "iam.progress", "iam.jsonsafe", "iam.filters", "iam.execution", "iam.collection", "iam.parquet_games",
        "iam.zstd_layout",
    ),
    ("search",),
    ("search.chess",),
    ("iam",),
    ("experiments",),
    ("iam.cli", "iam.__main__"),
)
"""Module prefixes of each layer, bottom first (the longest matching prefix decides)."""


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The toolkit's modules that ``name`` imports anywhere in its source."""
    targets = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    targets.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([base] if base else [])])
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    targets.add(f"{base}.{alias.name}")
                elif base in modules:
                    targets.add(base)
    return targets - {name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _layer(module: str) -> int:
    best, level = -1, -1
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), number
    return level


def test_the_graph_is_found():
    graph = _graph()
    assert len(graph) > 80
    assert "iam.model" in graph["iam.cli.train"] or "iam.predictors" in graph["iam.cli.train"]


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_layers_point_one_way():
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert upward == []


BUILD_ONLY = ("iam.ranker.build_prior", "iam.ranker.policy_data", "iam.ranker.fingerprint")
"""Modules that build the shipped artefacts (scripts/ and tests run them); nothing at run time imports them."""

BUILD_COMMANDS = ("iam.cli.prior",)
"""Commands that build (``iam prior build``): they import build code inside the function that runs, never at
the top, so the other commands, which import every command's module to register it, never load it."""


def test_build_code_is_not_imported_at_run_time():
    importing = sorted(
        f"{module} -> {target}"
        for module, targets in _graph().items()
        if module not in BUILD_ONLY and module not in BUILD_COMMANDS
        for target in targets
        if target in BUILD_ONLY
    )
    assert importing == []
    modules = _modules()
    for name in BUILD_COMMANDS:
        tree = ast.parse(modules[name].read_text(encoding="utf-8"))
        at_top = [node.module for node in tree.body if isinstance(node, ast.ImportFrom)]
        assert not [module for module in at_top if module in BUILD_ONLY], name


def test_lightgbm_is_imported_only_inside_the_functions_that_fit():
    """The residual trees are scored with numpy: a model loads and predicts without LightGBM installed."""
    at_top = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if any(found.split(".")[0] == "lightgbm" for found in names):
                at_top.append(name)
    assert at_top == []


RESEARCH_COMMANDS = ("iam.cli.experiment", "iam.cli.experiments")
"""The CLI's front doors to the experiments; every other command is a product command."""


def test_product_commands_import_no_experiment():
    importing = sorted(
        f"{module} -> {target}"
        for module, targets in _graph().items()
        if _layer(module) == len(LAYERS) - 1 and not any(module == p or module.startswith(p + ".") for p in RESEARCH_COMMANDS)
        for target in targets
        if target == "experiments" or target.startswith("experiments.")
    )
    assert importing == []
    assert "experiments.stylometry" in _graph()["iam.cli.experiments.stylometry"]  # the rule sees the front doors' imports
