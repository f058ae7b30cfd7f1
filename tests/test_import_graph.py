"""The import graph of iam, search and experiments: the folders are the layers, and they point one way.

Every ``import`` counts, at the top of a module or inside a function: a cycle hidden
in a function is still a cycle. A layer is a folder (a package: ``iam/games/``,
``search/chess/``, ``experiments/`` ...); the modules directly in ``iam/`` are what
every layer shares (errors, progress, where work runs) and import no package of the
toolkit; ``iam/__init__.py`` is the package's face, which nothing inside imports;
``iam/cli/`` (with ``python -m iam``) is the top floor, which nothing imports. The
floors are not listed by hand: they are derived from the packages' imports (a
package sits one floor above the highest package it imports), so an arrow that ran
back up would be a cycle between packages, and the test fails on it.
docs/architecture.md shows the derived floors; a test keeps it true. That generic
search modules never import python-chess is checked, even indirectly, by
tests/search/test_generic_imports.py.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("iam", "search", "experiments")
SHARED = "iam"
"""The layer of the modules directly in iam/ (errors, progress, jsonsafe, runtime, _install)."""
FACE = "iam (face)"
"""The package's face: ``iam/__init__.py``, what a notebook user imports."""
CLI = "iam.cli"


@functools.cache
def _modules() -> dict[str, Path]:
    """Every module of the toolkit and its file (read once per session: the tests only read it)."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The toolkit's modules that ``name`` imports anywhere in its source."""
    targets: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= _import_targets(node, modules)
        elif isinstance(node, ast.ImportFrom):
            targets |= _import_from_targets(node, package, modules)
    return targets - {name}


def _import_targets(node: ast.Import, modules: dict[str, Path]) -> set[str]:
    """The toolkit's modules an ``import a.b.c`` names (the deepest known prefix of each)."""
    targets = set()
    for alias in node.names:
        target = alias.name
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target:
            targets.add(target)
    return targets


def _import_from_targets(node: ast.ImportFrom, package: str, modules: dict[str, Path]) -> set[str]:
    """The toolkit's modules a ``from ... import`` in ``package`` names (submodules, else the module)."""
    targets = set()
    base = node.module or ""
    if node.level:
        parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join([*parts, *([base] if base else [])])
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            targets.add(f"{base}.{alias.name}")
        elif base in modules:
            targets.add(base)
    return targets


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Module -> the toolkit's modules it imports (derived once per session: the tests only read it)."""
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
                component = _pop_component(stack, on_stack, node)
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _pop_component(stack: list[str], on_stack: set[str], node: str) -> list[str]:
    """Pop the strongly connected component whose root is ``node`` off Tarjan's stack."""
    component = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.append(member)
        if member == node:
            return component


def layer_of(module: str) -> str:
    """The layer a module belongs to: its package folder; a package's ``__init__`` is that package's face."""
    if module == "iam.__main__" or module == CLI or module.startswith(CLI + "."):
        return CLI
    path = _modules()[module]
    if path.name == "__init__.py":
        return f"{module} (face)"
    package = module.rpartition(".")[0]
    return SHARED if package == "iam" else package


def layer_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Layer -> the other layers its modules import."""
    layers: dict[str, set[str]] = {layer_of(module): set() for module in graph}
    for module, targets in graph.items():
        for target in targets:
            if layer_of(target) != layer_of(module):
                layers[layer_of(module)].add(layer_of(target))
    return layers


def floors(layers: dict[str, set[str]]) -> dict[str, int]:
    """Each layer's floor: 0 when it imports no layer, else one above the highest layer it imports."""
    found: dict[str, int] = {}

    def floor(layer: str) -> int:
        if layer not in found:
            found[layer] = 1 + max((floor(below) for below in layers[layer]), default=-1)
        return found[layer]

    for layer in sorted(layers):
        floor(layer)
    return found


def test_the_graph_is_found():
    graph = _graph()
    assert len(graph) > 80
    assert "iam.chunks.model" in graph["iam.cli.train"] or "iam.measure.predictors" in graph["iam.cli.train"]


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_layers_point_one_way():
    """No cycle between packages: every arrow points to a lower floor."""
    layers = layer_graph(_graph())
    assert _cycles(layers) == []
    derived = floors(layers)
    assert all(derived[below] < derived[layer] for layer, targets in layers.items() for below in targets)


def test_a_package_cycle_is_an_arrow_running_back_up():
    layers = {"low": set(), "mid": {"low"}, "high": {"mid", "low"}}
    assert floors(layers) == {"low": 0, "mid": 1, "high": 2} and _cycles(layers) == []
    layers["low"] = {"high"}
    assert _cycles(layers) == [["high", "low", "mid"]]


def test_the_cli_is_the_top_floor_and_nothing_imports_it():
    layers = layer_graph(_graph())
    derived = floors(layers)
    assert derived[CLI] == max(derived.values())
    assert sorted(layer for layer, targets in layers.items() if CLI in targets) == []


def test_the_shared_modules_import_no_package_and_nothing_imports_the_face():
    layers = layer_graph(_graph())
    assert layers[SHARED] == set()
    assert sorted(layer for layer, targets in layers.items() if FACE in targets) == []


def test_search_imports_nothing_of_the_model():
    layers = layer_graph(_graph())
    assert sorted(
        f"{layer} -> {target}" for layer, targets in layers.items() if layer.startswith("search")
        for target in targets if not target.startswith("search")
    ) == []


def test_the_architecture_page_shows_the_derived_floors():
    """docs/architecture.md lists each floor's packages (top first, faces left out) between its two markers."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = re.search(r"<!-- floors -->\n```\n(.*?)```\n<!-- /floors -->", text, re.S)
    assert listed is not None, "docs/architecture.md has no floors block"
    derived = floors(layer_graph(_graph()))
    shown = [sorted(layer for layer in derived if derived[layer] == number and "(face)" not in layer)
             for number in range(max(derived.values()) + 1)]
    expected = "".join(f"{'  '.join(floor)}\n" for floor in reversed(shown) if floor)
    assert listed.group(1) == expected, "docs/architecture.md's floors differ from the imports:\n" + expected


def test_no_package_holds_more_than_fifteen_modules_and_iam_keeps_five():
    modules = _modules()
    per_folder: dict[str, int] = {}
    for name, path in modules.items():
        if path.name != "__init__.py":
            folder = name.rpartition(".")[0]
            per_folder[folder] = per_folder.get(folder, 0) + 1
    assert sorted(folder for folder, count in per_folder.items() if count > 15) == []
    top = sorted(name for name in modules if name.count(".") == 1 and layer_of(name) == SHARED)
    assert len(top) <= 5, top


BUILD_ONLY = ("iam.ranker.build_prior", "iam.evidence.policy_data", "iam.evidence.fingerprint")
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
        if layer_of(module) == CLI and not any(module == p or module.startswith(p + ".") for p in RESEARCH_COMMANDS)
        for target in targets
        if target == "experiments" or target.startswith("experiments.")
    )
    assert importing == []
    # the rule sees the front doors' imports
    assert "experiments.stylometry" in _graph()["iam.cli.experiments.stylometry"]
