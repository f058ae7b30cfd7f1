"""The results checker: it reads the pages' marked tables, compares figures at the page's precision, and the
quick tables of the results pages reproduce."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_results.py"
_spec = importlib.util.spec_from_file_location("check_results", SCRIPT)
check_results = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = check_results  # dataclasses look their module up while the script loads
_spec.loader.exec_module(check_results)

PAGE = """# A page

<!-- check quick: tool --json; table rows; where kind=a;
     row name; column size; value score -->
| name | size 1 | size 2 |
| --- | ---: | ---: |
| first | 0.431 | 1,032 |
| second | **0.120** | 7 |

Text after the table.
"""


def _output(first_small: float = 0.4312, first_large: int = 1032) -> dict:
    rows = [
        {"kind": "a", "name": "first", "size": 1, "score": first_small},
        {"kind": "a", "name": "first", "size": 2, "score": first_large},
        {"kind": "b", "name": "first", "size": 1, "score": 99.0},  # filtered out by `where`
        {"kind": "a", "name": "second", "size": 1, "score": 0.1204},
        {"kind": "a", "name": "second", "size": 2, "score": 7},
    ]
    return {"rows": rows}


def _page(tmp_path: Path) -> Path:
    path = tmp_path / "page.md"
    path.write_text(PAGE, encoding="utf-8")
    return path


def test_a_marker_is_read_with_its_fields():
    (marked,) = check_results.marked_tables(PAGE)
    assert marked.command == "tool --json"
    assert (marked.table, marked.row, marked.column, marked.value) == ("rows", "name", "size", "score")
    assert marked.where == {"kind": "a"} and marked.quick
    assert marked.text.startswith("| name |") and marked.text.rstrip().endswith("| 7 |")


def test_figures_equal_at_the_pages_precision_pass(tmp_path):
    assert check_results.check_page(_page(tmp_path), runner=lambda command: _output()) == []


@pytest.mark.parametrize("output", [_output(first_small=0.4326), _output(first_large=1033)])
def test_a_figure_that_differs_gives_a_diff(tmp_path, output):
    (diff,) = check_results.check_page(_page(tmp_path), runner=lambda command: output)
    assert "-| first | 0.431 | 1,032 |" in diff
    assert "\n+| first |" in diff and "\n-| second" not in diff


def test_update_rewrites_the_table_in_the_pages_format(tmp_path):
    path = _page(tmp_path)
    check_results.check_page(path, update=True, runner=lambda command: _output(first_small=0.5, first_large=12345))
    text = path.read_text(encoding="utf-8")
    assert "| first | 0.500 | 12,345 |" in text and "| second | **0.120** | 7 |" in text
    assert text.endswith("Text after the table.\n")
    assert check_results.check_page(path, runner=lambda command: _output(first_small=0.5, first_large=12345)) == []


def test_kept_outputs_are_reused_and_a_new_command_runs_once(tmp_path):
    calls = []

    def runner(command):
        calls.append(command)
        return _output()

    folder = tmp_path / "outputs"
    run = check_results.kept_runner(folder, runner)
    assert check_results.check_page(_page(tmp_path), runner=run) == []
    assert calls == ["tool --json"] and check_results.output_file(folder, "tool --json").is_file()
    # A kept output is read instead of running the command again, so a changed output on disk is what is compared.
    check_results.output_file(folder, "tool --json").write_text(
        json.dumps(_output(first_small=0.9)), encoding="utf-8")
    (diff,) = check_results.check_page(_page(tmp_path), runner=check_results.kept_runner(folder, runner))
    assert calls == ["tool --json"] and "+| first | 0.900 |" in diff
    assert check_results.output_file(folder, "a") != check_results.output_file(folder, "b")


def test_matching_updates_only_the_tables_whose_command_has_the_text(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(PAGE + "\n" + PAGE.replace("tool --json", "other --json").split("\n", 2)[2], encoding="utf-8")
    ran = []
    new = _output(first_small=0.5)
    diffs = check_results.check_page(path, update=True, runner=lambda command: ran.append(command) or new,
                                     matching="other")
    text = path.read_text(encoding="utf-8")
    assert ran == ["other --json"] and len(diffs) == 1
    assert text.count("| first | 0.431 | 1,032 |") == 1 and text.count("| first | 0.500 | 1,032 |") == 1
    assert text.index("0.431") < text.index("0.500")  # the first table (command "tool") is left as it was


def test_a_marker_without_its_fields_is_refused():
    with pytest.raises(ValueError, match="lacks"):
        check_results.marked_tables("<!-- check: tool; table rows -->\n| a |\n| --- |\n")


def test_the_quick_tables_of_the_results_pages_reproduce():
    pages = sorted((SCRIPT.parents[1] / "docs" / "results").glob("*.md"))
    quick = [page for page in pages if any(m.quick for m in check_results.marked_tables(page.read_text("utf-8")))]
    assert quick, "no results page marks a quick table"
    outputs: dict = {}
    for page in quick:
        assert check_results.check_page(page, quick=True, outputs=outputs) == [], page.name


NESTED = """<!-- check: tool --json; table runs.bands; row size; column band; value {hits}/{cases} ({rate:.0%}) -->
| size | low | high |
| ---: | :--- | :--- |
| 1 | 3/10 (30%) | 1/4 (25%) |
| 2 | 5/10 (50%) | 0/1 (0%) |
"""

FIELDS = """<!-- check: tool --json; table rows; row size; columns top1,ece -->
| size | top-1 | ECE |
| ---: | ---: | ---: |
| 1 | 0.080 | 0.058 |
| 2 | 0.113 | 0.026 |

