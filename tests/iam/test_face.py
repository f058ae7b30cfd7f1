"""The package's face: ``from iam import ...`` gives what a notebook user calls, loaded when first used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import iam


def test_every_public_name_is_the_object_its_module_defines():
    from iam.chunks.model import OpponentModel
    from iam.measure.evaluation import evaluate
    from iam.ranker.estimator import MoveRanker

    assert iam.MoveRanker is MoveRanker and iam.OpponentModel is OpponentModel and iam.evaluate is evaluate
    assert sorted(iam.__all__) == sorted(["__version__", *iam._PUBLIC])
    for name in iam._PUBLIC:
        assert getattr(iam, name).__module__ == iam._PUBLIC[name], name


def test_no_public_name_is_shadowed_by_a_sub_package():
    import iam.measure.evaluation  # noqa: F401  (importing a sub-package sets it on iam)
    import iam.prepare.dossier  # noqa: F401

    packages = {path.name for path in Path(iam.__file__).parent.iterdir() if (path / "__init__.py").exists()}
    assert sorted(set(iam._PUBLIC) & packages) == []


def test_an_unknown_name_is_an_attribute_error():
    try:
        iam.NotAThing  # noqa: B018
    except AttributeError as error:
        assert "NotAThing" in str(error)
    else:
        raise AssertionError("no AttributeError")


def test_importing_iam_loads_no_model_until_a_name_is_used():
    code = "import sys, iam; print(sorted(m for m in sys.modules if m.startswith('iam.') and m != 'iam._install'))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
