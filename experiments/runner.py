"""The experiment registry and the writer every experiment shares.

To add an experiment, write a module with ``NAME``, ``HELP``, ``add_arguments`` and
``run`` (see :mod:`experiments.node_counts`) and list it in ``MODULES``. The runner
gives every experiment the same options: ``--seed``, ``--jobs``, ``--json``,
``--out DIR`` and ``--quiet``; ``--out`` writes one CSV per table, ``results.json``,
``summary.md`` and one PNG per figure.
"""

from __future__ import annotations

import argparse
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from iam.jsonsafe import finite

__all__ = ["MODULES", "ExperimentResult", "experiments", "add_common_arguments", "write_result"]

MODULES = (
    "experiments.node_counts",
    "experiments.belief_bands",
    "experiments.learning_curve",
    "experiments.ply_gain",
    "experiments.guidance_tuning",
    "experiments.ablation",
)


@dataclass
class ExperimentResult:
    """What an experiment produced: tables, a JSON payload, a summary and figures."""

    name: str
    tables: dict[str, Any]  # name -> pandas.DataFrame
    payload: dict[str, Any]
    markdown: str
    figures: dict[str, Any] = field(default_factory=dict)  # name -> matplotlib Figure


def experiments() -> dict[str, ModuleType]:
    """Every registered experiment module by its ``NAME``."""
    modules = [importlib.import_module(name) for name in MODULES]
    return {module.NAME: module for module in modules}


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every experiment takes."""
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print the JSON payload on stdout")
    parser.add_argument("--out", metavar="DIR", help="write CSV, JSON, markdown and PNG files here")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars on stderr")


def write_result(result: ExperimentResult, out: str | Path) -> list[Path]:
    """Write ``result`` into folder ``out``; returns the files written."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in result.tables.items():
        path = folder / f"{name}.csv"
        table.to_csv(path, index=False)
        written.append(path)
    path = folder / "results.json"
    path.write_text(json.dumps(finite(result.payload), indent=2) + "\n", encoding="utf-8")
    written.append(path)
    path = folder / "summary.md"
    path.write_text(result.markdown.rstrip() + "\n", encoding="utf-8")
    written.append(path)
    for name, figure in result.figures.items():
        path = folder / f"{name}.png"
        figure.savefig(path, dpi=120, bbox_inches="tight")
        written.append(path)
    return written
