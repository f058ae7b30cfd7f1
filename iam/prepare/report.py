"""The dossier written out: JSON, markdown, one self-contained HTML page, and a PGN of the prepared lines.

The page (:mod:`iam.prepare.page`) holds everything it shows: boards are inline SVG
(python-chess's ``chess.svg``), styles and a small script inline, no font or image
fetched, so it opens offline. The markdown carries the same summary, tree and tables;
the JSON the dossier's data.
"""

from __future__ import annotations

import io
from dataclasses import asdict

import chess
import chess.pgn

from iam.prepare.dossier import Dossier, PrepareConfig, SideDossier
from iam.prepare.lines import Line
from iam.prepare.page import HABITS_UNJUDGED, habit_title, judge_notes, page_html, summary_lines
from iam.prepare.page_tree import SideTree, side_tree

__all__ = ["to_dict", "to_markdown", "to_html", "to_pgn", "belief_updates", "his_belief", "LINES_SHOWN"]

LINES_SHOWN = 12
"""Prepared lines shown per colour in the markdown and HTML (all are in the JSON and PGN)."""


def _pawns(centipawns: float) -> str:
    if abs(centipawns) >= 50_000:
        return "mate" if centipawns > 0 else "mated"
    return f"{centipawns / 100:+.2f}"


def _line_dict(line: Line) -> dict:
    return {
        "moves": list(line.moves), "san": line.text(), "probability": line.probability, "value_cp": line.value,
        "fen": line.fen, "main": line.main,
    }


def his_belief(side: SideDossier, fen: str, uci: str) -> float | None:
    """His belief in ``uci`` at ``fen`` as the page and the lines hold it (:attr:`SideDossier.beliefs`)."""
    board = chess.Board(fen)
    return side.beliefs.predict_proba(board).get(chess.Move.from_uci(uci), 0.0)


def _side_dict(side: SideDossier) -> dict:
    tree = side.repertoire
    rows = [
        {
            "depth": depth, "fen": node.fen, "ply": node.ply, "his_move": node.his_turn, "move": edge.uci,
            "san": edge.san, "games": edge.played.games, "score": edge.played.score, "weight": edge.played.weight,
            "first_date": edge.played.first_date, "last_date": edge.played.last_date, "predicted": edge.predicted,
            "belief": his_belief(side, node.fen, edge.uci) if node.his_turn else None,
            "value_cp": side.values.get(edge.child),
        }
        for node, edge, depth in tree.shown()
    ]
    plan = side.plan
    return {
        "color": chess.COLOR_NAMES[side.color],
        "games": side.games,
        "repertoire": rows,
        "habits_judged": side.habits_judged,
        "habits": [habit.to_dict() for habit in side.habits],
        "lines": [_line_dict(line) for line in plan.lines],
        "expected_value_cp": plan.root.value,
        "reference": _line_dict(plan.reference),
        "nodes": plan.nodes,
    }


def to_dict(dossier: Dossier) -> dict:
    """The whole dossier as JSON-ready data."""
    config = _config_dict(dossier.config)
    return {
        "format": "iam-dossier",
        "version": 1,
        "player": dossier.player,
        "judged_by": dossier.scorer,
        "model": dossier.model,
        "recency": f"a game weighs 0.5 ** (years before his latest game / {dossier.config.beliefs.half_life_years:g})",
        "config": config,
        "sides": [_side_dict(side) for side in dossier.sides],
    }


_WRITTEN = (
    "player", "colors", "lines", "tree_plies", "min_games", "branch_games", "predicted_belief", "prior_strength",
    "population_strength", "habit_games", "habit_belief", "habit_loss", "half_life_years", "engine", "engine_depth",
    "engine_cache", "engine_lines", "search_depth", "jobs", "quiet",
)
"""The config's fields as the dossier file holds them, in its order: flat, the runtime's among them."""

_GROUPS = ("repertoire", "beliefs", "habits", "scoring")
"""The config's groups of settings, written as their fields."""


def _config_dict(config: PrepareConfig) -> dict:
    """The config as the file holds it: flat, its groups' fields and its runtime's engine, engine cache and
    processes among its own fields (``engine`` and ``engine_cache`` beside ``engine_depth``, ``jobs`` after
    ``search_depth``)."""
    fields = asdict(config)
    runtime = fields.pop("runtime")
    for group in _GROUPS:
        fields.update(fields.pop(group))
    fields.update(engine=runtime["engine"], engine_cache=runtime["engine_cache"], jobs=runtime["jobs"])
    return {name: fields[name] for name in _WRITTEN}


def _tree_lines(side: SideDossier, tree: SideTree) -> list[str]:
    out = []
    for row in tree.rows:
        node = tree.nodes[row.node]
        parts = [f"{row.games} game{'s' if row.games != 1 else ''}" if row.games else "no game of his"]
        if row.belief is not None:
            parts.insert(0, f"his {row.belief:.0%}")
        if row.prepared:
            parts.append("prepared" if row.prepared == "chosen" else "prepared alternative")
        if row.kind == "predicted":
            parts.append("the model's")
        if node.value is not None:
            parts.append(f"judge {_pawns(node.value)}")
        if row.transposition:
            parts.append(f"transposes to {node.title}")
        out.append(f"{'  ' * row.depth}- {row.label}: {', '.join(parts)}")
    return out


