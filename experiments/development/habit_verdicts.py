"""Habit verdicts: do the costly habits and the first move of a dossier without an engine agree with stockfish's?

For each bundled master and each of his colours, a dossier is built from his development
games alone (the held-out protocol's ``i % 5 == 3``; his test games are never read), as
``iam prepare`` builds it from a file of those games: the default model fitted on them, the
population book, his games. Two judges build the same side from the same beliefs: the
toolkit's own search (the no-engine dossier) and a UCI engine (the engine dossier).

* :func:`habit_rows`: each costly habit the no-engine side lists, its cost by the own
  search and by the reference (the engine at ``reference_depth``, best ``lines`` moves,
  others by the position they lead to, as the dossier scores them); an entry *agrees* when
  both costs have the same sign and differ by at most :data:`COST_TOLERANCE` centipawns.
* :func:`first_move_row`: the recommended first move of each side, ours: the first move
  when he has Black, our answer to his most believed first move when he has White.

:func:`summary` sums both up against :data:`HABIT_AGREEMENT` and :data:`FIRST_MOVE_AGREEMENT`.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import pandas as pd

from iam.prepare.agreement import move_loss
from iam.prepare.dossier import SideDossier
from iam.prepare.scoring import MoveScorer, beyond_lines, score_all

__all__ = [
    "COST_TOLERANCE", "HABIT_AGREEMENT", "FIRST_MOVE_AGREEMENT", "habit_rows", "recommended_first_move",
    "first_move_row", "summary", "masters_table", "JUDGE_SECONDS", "choose_depth",
]

COST_TOLERANCE = 30
"""Centipawns within which the two judges' costs of a habit agree (with the same sign)."""
HABIT_AGREEMENT = 0.8
"""Share of the listed habits that must agree for the no-engine dossier to list them."""
FIRST_MOVE_AGREEMENT = 5
"""Masters (of six) per colour whose recommended first move must be the engine dossier's."""
JUDGE_SECONDS = 60.0
"""CPU seconds the own search may spend on one side of a dossier (median over the masters and colours) for its
depth to be a candidate judge (:func:`choose_depth`)."""


def habit_rows(player: str, side: SideDossier, reference: MoveScorer) -> list[dict]:
    """One row per costly habit ``side`` lists: where it is, his move, the cost by the side's judge (``cost``) and
    by ``reference`` (``reference_cost``), and whether they agree (``agrees``)."""
    boards = [chess.Board(habit.fen) for habit in side.habits]
    moves = [chess.Move.from_uci(habit.usual) for habit in side.habits]
    score_all(reference, boards)
    score_all(reference, [
        after for board, move in zip(boards, moves) for after in beyond_lines(reference, board, [move])
    ])
    rows = []
    for habit, board, move in zip(side.habits, boards, moves):
        theirs = move_loss(reference, board, move)
        rows.append({
            "player": player, "color": chess.COLOR_NAMES[side.color], "fen": habit.fen, "move": habit.usual_san,
            "source": habit.frequency.source, "cost": habit.cost, "reference_cost": theirs,
            "agrees": bool(theirs > 0 and abs(theirs - habit.cost) <= COST_TOLERANCE),
        })
    return rows


def recommended_first_move(side: SideDossier) -> str | None:
    """Our first recommended move (SAN): the chosen first move when he has Black, else our chosen answer to his
    most believed first move; None when the prepared tree has none."""
    root = side.plan.root
    board = chess.Board(root.fen)
    if root.our_turn:
        return None if root.choice is None else board.san(chess.Move.from_uci(root.choice))
    believed = [(belief, uci, child) for uci, (belief, child) in root.children.items() if belief is not None]
    if not believed:
        return None
    _, uci, child = max(believed, key=lambda item: (item[0], item[1]))
    if child.choice is None:
        return None
    board.push(chess.Move.from_uci(uci))
    return f"{chess.Board(root.fen).san(chess.Move.from_uci(uci))} {board.san(chess.Move.from_uci(child.choice))}"


def first_move_row(player: str, own: SideDossier, engine: SideDossier) -> dict:
    """The two sides' recommended first moves and whether they are the same."""
    mine, theirs = recommended_first_move(own), recommended_first_move(engine)
    return {
        "player": player, "color": chess.COLOR_NAMES[own.color], "own_search": mine, "engine": theirs,
        "same": mine is not None and mine == theirs,
    }


def summary(habits: pd.DataFrame, first_moves: pd.DataFrame) -> pd.DataFrame:
    """Per colour and overall (per ``own_depth`` when the tables have that column): habits listed, agreeing, their
    share and whether it meets :data:`HABIT_AGREEMENT`; masters, first moves the same and whether they meet
    :data:`FIRST_MOVE_AGREEMENT`."""
    if "own_depth" not in first_moves.columns:
        return _summary(habits, first_moves)
    depths = sorted(first_moves["own_depth"].unique())
    if "own_depth" not in habits.columns:
        habits = habits.assign(own_depth=pd.Series(dtype=float))
    return pd.concat([
        _summary(habits[habits["own_depth"] == depth], first_moves[first_moves["own_depth"] == depth])
        .assign(own_depth=depth) for depth in depths
    ], ignore_index=True)


def _summary(habits: pd.DataFrame, first_moves: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for color in ("white", "black", "all"):
        mine = habits if color == "all" else habits[habits["color"] == color]
        moves = first_moves if color == "all" else first_moves[first_moves["color"] == color]
        listed, agreeing = len(mine), int(mine["agrees"].sum()) if len(mine) else 0
        share = agreeing / listed if listed else float("nan")
        rows.append({
            "color": color, "habits": listed, "agreeing": agreeing, "share": share,
            "habits_kept": bool(listed and share >= HABIT_AGREEMENT),
            "masters": len(moves), "first_move_same": int(moves["same"].sum()),
            "first_move_met": bool(color != "all" and moves["same"].sum() >= FIRST_MOVE_AGREEMENT),
        })
    return pd.DataFrame(rows)


def choose_depth(first_moves: pd.DataFrame) -> int | None:
    """The own search's depth to judge without an engine, by the rule fixed before measuring.

    Candidates: the depths of ``first_moves`` (one row per master, colour and ``own_depth``, with ``same`` and
    ``own_seconds``) whose median ``own_seconds`` per side is at most :data:`JUDGE_SECONDS`. Chosen: the
    shallowest whose first move is the engine dossier's for at least :data:`FIRST_MOVE_AGREEMENT` masters with
    each colour; if none, the one with the most masters the same in its weaker colour, then in both, the
    shallower on a tie. None without a candidate."""
    ranked = []
    for depth, rows in first_moves.groupby("own_depth"):
        if rows["own_seconds"].median() > JUDGE_SECONDS:
            continue
        per_color = rows.groupby("color")["same"].sum()
        weaker, both = int(per_color.min()), int(per_color.sum())
        met = weaker >= FIRST_MOVE_AGREEMENT
        ranked.append((0, 0, 0, int(depth)) if met else (1, -weaker, -both, int(depth)))
    return min(ranked)[-1] if ranked else None


def masters_table(rows: Sequence[dict]) -> pd.DataFrame:
    """Rows as a DataFrame (columns kept when there are none)."""
    columns = ["player", "color", "fen", "move", "source", "cost", "reference_cost", "agrees"]
    if any("own_depth" in row for row in rows):
        columns.append("own_depth")
    return pd.DataFrame(list(rows), columns=columns)
