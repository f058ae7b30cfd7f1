"""Every Python example in the README runs as written, each on its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_a_readme_example_runs(number, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples save model files in the working folder
    code = compile(BLOCKS[number], f"README.md python example {number + 1}", "exec")
    exec(code, {"__name__": f"readme_example_{number + 1}"})
