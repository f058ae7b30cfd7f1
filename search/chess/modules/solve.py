"""The nodes a search needs to solve a test position, and a suite's solve rate against a node budget.

A search with a node budget answers with the move of its deepest iteration completed within
the budget (quiescence nodes count). One iterative-deepening run to a cap therefore gives the
answer at every smaller budget: the cumulative nodes and move of each completed iteration
(:func:`trace`). A position is *solved from* the nodes of the first iteration after which
every answer up to the cap is one of its best moves (:func:`first_solved`); the suite's solve
rate at a budget is the share of positions solved from at most that budget
(:func:`solve_curve`), a rate that only grows with the budget. At the cap itself it is the
share a search with that budget solves.

Every position starts from cleared tables, killers and history, so its count does not
depend on the positions searched before it, and the counts are the same on any machine.

>>> first_solved([(100, "a"), (400, "b"), (900, "b")], {"b"})
400
>>> first_solved([(100, "b"), (400, "a")], {"b"}) is None
True
>>> nodes_to_rate([300, None, 100, 800], 0.5)
300
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import chess
import numpy as np

from search.chess.engine import ChessSearch
from search.result import Limits

__all__ = ["SuitePosition", "first_solved", "nodes_to_rate", "read_suite", "solve_curve", "solve_nodes", "trace"]

Move = TypeVar("Move")


@dataclass(frozen=True)
class SuitePosition:
    """A suite's position and the moves that solve it."""

    name: str
    board: chess.Board
    best: frozenset[chess.Move]


def read_suite(path: Path | str) -> list[SuitePosition]:
    """The positions of an EPD suite with best moves (``bm``); ValueError for a line without one."""
    positions = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        board, operations = chess.Board.from_epd(line)
        best = operations.get("bm")
        if not isinstance(best, list) or not best:
            raise ValueError(f"{path}:{number}: no best move (bm)")
        name = operations.get("id")
        positions.append(SuitePosition(str(name) if name else f"{Path(path).name}:{number}", board, frozenset(best)))
    return positions


def trace(search: ChessSearch, board: chess.Board, cap: int) -> list[tuple[int, chess.Move]]:
    """Each iteration completed within ``cap`` nodes: the nodes spent so far (quiescence included) and its move.

    The search's tables, killers and history are cleared first.
    """
    search.clear()
    iterations = []
    for result in search.iterate(board, Limits(nodes=cap)):
        spent = result.nodes + result.qnodes
        if spent > cap or result.move is None:
            break
        iterations.append((spent, result.move))
    return iterations


def first_solved(iterations: Sequence[tuple[int, Move]], best: Collection[Move]) -> int | None:
    """The nodes from which every iteration's move is one of ``best`` (None: the last one's is not)."""
    solved_from = None
    for spent, move in iterations:
        if move in best:
            if solved_from is None:
                solved_from = spent
        else:
            solved_from = None
    return solved_from


def solve_nodes(search: ChessSearch, suite: Sequence[SuitePosition], cap: int) -> list[int | None]:
    """Each position's :func:`first_solved` nodes with ``search`` traced to ``cap`` (None: unsolved at the cap)."""
    return [first_solved(trace(search, position.board, cap), position.best) for position in suite]


def solve_curve(solved: Sequence[int | None], budgets: Sequence[int]) -> np.ndarray:
    """The share of positions solved from at most each budget."""
    found = np.array([n for n in solved if n is not None], dtype=np.int64)
    return np.array([(found <= budget).sum() / len(solved) for budget in budgets], dtype=float)


def nodes_to_rate(solved: Sequence[int | None], rate: float) -> int | None:
    """The smallest budget at which the share solved reaches ``rate`` (None: not within the cap)."""
    needed = int(np.ceil(rate * len(solved) - 1e-9))
    found = sorted(n for n in solved if n is not None)
    if needed <= 0:
        return 0
    return found[needed - 1] if needed <= len(found) else None
