"""Re-run the marked tables of the results pages and compare their figures with the pages.

    python scripts/check_results.py --check [PAGE ...]     # exit 1 with a diff when a figure differs
    python scripts/check_results.py --check --quick        # only the tables marked quick
    python scripts/check_results.py --update PAGE          # rewrite the marked tables from the output
    python scripts/check_results.py --list                 # the marked tables and their commands
    python scripts/check_results.py --check --outputs DIR  # keep each command's JSON in DIR, reuse what is there
    python scripts/check_results.py --update --matching "--search-depth 1" PAGE  # only tables whose command has it

A table is marked by an HTML comment on the line before it, fields separated by semicolons:

    <!-- check quick: iam experiment node-counts --max-depth 3 --quiet --json; table rows;
         where position=start; row algorithm; column depth; value nodes -->

The command (``iam ...`` runs as ``python -m iam ...``, ``python`` is this Python) prints JSON;
``table`` names the list of records in it, ``where`` keeps the records whose fields have these values (``k=v,k=v``), and
``row``, ``column`` and ``value`` say which field gives the table's first column, its other
columns (in order of appearance) and its cells. ``quick`` marks a table whose command takes
well under 30 seconds. Three more forms:

- ``table runs.bands``: the records of each record's list ``bands``, each with its parent's fields;
- ``value {hits}/{predictions} ({rate:.0%})``: a cell written from the record's fields, compared as text;
- ``columns F,G,...`` (instead of ``column`` and ``value``): one record a row, its fields ``F, G, ...`` the
  cells, each a field or a ``{...}`` text (no comma) as in ``value``, and ``row`` a field or a ``{...}`` text
  (``row {predictor}, {train_games} games``); ``rows LABEL=F,...`` (instead of ``row`` and
  ``value``): one record a column, the row ``LABEL`` taking its cell from the field (or text) ``F``.
Numbers are compared at the precision the page shows them (``9,323`` exactly, ``0.431`` to three decimals); other
cells as text. Bold is kept as the page has it: a cell's whole text, or (``**0.450** (0.428-0.474)``) its first
word. Each command runs once per call.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Marked", "marked_tables", "expected_cells", "check_page", "output_file", "main"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
_MARKER = re.compile(r"^<!--\s*check( quick)?:(.*?)-->[ \t]*\n((?:\|[^\n]*\n?)+)", re.S | re.M)
_NUMBER = re.compile(r"^[+-]?[\d,]*\.?\d+$")

Runner = Callable[[str], Any]


@dataclass(frozen=True)
class Marked:
    """One marked table of a page: its command, how to read the output, and where it sits."""

    command: str
    table: str
    where: dict[str, str]
    row: str | None
    column: str | None
    value: str | None
    quick: bool
    start: int  # offset of the table's first line in the page
    end: int
    text: str  # the table as the page has it
    columns: tuple[str, ...] = ()  # fields that are the columns, one record a row
    rows: tuple[tuple[str, str], ...] = ()  # (label, field) rows, one record a column


def marked_tables(page: str) -> list[Marked]:
    """Every marked table of a page's text; ``ValueError`` for a marker that lacks a field."""
    tables = []
    for match in _MARKER.finditer(page):
        parts = [part.strip() for part in " ".join(match.group(2).split()).split(";")]
        fields = dict(part.split(" ", 1) for part in parts[1:] if part)
        if "columns" in fields:
            needed = {"table", "row", "columns"}
        elif "rows" in fields:
            needed = {"table", "rows", "column"}
        else:
            needed = {"table", "row", "column", "value"}
        missing = needed - fields.keys()
        if missing:
            raise ValueError(f"check marker {parts[0]!r} lacks {', '.join(sorted(missing))}")
        where = dict(item.split("=", 1) for item in fields.get("where", "").split(",") if item)
        columns = tuple(item.strip() for item in fields.get("columns", "").split(",") if item.strip())
        rows = tuple(tuple(part.strip() for part in item.split("=", 1))
                     for item in fields.get("rows", "").split(",") if item.strip())
        if any(len(pair) != 2 for pair in rows):
            raise ValueError(f"check marker {parts[0]!r}: rows are LABEL=FIELD")
        tables.append(
            Marked(parts[0], fields["table"], where, fields.get("row"), fields.get("column"), fields.get("value"),
                   bool(match.group(1)), match.start(3), match.end(3), match.group(3), columns, rows)
        )
    return tables


