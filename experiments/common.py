"""What every experiment shares: the base of its config, its result, and the writer of results.

An experiment is a function ``run(config) -> ExperimentResult`` of a frozen config
(a dataclass deriving from :class:`ExperimentConfig`, or, for stylometry, holding its seed and
runtime in the settings of its candidates); its result holds named pandas
DataFrames, a JSON payload, a markdown summary and optional figures.
:func:`write_result` writes one CSV per table, ``results.json``, ``summary.md`` and
one PNG per figure. The command line (:mod:`iam.cli.experiment`) turns options into
configs; nothing here reads options.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from iam.errors import DataError
from iam.games.filters import GameFilter
from iam.games.player_games import HeldOut, load_heldout
from iam.jsonsafe import finite
from iam.runtime import Runtime

__all__ = ["ExperimentConfig", "GameSource", "HeldOutConfig", "ExperimentResult", "load_games", "write_result"]


@dataclass(frozen=True)
class ExperimentConfig:
    """Settings every experiment takes."""

    seed: int = 0
    """Random seed of every sample, model and resample of the experiment."""
    runtime: Runtime = Runtime()
    """Where the independent work runs: its ``jobs`` worker processes, or its Dask scheduler (None:
    ``$IAM_SCHEDULER``, else the local processes; :mod:`iam.runtime`); and the engine and caches of the
    experiments that read them."""
    quiet: bool = False
    """No progress bars on stderr (they are off anyway when stderr is not a terminal)."""


@dataclass(frozen=True)
class GameSource:
    """Whose games an experiment reads: the file, the player, and the conditions on his games."""

    pgn: str | None = None
    """PGN file (None: the bundled games)."""
    player: str | None = None
    """Player to model (None with the bundled games: Botvinnik)."""
    games_filter: GameFilter | None = None
    """Conditions on the games' headers and length (:mod:`iam.games.filters`); splits keep their numbering."""


@dataclass(frozen=True)
class HeldOutConfig(ExperimentConfig):
    """Settings of an experiment on one player's held-out games (:mod:`iam.games.heldout`)."""

    source: GameSource = GameSource()
    """Whose games: the file, the player and the conditions on his games."""
    max_positions: int | None = None
    """At most this many test positions, sampled with ``seed`` (None: all)."""


@dataclass
class ExperimentResult:
    """What an experiment produced: tables, a JSON payload, a summary and figures."""

    name: str
    tables: dict[str, pd.DataFrame]
    payload: dict[str, Any]
    markdown: str
    figures: dict[str, Any] = field(default_factory=dict)  # name -> matplotlib Figure


def load_games(config: HeldOutConfig) -> HeldOut:
    """The player's games the config names (DataError on bad input)."""
    if config.max_positions is not None and config.max_positions < 1:
        raise DataError(f"max_positions must be at least 1 (or None for all), not {config.max_positions}")
    source = config.source
    return load_heldout(source.pgn, source.player, quiet=config.quiet, games_filter=source.games_filter)


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