<!-- check: tool --json; table rows; rows top-1=top1,ECE=ece; column size -->
| size | 1 | 2 |
| --- | ---: | ---: |
| top-1 | 0.080 | 0.113 |
| ECE | 0.058 | 0.026 |
"""


def _nested(hits: int = 3) -> dict:
    def band(name, hits, cases):
        return {"band": name, "hits": hits, "cases": cases, "rate": hits / cases}
    return {"runs": [{"size": 1, "bands": [band("low", hits, 10), band("high", 1, 4)]},
                     {"size": 2, "bands": [band("low", 5, 10), band("high", 0, 1)]}]}


def test_a_nested_table_and_a_cell_written_from_fields(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(NESTED, encoding="utf-8")
    assert check_results.check_page(path, runner=lambda command: _nested()) == []
    (diff,) = check_results.check_page(path, runner=lambda command: _nested(hits=4))
    assert "-| 1 | 3/10 (30%) | 1/4 (25%) |" in diff and "+| 1 | 4/10 (40%) | 1/4 (25%) |" in diff


def test_fields_as_columns_and_fields_as_rows(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(FIELDS, encoding="utf-8")
    rows = [{"size": 1, "top1": 0.0801, "ece": 0.0581}, {"size": 2, "top1": 0.1131, "ece": 0.0264}]
    assert check_results.check_page(path, runner=lambda command: {"rows": rows}) == []
    rows[1]["ece"] = 0.0271
    diffs = check_results.check_page(path, runner=lambda command: {"rows": rows})
    assert len(diffs) == 2
    assert "+| 2 | 0.113 | 0.027 |" in diffs[0] and "+| ECE | 0.058 | 0.027 |" in diffs[1]


TEXTS = """<!-- check: tool --json; table rows; where kind=a; row name;
     columns {top1:.3f} ({top1_lo:.3f}-{top1_hi:.3f}), ece -->
| name | top-1 | ECE |
| --- | ---: | ---: |
| linear | 0.442 (0.416-0.469) | 0.031 |
| trees | **0.450** (0.428-0.474) | **0.021** |
"""


def _texts(top1: float = 0.4501) -> dict:
    return {"rows": [
        {"kind": "a", "name": "linear", "top1": 0.4421, "top1_lo": 0.4159, "top1_hi": 0.469, "ece": 0.0312},
        {"kind": "b", "name": "other", "top1": 0.1, "top1_lo": 0.0, "top1_hi": 0.2, "ece": 0.5},
        {"kind": "a", "name": "trees", "top1": top1, "top1_lo": 0.428, "top1_hi": 0.474, "ece": 0.0209},
    ]}


def test_columns_written_from_fields_with_the_first_word_bold(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(TEXTS, encoding="utf-8")
    assert check_results.check_page(path, runner=lambda command: _texts()) == []
    (diff,) = check_results.check_page(path, runner=lambda command: _texts(top1=0.4612))
    assert "+| trees | **0.461** (0.428-0.474) | **0.021** |" in diff and "\n-| linear" not in diff
    check_results.check_page(path, update=True, runner=lambda command: _texts(top1=0.4612))
    assert "| trees | **0.461** (0.428-0.474) | **0.021** |" in path.read_text(encoding="utf-8")


LABELLED = """<!-- check: tool --json; table rows; row {name}, {size} games; columns top1 -->
| model | top-1 |
| --- | ---: |
| ranker, 12 games | 0.422 |
| ranker, 713 games | 0.450 |
"""


def test_a_row_label_written_from_several_fields(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(LABELLED, encoding="utf-8")
    rows = [{"name": "ranker", "size": 12, "top1": 0.4221}, {"name": "ranker", "size": 713, "top1": 0.4502}]
    assert check_results.check_page(path, runner=lambda command: {"rows": rows}) == []
    rows[0]["size"] = 13
    (diff,) = check_results.check_page(path, runner=lambda command: {"rows": rows})
    assert "+| ranker, 13 games | 0.422 |" in diff and "-| ranker, 12 games | 0.422 |" in diff
