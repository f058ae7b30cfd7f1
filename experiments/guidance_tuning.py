"""Guidance tuning: choose how the opponent model steers the search, never on test games.

The guided search (:mod:`search.opponent.omsearch`) has a handful of knobs: which beliefs
extend a move, which reduce it, how confident the model must be before anything is
reduced, whether the table's move stays first. This experiment measures a grid of
settings the way :mod:`experiments.ply_gain` does (with :mod:`experiments.guided_depth`), but on
*development* positions:
positions of training games set aside (game ``i`` with ``i % 5 == 3``), searched
with a model fitted on the other training games. The test games are never read
for this. The defaults of :class:`search.opponent.omsearch.Guidance` are this experiment's
recommendation on the bundled Botvinnik games.

The recommendation rule, fixed before looking at the figures: among the settings
whose differing moves the reference engine does not judge worse on average (mean
centipawn difference, guided minus plain, at least ``-EQUAL_MARGIN_CP``), the one
with the largest mean nominal ply gain; without a reference engine, the largest
gain outright (and the table says that no move quality was checked).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.common import ExperimentResult
from experiments.guided_depth import (
    EQUAL_MARGIN_CP,
    SetupConfig,
    measure_all,
    prepare,
    summarise,
    summary_table,
)
from iam.errors import DataError
from search.opponent.omsearch import Guidance

NAME = "guidance-tuning"
HELP = "compare guidance settings of the guided search on development positions (training games only)"

DEFAULT_BUDGET = 20_000
DEFAULT_POSITIONS = 80


@dataclass(frozen=True)
class GuidanceTuningConfig(SetupConfig):
    """Guidance tuning: a node budget and which settings of the grid (:func:`settings`) to compare."""

    max_positions: int | None = DEFAULT_POSITIONS
    budget: int = DEFAULT_BUDGET
    """Node budget of every search (at least 10)."""
    only: tuple[str, ...] | None = None
    """A subset of the grid's setting names (None: all)."""


def settings() -> dict[str, Guidance]:
    """The grid: named variations of the guidance, one knob at a time, around a base."""
    base = Guidance(
        extend_at=0.3, extension=1, reduce_below=0.05, reduction=1, confidence=0.5, keep_first=True, min_depth=2
    )
    return {
        "base": base,
        "table move reducible": replace(base, reduce_first=True),
        "reduce<0.02": replace(base, reduce_below=0.02),
        "reduce<0.10": replace(base, reduce_below=0.10),
        "reduce by 2": replace(base, reduction=2),
        "no reductions": replace(base, reduction=0),
        "prune<0.02": replace(base, prune_below=0.02),
        "prune<0.05": replace(base, prune_below=0.05),
        "confidence 0.3": replace(base, confidence=0.3),
        "extend at 0.2": replace(base, extend_at=0.2),
        "predictions first": replace(base, keep_first=False),
        "model from 3 plies": replace(base, min_depth=3),
    }


def recommend(summary: pd.DataFrame) -> str:
    """The setting the rule in the module docstring picks."""
    candidates = summary
    if "reference_mean_cp_difference" in summary:
        difference = summary["reference_mean_cp_difference"].fillna(0.0)
        candidates = summary[difference >= -EQUAL_MARGIN_CP]
        if candidates.empty:
            candidates = summary
    return str(candidates.sort_values("mean_ply_gain_pct", ascending=False, kind="stable")["guidance"].iloc[0])


def run(config: GuidanceTuningConfig) -> ExperimentResult:
    """Tables ``summary`` (one row per setting, the recommended one marked), ``settings`` and ``rows``.

    >>> from experiments.common import GameSource
    >>> from experiments.guided_depth import LineJudge, PlayerModels
    >>> from iam.games.bundled import bundled_pgn
    >>> config = GuidanceTuningConfig(source=GameSource(pgn=str(bundled_pgn("botvinnik.pgn")), player="Botvinnik"),
    ...                               models=PlayerModels(train_games=20), max_positions=2, budget=200,
    ...                               only=("base", "no reductions"), judging=LineJudge(reference=False))
    >>> run(config).tables["summary"]["guidance"].tolist()
    ['base', 'no reductions']
    """
    grid = settings()
    if config.only is not None:
        names = [name.strip() for name in config.only if name.strip()]
        unknown = [name for name in names if name not in grid]
        if unknown or not names:
            raise DataError(f"unknown setting(s) {unknown}; choose from: {', '.join(grid)}")
        grid = {name: grid[name] for name in names}
    if config.budget < 10:
        raise DataError(f"budget must be at least 10 nodes, not {config.budget}")
    setup = prepare(config, split="dev")
    rows = measure_all(setup, [config.budget], grid, runtime=config.runtime, quiet=config.quiet)
    summary = summarise(rows, config.seed)
    order = {name: i for i, name in enumerate(grid)}
    summary = summary.sort_values("guidance", key=lambda names: names.map(order), kind="stable").reset_index(drop=True)
    chosen = recommend(summary)
    summary["recommended"] = summary["guidance"] == chosen
    settings_frame = pd.DataFrame([{"guidance": name, **asdict(g)} for name, g in grid.items()])
    payload = {
        **setup.describe(),
        "budget": config.budget,
        "settings": settings_frame.to_dict(orient="records"),
        "recommended": chosen,
        "summary": summary.to_dict(orient="records"),
        "rows": rows.to_dict(orient="records"),
    }
    lines = [
        f"# Guidance tuning: {setup.player}",
        "",
        f"{len(setup.positions)} positions of development games (training games with index % 5 == 3), "
        f"model fitted on the other {setup.train_games} training games; node budget {config.budget:,}. "
        "Test games are not read.",
        "",
        summary_table(summary, referenced=setup.reference is not None, with_guidance=True),
        "",
        "Settings:",
        "",
        settings_frame.to_markdown(index=False),
        "",
        f"Recommended (largest mean nominal ply gain among settings whose differing moves the "
        f"reference does not judge worse than -{EQUAL_MARGIN_CP} cp on average): **{chosen}**"
        + ("" if setup.reference is not None else " (no reference engine: move quality unchecked)"),
    ]
    return ExperimentResult(
        name=NAME,
        tables={"summary": summary, "settings": settings_frame, "rows": rows},
        payload=payload,
        markdown="\n".join(lines) + "\n",
        figures={"guidance_tuning": figure(summary)},
    )


def figure(summary: pd.DataFrame):
    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    y = np.arange(len(summary))
    ax.barh(y + 0.2, summary["mean_ply_gain_pct"], height=0.4, label="nominal depth")
    ax.barh(y - 0.2, summary["mean_line_gain_pct"], height=0.4, label="along the game's line")
    ax.set_yticks(y, summary["guidance"])
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("mean ply gain over plain alpha-beta (%)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
