"""The dossier written out: JSON, markdown, one self-contained HTML page, and a PGN of the prepared lines.

The page holds everything it shows: boards are inline SVG (python-chess's
``chess.svg``), styles inline, no script, no font or image fetched, so it opens
offline. The markdown and JSON carry the same tables.
"""

from __future__ import annotations

import html
import io
from dataclasses import asdict

import chess
import chess.pgn
import chess.svg

from iam.prepare.dossier import Dossier, PrepareConfig, SideDossier
from iam.prepare.lines import Line, numbered

__all__ = ["to_dict", "to_markdown", "to_html", "to_pgn", "belief_updates", "LINES_SHOWN"]

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


def _side_dict(side: SideDossier) -> dict:
    tree = side.repertoire
    rows = [
        {
            "depth": depth, "fen": node.fen, "ply": node.ply, "his_move": node.his_turn, "move": edge.uci,
            "san": edge.san, "games": edge.played.games, "score": edge.played.score, "weight": edge.played.weight,
            "first_date": edge.played.first_date, "last_date": edge.played.last_date, "predicted": edge.predicted,
            "belief": edge.belief,
        }
        for node, edge, depth in tree.shown()
    ]
    plan = side.plan
    return {
        "color": chess.COLOR_NAMES[side.color],
        "games": side.games,
        "repertoire": rows,
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


def _tree_lines(side: SideDossier) -> list[str]:
    out = []
    for node, edge, depth in side.repertoire.shown():
        move = numbered((edge.san,), node.ply)
        if edge.predicted:
            out.append(f"{'  ' * depth}- {move} *predicted* {edge.belief:.0%}")
            continue
        played = edge.played
        score = "" if played.score is None else f", scores {played.score:.0%}"
        dates = f", {played.first_date[:4]}-{played.last_date[:4]}" if played.last_date else ""
        belief = f", model {edge.belief:.0%}" if edge.belief is not None else ""
        out.append(f"{'  ' * depth}- {move}: {played.games} games (weight {played.weight:.1f}){score}{dates}{belief}")
    return out


def _habit_rows(side: SideDossier) -> list[list[str]]:
    return [
        [
            numbered(h.path) or "(predicted position)", h.usual_san, h.best_san, _pawns(h.cost).lstrip("+"),
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
    out = [f"# Preparing against {dossier.player}", "", *_intro(dossier)]
    for side in dossier.sides:
        color = chess.COLOR_NAMES[side.color]
        out += ["", f"## {dossier.player} with {color} ({side.games} games)", "", "### His repertoire", ""]
        out += _tree_lines(side) or ["(no move played in enough games)"]
        out += ["", "### His costly habits", ""]
        out += [_md_table(_HABIT_HEAD, _habit_rows(side))] if side.habits else ["(none at this threshold)"]
        out += ["", f"### Lines prepared for him (expected value {_pawns(side.plan.root.value)})", ""]
        out += [_md_table(_LINE_HEAD, _line_rows(side))]
    return "\n".join(out) + "\n"


def _board_svg(fen: str, *, arrows: list[chess.svg.Arrow] | None = None, flipped: bool = False) -> str:
    return chess.svg.board(chess.Board(fen), arrows=arrows or [], size=260, orientation=not flipped)


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    header = "".join(f"<th>{html.escape(cell)}</th>" for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def _html_side(dossier: Dossier, side: SideDossier) -> str:
    color = chess.COLOR_NAMES[side.color]
    flipped = side.color == chess.WHITE  # boards from our side
    parts = [f"<h2>{html.escape(dossier.player)} with {color} ({side.games} games)</h2>", "<h3>His repertoire</h3>"]
    tree = _tree_lines(side)
    parts.append("<pre class='tree'>" + html.escape("\n".join(tree) or "(no move played in enough games)") + "</pre>")
    parts.append("<h3>His costly habits</h3>")
    if side.habits:
        parts.append(_html_table(_HABIT_HEAD, _habit_rows(side)))
        for habit in side.habits[:6]:
            board = chess.Board(habit.fen)
            usual, best = chess.Move.from_uci(habit.usual), chess.Move.from_uci(habit.best)
            arrows = [chess.svg.Arrow(usual.from_square, usual.to_square, color="#cc0000"),
                      chess.svg.Arrow(best.from_square, best.to_square, color="#15781b")]
            number = f"{board.fullmove_number}{'.' if board.turn else '...'}"
            caption = f"{number} his {habit.usual_san} (red), best {habit.best_san} (green)"
            parts.append(f"<figure class='board'>{_board_svg(habit.fen, arrows=arrows, flipped=flipped)}"
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    else:
        parts.append("<p>(none at this threshold)</p>")
    parts.append(f"<h3>Lines prepared for him (expected value {_pawns(side.plan.root.value)})</h3>")
    parts.append(_html_table(_LINE_HEAD, _line_rows(side)))
    for line in side.plan.lines[:3]:
        caption = f"{line.text()} ({line.probability:.0%}, {_pawns(line.value)})"
        parts.append(
            f"<figure class='board'>{_board_svg(line.fen, flipped=flipped)}"
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    return "\n".join(parts)


_STYLE = """body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:3px 6px;text-align:left}
figure.board{display:inline-block;margin:.5em;width:270px;vertical-align:top}figcaption{font-size:90%}
pre.tree{background:#f6f6f6;padding:.5em;overflow-x:auto}"""


def to_html(dossier: Dossier) -> str:
    """One self-contained page: inline SVG boards, tables, no external resource."""
    title = f"Preparing against {html.escape(dossier.player)}"
    intro = "".join(f"<p>{html.escape(text)}</p>" for text in _intro(dossier))
    body = "\n".join(_html_side(dossier, side) for side in dossier.sides)
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{_STYLE}</style></head>\n<body><h1>{title}</h1>{intro}\n{body}\n</body></html>\n"
    )


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
