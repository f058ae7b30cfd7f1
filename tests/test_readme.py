"""Every Python example in the README runs as written, each on its own; the Python API section shows each step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
FENCE = re.compile(r"^```python\n(.*?)^```", flags=re.S | re.M)
BLOCKS = FENCE.findall(TEXT)
SECTION = TEXT[TEXT.index("## The Python API") :].split("\n## ", 1)[0]
API_BLOCKS = FENCE.findall(SECTION)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 4


def test_the_python_api_section_shows_each_step_of_a_notebook():
    code = "\n".join(API_BLOCKS)
    steps = ("load_player_games(", "print(report)", ".fit(", ".predict_proba(", ".explain(", "evaluate(",
             "score_positions(", "identify(", ".save(", ".load(")
    assert [step for step in steps if step not in code] == []


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_a_readme_example_runs(number, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the examples save model files in the working folder
    code = compile(BLOCKS[number], f"README.md python example {number + 1}", "exec")
    exec(code, {"__name__": f"readme_example_{number + 1}"})
    printed = capsys.readouterr().out
    if BLOCKS[number] in API_BLOCKS:
        assert printed and "nan" not in printed  # every figure and feature value it prints is a number