def run_command(command: str) -> Any:
    """The JSON a command prints; ``iam ...`` runs in this Python as ``python -m iam ...``, ``python ...`` in it."""
    argv = shlex.split(command)
    if argv and argv[0] == "iam":
        argv = [sys.executable, "-m", "iam", *argv[1:]]
    elif argv and argv[0] in ("python", "python3"):
        argv = [sys.executable, *argv[1:]]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def output_file(folder: Path, command: str) -> Path:
    """Where ``--outputs`` keeps a command's JSON: a file named by a hash of the command."""
    return folder / f"{hashlib.sha256(command.encode()).hexdigest()[:16]}.json"


def kept_runner(folder: Path, runner: Runner = run_command) -> Runner:
    """A runner that reads a command's JSON from ``folder`` when it is there, else runs it and keeps its output."""

    def run(command: str) -> Any:
        path = output_file(folder, command)
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
        output = runner(command)
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(output), encoding="utf-8")
        return output

    return run


def records(output: Any, table: str) -> list[dict[str, Any]]:
    """The records a ``table`` path names: ``a`` the list ``a``, ``a.b`` each record's list ``b`` under its
    parent's fields."""
    found: list[dict[str, Any]] = [output]
    for name in table.split("."):
        found = [{**{k: v for k, v in parent.items() if k != name}, **child}
                 for parent in found for child in parent[name]]
    return found


def _cell(record: dict[str, Any], value: str) -> Any:
    """A record's field, or with ``{...}`` in ``value`` the text it formats from the record's fields."""
    return value.format_map(record) if "{" in value else record[value]


def expected_cells(marked: Marked, output: Any) -> dict[str, dict[str, Any]]:
    """``{row: {column: value}}`` from a command's output, rows and columns in order of appearance."""
    cells: dict[str, dict[str, Any]] = {}
    for record in records(output, marked.table):
        if not all(str(record.get(key)) == value for key, value in marked.where.items()):
            continue
        if marked.columns:
            cells.setdefault(str(_cell(record, marked.row)), {}).update(
                {name: _cell(record, name) for name in marked.columns})
        elif marked.rows:
            for label, name in marked.rows:
                cells.setdefault(label, {})[str(record[marked.column])] = _cell(record, name)
        else:
            cells.setdefault(str(_cell(record, marked.row)), {})[str(record[marked.column])] = _cell(
                record, marked.value
            )
    return cells


