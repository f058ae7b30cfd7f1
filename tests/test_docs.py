"""The documentation reads as a manual: a short README, narrow lines, working links, and no development history
in the docs, docstrings or comments (what changed belongs in CHANGELOG.md)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
CODE_PACKAGES = ("iam", "search", "experiments", "benchmarks", "scripts")

MAX_README_LINES = 450
MAX_LINE = 120

HISTORY = [
    r"\b(?:this|the|that|last|next|earlier|previous|later|one|two|three) rounds?\b",
    r"\brounds? (?:before|after|ago)\b",
    r"\b(?:this|last|previous|next|earlier) sessions?\b",
    r"\bthe issue(?:'s)?\b",
    r"\bissue #?\d+\b",
    r"\bearlier versions?\b",
    r"\bthe old code\b",
    r"\bnow fixed\b",
    r"\bpreviously\b",
    r"\bformerly\b",
    r"\bused to (?:be|give|take)\b",
]
HISTORY_RE = re.compile("|".join(HISTORY), re.I)


def _prose_lines(path: Path) -> list[tuple[int, str]]:
    """Numbered lines of a markdown file outside fenced code blocks and tables."""
    lines, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced and not line.lstrip().startswith("|"):
            lines.append((number, line))
    return lines


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment and string token of a Python file: docstrings and comments among them."""
    found = []
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            found.append((token.start[0], token.string))
    return found


def _history_hits(text: str) -> list[str]:
    return [match.group(0) for match in HISTORY_RE.finditer(text)]


def test_the_history_patterns_find_what_they_should():
    assert _history_hits("measured this round, 147 s the round before")
    assert _history_hits("see the issue's targets; an earlier version reported +25%")
    assert not _history_hits("either way round: the number of boosting rounds; a session fixture")


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_README_LINES


def test_no_readme_line_is_too_wide_outside_code_and_tables():
    wide = [(number, len(line)) for number, line in _prose_lines(README) if len(line) > MAX_LINE]
    assert wide == []


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda path: str(path.relative_to(ROOT)))
def test_no_development_history_in_the_docs(path):
    text = path.read_text(encoding="utf-8")
    hits = [(number, _history_hits(line)) for number, line in enumerate(text.splitlines(), 1) if _history_hits(line)]
    assert hits == []


@pytest.mark.parametrize("package", CODE_PACKAGES)
def test_no_development_history_in_docstrings_and_comments(package):
    hits = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, text in _comments_and_docstrings(path):
            hits += [f"{path.relative_to(ROOT)}:{line}: {hit}" for hit in _history_hits(text)]
    assert hits == []


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_anchor(line.lstrip("#")) for _, line in _prose_lines(path) if line.startswith("#")}


def _relative_links(path: Path) -> list[str]:
    links = []
    for _, line in _prose_lines(path):
        links += [link for link in _LINK.findall(line) if not re.match(r"^[a-z]+:", link)]
    for line in path.read_text(encoding="utf-8").splitlines():  # links inside tables count too
        if line.lstrip().startswith("|"):
            links += [link for link in _LINK.findall(line) if not re.match(r"^[a-z]+:", link)]
    return links


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_and_anchor_that_exist(path):
    broken = []
    for link in _relative_links(path):
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            broken.append(link)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(link)
    assert broken == []


def test_the_anchor_rule_matches_githubs():
    assert _anchor("Reading the numbers") == "reading-the-numbers"
    assert _anchor("Files and caches") == "files-and-caches"
    assert _anchor("The engine in GUIs and match runners") == "the-engine-in-guis-and-match-runners"