def _habit_rows(side: SideDossier, tree: SideTree) -> list[list[str]]:
    return [
        [
            habit_title(tree, h), h.usual_san, h.best_san, _pawns(h.cost).lstrip("+"),
            f"{h.frequency.played}/{h.frequency.reached} games" if h.frequency.source == "games"
            else f"predicted, reached {h.frequency.belief:.0%}",
        ]
        for h in side.habits
    ]


def _line_rows(side: SideDossier) -> list[list[str]]:
    rows = [[_line_text(line), f"{line.probability:.1%}", _pawns(line.value)] for line in side.plan.lines[:LINES_SHOWN]]
    ref = side.plan.reference
    return rows + [[f"reference (engine main line): {ref.text()}", "-", _pawns(ref.value)]]


_HABIT_HEAD = ["reached by", "his move", "best", "cost (pawns)", "how often"]


def _line_text(line: Line) -> str:
    return line.text() if line.main else f"{line.text()} (an alternative of ours)"


_LINE_HEAD = ["line (ours prepared, his followed)", "probability he follows", "value at end (us)"]


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows])


def belief_updates(config: PrepareConfig) -> str:
    """What updates the model's beliefs, in the order they apply: the masters' book, then his games."""
    text, beliefs = "", config.beliefs
    if beliefs.population_strength is not None:
        text += (f", updated by what the bundled masters chose in the position (the model's belief counting as "
                 f"{_games(beliefs.population_strength)})")
    if beliefs.prior_strength is not None:
        before = " and then" if text else ", updated"
        text += (
            f"{before} by his games where he has been"
            f" (the belief before them counting as {_games(beliefs.prior_strength)})"
        )
    return text


def _games(count: float) -> str:
    return f"{count:g} game" + ("" if count == 1 else "s")


def _intro(dossier: Dossier) -> list[str]:
    return [
        f"Positions judged by {dossier.scorer}; his replies predicted by {dossier.model}"
        + belief_updates(dossier.config) + ".",
        f"Recency: a game weighs 0.5 ** (years before his latest game / {dossier.config.beliefs.half_life_years:g}).",
        "Values are in pawns from our side's point of view.",
    ]


def to_markdown(dossier: Dossier) -> str:
    """The dossier as markdown: per colour, his tree, his costly habits and the prepared lines."""
    out = [f"# Preparing against {dossier.player}", "", *_intro(dossier), *judge_notes(dossier)]
    trees = [side_tree(side) for side in dossier.sides]
    out += ["", *(f"- {summary_lines(side)[0]}" for side in dossier.sides)]
    for side, tree in zip(dossier.sides, trees):
        color = chess.COLOR_NAMES[side.color]
        out += ["", f"## {dossier.player} with {color} ({side.games} games)", "", "### His repertoire", ""]
        out += _tree_lines(side, tree) or ["(no move played in enough games)"]
        out += ["", "### His costly habits", ""]
        if not side.habits_judged:
            out += [f"({HABITS_UNJUDGED})"]
        else:
            out += [_md_table(_HABIT_HEAD, _habit_rows(side, tree))] if side.habits else ["(none at this threshold)"]
        out += ["", f"### Lines prepared for him (expected value {_pawns(side.plan.root.value)})", ""]
        out += [_md_table(_LINE_HEAD, _line_rows(side))]
    return "\n".join(out) + "\n"


def to_html(dossier: Dossier) -> str:
    """The page a player opens (:mod:`iam.prepare.page`): one file, inline SVG boards, no external resource."""
    return page_html(dossier, _intro(dossier))


def to_pgn(dossier: Dossier) -> str:
    """Every prepared line as a PGN game, commented with its probability and end value, then each reference."""
    out = io.StringIO()
    for side in dossier.sides:
        color = chess.COLOR_NAMES[side.color]
        for number, line in enumerate([*side.plan.lines, side.plan.reference], 1):
            reference = line is side.plan.reference
            game = chess.pgn.Game()
            game.headers["Event"] = f"Prepared against {dossier.player} ({color})"
            game.headers["White" if side.color == chess.WHITE else "Black"] = dossier.player
            ours = "prepared" if not reference else "reference"
            game.headers["White" if side.color == chess.BLACK else "Black"] = ours
            game.headers["Round"] = "reference" if reference else str(number)
            node: chess.pgn.GameNode = game
            for uci in line.moves:
                node = node.add_variation(chess.Move.from_uci(uci))
            kind = "engine main line (no model)" if reference else f"he follows with probability {line.probability:.1%}"
            if not line.main:
                kind = f"an alternative of ours; {kind}"
            node.comment = f"{kind}; value for us {_pawns(line.value)} by {dossier.scorer}"
            print(game, file=out, end="\n\n")
    return out.getvalue()
