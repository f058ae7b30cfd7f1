"""Every module with logic has its own test module, at the path that mirrors it.

``iam/games/sides.py`` is tested in ``tests/iam/games/test_sides.py``, ``search/chess/uci/clock.py``
in ``tests/search/chess/uci/test_clock.py`` (a leading underscore is dropped: ``iam/_install.py`` in
``tests/iam/test_install.py``). A module with logic defines a function or a class; a package's face
and its ``__main__`` are not counted. A reader who opens a module knows where its tests are.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TESTED_ELSEWHERE = {
    "iam/cli/experiments/_predictions.py": "tests/experiments/test_predictions.py",
    "iam/cli/experiments/ablation.py": "tests/experiments/test_ablation.py",
    "iam/cli/experiments/judge_depth.py": "tests/experiments/development/test_judge_depth.py",
    "iam/cli/experiments/ranker_depth.py": "tests/experiments/development/test_ranker_depth.py",
    "iam/cli/experiments/belief_bands.py": "tests/experiments/test_belief_bands.py",
    "iam/cli/experiments/exploit.py": "tests/experiments/test_exploit.py",
    "iam/cli/experiments/guidance_tuning.py": "tests/experiments/test_guidance_tuning.py",
    "iam/cli/experiments/learning_curve.py": "tests/experiments/test_learning_curve.py",
    "iam/cli/experiments/node_counts.py": "tests/experiments/test_node_counts.py",
    "iam/cli/experiments/ply_gain.py": "tests/experiments/test_ply_gain.py",
    "iam/cli/experiments/ponder.py": "tests/experiments/test_ponder.py",
    "iam/cli/experiments/prepare.py": "tests/experiments/test_prepare.py",
    "iam/cli/experiments/stylometry.py": "tests/experiments/test_stylometry.py",
    "iam/cli/experiments/evolution/evolve.py": "tests/experiments/evolution/test_evolve.py",
}
"""The experiments' command lines, tested with their experiment (each test module runs both)."""


def _has_logic(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def mirror_of(module: Path) -> Path:
    """The test module of ``module`` (a path relative to the repository's root)."""
    return Path("tests") / module.parent / f"test_{module.stem.lstrip('_')}.py"


def test_every_module_with_logic_has_its_own_test_module():
    missing = []
    for folder in ("iam", "search", "experiments"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = path.relative_to(ROOT)
            if path.stem in ("__init__", "__main__") or not _has_logic(path):
                continue
            expected = Path(TESTED_ELSEWHERE.get(module.as_posix(), mirror_of(module)))
            if not (ROOT / expected).is_file():
                missing.append(f"{module} -> {expected}")
    assert not missing, "modules without their test module:\n" + "\n".join(missing)


def test_the_modules_tested_elsewhere_exist_and_so_do_their_tests():
    for module, tests in TESTED_ELSEWHERE.items():
        assert (ROOT / module).is_file(), module
        assert (ROOT / tests).is_file(), tests