def _split(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _format(value: Any, like: str) -> str:
    """``value`` written as the page writes ``like``: its decimals, thousands separators and bold."""
    bare = like.strip("*")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = str(value)
    else:
        numeric = bool(_NUMBER.match(bare))
        decimals = len(bare.split(".")[1]) if numeric and "." in bare else 0
        text = f"{value:,.{decimals}f}"
        if numeric and "," not in bare:
            text = text.replace(",", "")
    if not like.startswith("**"):
        return text
    if like.find("**", 2) < len(like) - 2:  # only the first word is bold
        head, space, tail = text.partition(" ")
        return f"**{head}**{space}{tail}"
    return f"**{text}**"


def rendered(marked: Marked, output: Any) -> str:
    """The marked table with its body cells rewritten from the output, header kept."""
    lines = marked.text.rstrip("\n").split("\n")
    header = _split(lines[0])
    page_rows = {_split(line)[0]: _split(line) for line in lines[2:]}
    first = _split(lines[2]) if len(lines) > 2 else []  # a row the page lacks is written as its first row is
    body = []
    for row, values in expected_cells(marked, output).items():
        old = page_rows.get(row, first)
        cells = [row]
        for index, value in enumerate(values.values(), start=1):
            like = old[index] if index < len(old) else ""
            cells.append(_format(value, like))
        body.append("| " + " | ".join(cells) + " |")
    if body and len(_split(body[0])) != len(header):
        raise ValueError(f"{marked.command!r}: the table has {len(header)} columns, the output {len(_split(body[0]))}")
    return "\n".join([*lines[:2], *body]) + "\n"


def _same(page_line: str, new_line: str) -> bool:
    return _split(page_line) == _split(new_line)


def check_page(path: Path, *, quick: bool = False, update: bool = False, runner: Runner = run_command,
               outputs: dict[str, Any] | None = None, matching: str = "") -> list[str]:
    """Check (or with ``update`` rewrite) a page's marked tables; returns one diff per table that differs.

    ``matching``: only the tables whose command contains this text (the others are left as they are).
    """
    outputs = {} if outputs is None else outputs
    page = path.read_text(encoding="utf-8")
    diffs, pieces, last = [], [], 0
    for marked in marked_tables(page):
        if (quick and not marked.quick) or matching not in marked.command:
            continue
        if marked.command not in outputs:
            outputs[marked.command] = runner(marked.command)
        new = rendered(marked, outputs[marked.command])
        old_lines, new_lines = marked.text.rstrip("\n").split("\n"), new.rstrip("\n").split("\n")
        if len(old_lines) != len(new_lines) or not all(map(_same, old_lines, new_lines)):
            diffs.append("".join(difflib.unified_diff(
                [line + "\n" for line in old_lines], [line + "\n" for line in new_lines],
                f"{path.name} (page)", f"{marked.command} (output)")))
        pieces += [page[last:marked.start], new]
        last = marked.end
    if update:
        path.write_text("".join(pieces) + page[last:], encoding="utf-8")
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="re-run and compare; exit 1 when a figure differs")
    mode.add_argument("--update", action="store_true", help="re-run and rewrite the marked tables")
    mode.add_argument("--list", action="store_true", help="list the marked tables and their commands")
    parser.add_argument("--quick", action="store_true", help="only the tables marked quick")
    parser.add_argument("--outputs", type=Path, metavar="DIR",
                        help="keep each command's JSON in DIR and reuse the JSON already there instead of re-running")
    parser.add_argument("--matching", default="", metavar="TEXT",
                        help="only the tables whose command contains TEXT")
    parser.add_argument("pages", nargs="*", type=Path, help="results pages (default: every page of docs/results/)")
    args = parser.parse_args(argv)
    pages = args.pages or sorted(RESULTS.glob("*.md"))
    outputs: dict[str, Any] = {}
    runner = kept_runner(args.outputs) if args.outputs else run_command
    failed = False
    for path in pages:
        if not path.is_file():
            print(f"check_results: error: no such page: {path}", file=sys.stderr)
            return 2
        if args.list:
            for marked in marked_tables(path.read_text(encoding="utf-8")):
                if args.matching not in marked.command:
                    continue
                kept = f" [{output_file(args.outputs, marked.command).name}]" if args.outputs else ""
                print(f"{path.name}: {'quick ' if marked.quick else ''}{marked.command}{kept}")
            continue
        try:
            diffs = check_page(path, quick=args.quick, update=args.update, runner=runner, outputs=outputs,
                               matching=args.matching)
        except (RuntimeError, ValueError, KeyError) as exc:
            print(f"check_results: error: {path.name}: {exc}", file=sys.stderr)
            return 2
        for diff in diffs:
            print(diff)
        failed |= bool(diffs) and not args.update
        if not args.update:
            print(f"{path.name}: {'differs' if diffs else 'ok'}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
