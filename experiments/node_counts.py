"""Node counts (source note 001, "Statistics"): how many positions each improvement of the
search saves, at depths 1 to 5, from the opening position and a tactical middlegame.

Rows, each adding one improvement to the row above: minimax; alpha-beta (the game's
move order); + move ordering (MVV-LVA captures, killers, history); + quiescence
(captures and promotions past the horizon, counted in the nodes); + transposition
table (one fixed-depth search with a fresh table); + iterative deepening (depths 1..d
with one table, nodes of all iterations added up: the table's moves order each next
iteration). Every search runs under the time cap (the worker's budget); one that
runs out is stopped and its cell marked capped, as are the deeper cells of its row. A
cell whose time, extrapolated from the two depths before it, would exceed the cap is
not started at all (also marked).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import chess
import pandas as pd
from matplotlib.figure import Figure

from experiments.common import ExperimentConfig, ExperimentResult
from iam.errors import IAMError
from iam.progress import progress
from iam.runtime import map_in_order, runtime_from
from search import HeuristicOrderer, Limits, TranspositionTable, minimax, search
from search.alphabeta import AlphaBetaWorker, Budget, SearchAborted
from search.chess.evaluation import material_pst_evaluator
from search.chess.game import ChessGame

NAME = "node-counts"
HELP = "nodes searched by minimax, alpha-beta and each improvement, depths 1-5"

POSITIONS = {
    "start": chess.STARTING_FEN,
    # Scotch-like middlegame with pieces hanging on both sides: captures matter.
    "tactical": "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
}


@dataclass(frozen=True)
class Algorithm:
    """One row of the table: which improvements are switched on."""

    label: str
    pruning: bool = True
    ordering: bool = False
    quiescence: bool = False
    table: bool = False
    deepening: bool = False


ALGORITHMS = (
    Algorithm("minimax", pruning=False),
    Algorithm("alpha-beta"),
    Algorithm("+ move ordering", ordering=True),
    Algorithm("+ quiescence", ordering=True, quiescence=True),
    Algorithm("+ transposition table", ordering=True, quiescence=True, table=True),
    Algorithm("+ iterative deepening", ordering=True, quiescence=True, table=True, deepening=True),
)


@dataclass(frozen=True)
class NodeCountsConfig(ExperimentConfig):
    """Which positions, how deep, and how long each search may run."""

    max_depth: int = 5
    """Deepest search (1 to 8)."""
    time_cap: float = 60.0
    """Seconds each search may run; a search that runs out is capped."""
    positions: tuple[str, ...] = tuple(POSITIONS)
    """Some of :data:`POSITIONS`."""


def measure(algorithm: Algorithm, fen: str, depth: int, time_cap: float = 60.0) -> dict:
    """Run one search under a ``time_cap`` budget and return its row (nodes include
    quiescence nodes); a search that runs out of time gives a capped row."""
    game, evaluator = ChessGame(fen), material_pst_evaluator()
    board = game.initial_state()
    ordering = HeuristicOrderer() if algorithm.ordering else None
    table = TranspositionTable() if algorithm.table else None
    started = time.perf_counter()
    budget = Budget(deadline=started + time_cap)
    if algorithm.deepening:
        result = search(
            game, board, evaluator=evaluator, limits=Limits(depth=depth, time=time_cap),
            ordering=ordering, quiescence=algorithm.quiescence, table=table,
        )
        if result.depth < depth:
            return _capped(algorithm, depth, f"ran out of the {time_cap:g} s budget "
                           f"after {result.total_nodes:,} nodes (depth {result.depth} completed)")
        nodes, qnodes, value, move = result.total_nodes, result.qnodes, result.value, result.move
    elif not algorithm.pruning:
        try:
            result = minimax(game, board, depth=depth, evaluator=evaluator, budget=budget)
        except SearchAborted:
            return _capped(algorithm, depth, f"ran out of the {time_cap:g} s budget")
        nodes, qnodes, value, move = result.total_nodes, result.qnodes, result.value, result.move
    else:
        worker = AlphaBetaWorker(
            evaluator=evaluator, orderer=ordering, table=table,
            quiescence=algorithm.quiescence, policy=None, budget=budget,
        )
        try:
            value, move, _ = worker.root(game.cursor(board), depth)
        except SearchAborted:
            return _capped(algorithm, depth, f"ran out of the {time_cap:g} s budget "
                           f"after {worker.nodes + worker.qnodes:,} nodes")
        nodes, qnodes = worker.nodes + worker.qnodes, worker.qnodes
    return {
        "algorithm": algorithm.label,
        "depth": depth,
        "nodes": nodes,
        "qnodes": qnodes,
        "seconds": time.perf_counter() - started,
        "value": value,
        "move": move.uci() if move else None,
        "capped": False,
        "note": "",
    }


def _capped(algorithm: Algorithm, depth: int, note: str) -> dict:
    return {
        "algorithm": algorithm.label,
        "depth": depth,
        "nodes": None,
        "qnodes": None,
        "seconds": None,
        "value": None,
        "move": None,
        "capped": True,
        "note": note,
    }


def series(algorithm: Algorithm, position: str, max_depth: int, time_cap: float) -> list[dict]:
    """Rows for depths 1..max_depth; from the first capped depth on, every cell is capped."""
    rows: list[dict] = []
    for depth in range(1, max_depth + 1):
        if rows and rows[-1]["capped"]:
            rows.append(_capped(algorithm, depth, f"not run: depth {depth - 1} was capped"))
            continue
        if len(rows) >= 2:
            last, before = rows[-1], rows[-2]
            growth = last["nodes"] / max(1, before["nodes"])
            estimate_seconds = last["seconds"] * growth
            if estimate_seconds > time_cap:
                rows.append(_capped(
                    algorithm, depth,
                    f"not run: estimated at {last['nodes'] * growth:,.0f} nodes, "
                    f"{estimate_seconds:,.0f} s > {time_cap:g} s",
                ))
                continue
        rows.append(measure(algorithm, POSITIONS[position], depth, time_cap))
    for row in rows:
        row["position"] = position
    return rows


def run(config: NodeCountsConfig) -> ExperimentResult:
    """Table ``node_counts`` (one row per algorithm, position and depth), a payload, a summary, a plot.

    >>> result = run(NodeCountsConfig(max_depth=2, positions=("start",)))
    >>> table = result.tables["node_counts"]
    >>> table.loc[table["algorithm"] == "minimax", "nodes"].tolist()
    [21, 421]
    """
    positions = [p.strip() for p in config.positions if p.strip()]
    unknown = [p for p in positions if p not in POSITIONS]
    if unknown or not positions:
        raise IAMError(f"unknown position(s) {unknown}; choose from {', '.join(POSITIONS)}")
    if not 1 <= config.max_depth <= 8:
        raise IAMError(f"max_depth must be between 1 and 8, not {config.max_depth}")
    if config.time_cap <= 0:
        raise IAMError(f"time_cap must be positive seconds, not {config.time_cap}")
    tasks = [(a, p) for p in positions for a in ALGORITHMS]
    work = [(a, p, config.max_depth, config.time_cap) for a, p in tasks]
    finished = map_in_order(series, work, runtime_from(config.runtime))
    chunks = progress(finished, quiet=config.quiet, total=len(tasks), desc="series")
    rows = [row for chunk in chunks for row in chunk]
    table = pd.DataFrame(rows)[
        ["algorithm", "position", "depth", "nodes", "qnodes", "seconds", "value", "move", "capped", "note"]
    ]
    payload = {
        "experiment": NAME,
        "max_depth": config.max_depth,
        "time_cap_seconds": config.time_cap,
        "positions": {p: POSITIONS[p] for p in positions},
        "rows": table.astype(object).where(table.notna(), None).to_dict(orient="records"),
    }
    return ExperimentResult(
        name=NAME,
        tables={"node_counts": table},
        payload=payload,
        markdown=markdown(table, config.time_cap),
        figures={"node_counts": figure(table)},
    )


def _pivot(frame, column: str, fmt):
    labels = [a.label for a in ALGORITHMS]
    cells: dict[str, dict[str, str]] = {}
    for _, row in frame.iterrows():
        value = "capped*" if row["capped"] else fmt(row[column])
        cells.setdefault(row["algorithm"], {})[f"depth {row['depth']}"] = value
    pivot = pd.DataFrame.from_dict(cells, orient="index")
    return pivot.reindex([label for label in labels if label in pivot.index])


def _markdown_table(pivot) -> str:
    return pivot.to_markdown(disable_numparse=True, colalign=("left",) + ("right",) * pivot.shape[1])


def markdown(table, time_cap: float) -> str:
    """The source notes' layout: algorithms down, depths across; nodes, then seconds."""
    parts = ["# Node counts (source note 001, \"Statistics\")", ""]
    for position, frame in table.groupby("position", sort=False):
        parts += [f"## {position}: `{POSITIONS[position]}`", "", "Nodes searched:", ""]
        parts += [_markdown_table(_pivot(frame, "nodes", lambda v: f"{int(v):,}")), ""]
        parts += ["Search time (seconds):", ""]
        parts += [_markdown_table(_pivot(frame, "seconds", lambda v: f"{v:.2f}")), ""]
        parts += ["Best move (value in centipawns for the side to move) at the deepest depth run:", ""]
        for label in frame["algorithm"].unique():
            done = frame[(frame["algorithm"] == label) & ~frame["capped"].astype(bool)]
            if len(done):
                last = done.iloc[-1]
                parts.append(f"- {label}: {last['move']} ({last['value']:+.0f}) at depth {last['depth']}")
        notes = frame.loc[frame["capped"].astype(bool), "note"].unique()
        if len(notes):
            parts += ["", f"\\* capped at {time_cap:g} s per search:"]
            for label in frame["algorithm"].unique():
                capped = frame[(frame["algorithm"] == label) & frame["capped"].astype(bool)]
                if len(capped):
                    parts.append(f"- {label}: {capped.iloc[0]['note']}")
        parts.append("")
    parts += [
        "Nodes include quiescence nodes. Each row adds one improvement to the row above; "
        "'+ iterative deepening' adds up the nodes of depths 1..d searched with one table. "
        "Times are wall-clock seconds on this machine.",
    ]
    return "\n".join(parts)


def figure(table):
    """Nodes against depth on a log scale, one panel per position."""
    positions = list(table["position"].unique())
    fig = Figure(figsize=(6 * len(positions), 4))
    axes = fig.subplots(1, len(positions), squeeze=False)
    for ax, position in zip(axes[0], positions):
        frame = table[(table["position"] == position) & ~table["capped"].astype(bool)]
        for label in frame["algorithm"].unique():
            rows = frame[frame["algorithm"] == label]
            ax.plot(rows["depth"], rows["nodes"].astype(float), marker="o", label=label)
        ax.set_yscale("log")
        ax.set_xticks(sorted(table["depth"].unique()))
        ax.set_xlabel("depth (plies)")
        ax.set_ylabel("nodes searched")
        ax.set_title(position)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig
