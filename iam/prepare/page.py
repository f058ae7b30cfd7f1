"""The dossier as the page a player opens: the summary, then per colour a clickable tree beside a board, his costly
habits and the prepared lines.

One file holds everything it shows (styles and a small hand-written script from ``assets/``,
every board as inline SVG, the data as JSON), so it opens offline; no library is loaded.
Clicking a move of the tree (or a line, or the summary) shows its position's board, his
probability of each reply and the games behind it. Printed, the tree reads as an indented
list and the panel is left out.
"""

from __future__ import annotations

import html
import json
from importlib import resources

import chess

from iam.prepare.boards import Arrow, board_svg, piece_defs
from iam.prepare.dossier import Dossier, SideDossier
from iam.prepare.habits import Habit
from iam.prepare.lines import Line
from iam.prepare.page_tree import PageNode, Row, SideTree, side_tree
from iam.prepare.scoring import FIRST_MOVE_TARGET

__all__ = [
    "page_html", "drill_data", "pawns", "summary_lines", "summary_line", "first_moves", "habit_title", "LINES_LISTED",
    "HABITS_UNJUDGED", "judge_notes",
]

LINES_LISTED = 12
"""Prepared lines listed per colour (every line is in the JSON and PGN)."""

HABITS_UNJUDGED = (
    "not judged: the toolkit's own search, checked against a strong engine on masters' games, does not tell his "
    "costly habits from sound moves well enough; give an engine (--engine stockfish) to judge them"
)
"""What the dossier says in place of his costly habits when its judge is not trusted with them."""


def pawns(centipawns: float | None) -> str:
    """Centipawns as signed pawns ("+0.35"), mates as "mate"/"mated", None as an en dash.

    >>> pawns(35), pawns(-120), pawns(99_990), pawns(None)
    ('+0.35', '-1.20', 'mate', '–')
    """
    if centipawns is None:
        return "–"
    if abs(centipawns) >= 50_000:
        return "mate" if centipawns > 0 else "mated"
    return f"{centipawns / 100:+.2f}"


def _his(color: chess.Color) -> str:
    return f"He has {chess.COLOR_NAMES[color].capitalize()}"


def summary_lines(side: SideDossier) -> tuple[str, Line | None]:
    """The summary's words for ``side`` and the line it names: the prepared main line he most likely follows."""
    line = summary_line(side)
    if line is None:
        return f"{_his(side.color)} ({side.games} games): no line prepared.", None
    return (
        f"{_his(side.color)} ({side.games} games): {first_moves(side)}; the line he most likely follows: "
        f"{line.text()} · he follows it with probability "
        f"{line.probability:.0%} · value at its end {pawns(line.value)} for us "
        f"(expected over his replies {pawns(side.plan.root.value)})",
        line,
    )


def first_moves(side: SideDossier) -> str:
    """What to play first: our first move and his likely answers (he has Black), or our answer to each of his
    first moves the prepared lines follow (he has White).

    Read from the prepared tree's first plies (his beliefs at its root, our chosen move after each).
    """
    root = side.plan.root
    board = chess.Board(root.fen)
    if root.our_turn:
        if root.choice is None:
            return ""
        move = chess.Move.from_uci(root.choice)
        after = root.children[root.choice][1]
        played = board.san(move)
        board.push(move)
        answers = ", ".join(
            f"1... {board.san(chess.Move.from_uci(uci))} {belief:.0%}" for uci, (belief, _) in after.children.items()
            if belief is not None
        )
        return f"open 1. {played}" + (f" (he answers {answers})" if answers else "")
    parts = []
    for uci, (belief, child) in root.children.items():
        move = chess.Move.from_uci(uci)
        if belief is None or child.choice is None:
            continue
        position = board.copy(stack=False)
        his = position.san(move)
        position.push(move)
        parts.append(f"against 1. {his} ({belief:.0%}) play 1... {position.san(chess.Move.from_uci(child.choice))}")
    return "; ".join(parts)


def summary_line(side: SideDossier) -> Line | None:
    """The prepared main line he most likely follows (None when no line is prepared)."""
    mains = [line for line in side.plan.lines if line.main]
    return max(mains, key=lambda item: (item.probability, item.moves)) if mains else None


def habit_title(tree: SideTree, habit: Habit) -> str:
    """The moves that reach a habit's position: its page node's, else the path his games took."""
    node = tree.find(habit.fen)
    if node is not None:
        return node.title
    return " ".join(habit.path) or "a position off his games and the lines"


def _esc(text: object) -> str:
    return html.escape(str(text))


def _node_data(node: PageNode) -> dict:
    return {
        "title": node.title, "his": node.his_turn, "games": node.games, "value": pawns(node.value),
        "expected": pawns(node.expected) if node.expected is not None else None, "other": node.other_belief,
        "replies": [
            {"san": r.san, "belief": r.belief, "games": r.games, "source": r.source, "prepared": r.prepared,
             "value": pawns(r.value), "expected": pawns(r.expected)}
            for r in node.replies
        ],
    }


def _row_html(side: int, row: Row, value: str) -> str:
    belief = f"<span class='p'>{row.belief:.0%}</span>" if row.belief is not None else ""
    star = {"chosen": "<span class='star' title='prepared'>★</span>",
            "alternative": "<span class='alt' title='prepared alternative'>☆</span>"}.get(row.prepared, "")
    games = f"<span class='g'>{row.games} game{'s' if row.games != 1 else ''}</span>" if row.games else ""
    alone = row.kind == "predicted" or (row.belief is not None and row.games == 0)  # no game of his went this way
    tags = "<span class='tag'>model</span>" if alone else ""
    if row.transposition:
        tags += "<span class='tag'>transposes</span>"
    val = f"<span class='v{' neg' if value.startswith('-') else ''}'>{value}</span>" if value != "–" else ""
    return (f"<button type='button' class='mv' data-side='{side}' data-node='{row.node}'>{_esc(row.label)}</button>"
            f"{star}{belief}{games}{val}{tags}")


def _tree_html(side: int, tree: SideTree) -> str:
    """The rows as nested lists (a row's children are the rows after it one level deeper)."""
    root = tree.nodes[0]
    value = pawns(root.value)
    val = f"<span class='v{' neg' if value.startswith('-') else ''}'>{value}</span>" if value != "–" else ""
    out = [f"<ul class='tree'><li><button type='button' class='mv' data-side='{side}' data-node='0'>"
           f"start position</button><span class='g'>{root.games} games</span>{val}"]
    depth = -1
    for row in tree.rows:
        if row.depth > depth:
            out.append("<ul>" * (row.depth - depth))
        else:
            out.append("</li>" + "</ul></li>" * (depth - row.depth))
        depth = row.depth
        out.append("<li>" + _row_html(side, row, pawns(tree.nodes[row.node].value)))
    out.append("</li>" + "</ul></li>" * (depth + 1) + "</ul>")
    return "".join(out)


def _boards(side: int, tree: SideTree, flipped: bool) -> str:
    out = []
    for node in tree.nodes:
        last = chess.Move.from_uci(node.last_move) if node.last_move else None
        svg = board_svg(chess.Board(node.fen), flipped=flipped, lastmove=last)
        out.append(f"<template id='b{side}-{node.key}'>{svg}</template>")
    return "".join(out)


def _habits_html(tree: SideTree, side: SideDossier, flipped: bool) -> str:
    if not side.habits_judged:
        return f"<p class='unjudged'>{_esc(HABITS_UNJUDGED.capitalize())}.</p>"
    if not side.habits:
        return "<p>None at this threshold: no usual move of his costs him enough by the judge.</p>"
    rows = []
    for habit in side.habits:
        board = chess.Board(habit.fen)
        usual, best = chess.Move.from_uci(habit.usual), chess.Move.from_uci(habit.best)
        arrows = [Arrow(usual.from_square, usual.to_square, color="#cc0000"),
                  Arrow(best.from_square, best.to_square, color="#15781b")]
        freq = habit.frequency
        often = (f"{freq.played} of {freq.reached} games" if freq.source == "games"
                 else f"the model's choice; he reaches it with probability {freq.belief:.0%}")
        rows.append(
            f"<tr><td class='thumb'>{board_svg(board, flipped=flipped, arrows=arrows, size=150)}</td>"
            f"<td>{_esc(habit_title(tree, habit))}</td><td class='bad'>{_esc(habit.usual_san)}</td>"
            f"<td class='good'>{_esc(habit.best_san)}</td><td>{pawns(habit.cost).lstrip('+')}</td>"
            f"<td>{_esc(often)}</td></tr>"
        )
    head = "<tr><th>position</th><th>reached by</th><th>his move</th><th>better</th><th>cost (pawns)</th>" \
           "<th>how often</th></tr>"
    return f"<table class='habits'><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _line_node(tree: SideTree, line: Line) -> int | None:
    node = tree.find(line.fen)
    return None if node is None else node.key


def _lines_html(index: int, tree: SideTree, side: SideDossier) -> str:
    rows = []
    for line in side.plan.lines[:LINES_LISTED]:
        key = _line_node(tree, line)
        text = _esc(line.text()) + ("" if line.main else " <span class='tag'>an alternative of ours</span>")
        cell = (text if key is None
                else f"<button type='button' class='mv' data-side='{index}' data-node='{key}'>{text}</button>")
        rows.append(f"<tr><td>{cell}</td><td>{line.probability:.1%}</td><td>{pawns(line.value)}</td></tr>")
    ref = side.plan.reference
    rows.append(f"<tr class='ref'><td>the judge's own main line: {_esc(ref.text())}</td><td>–</td>"
                f"<td>{pawns(ref.value)}</td></tr>")
    head = "<tr><th>line (ours prepared, his replies followed)</th><th>he follows it</th><th>value at its end</th></tr>"
    more = len(side.plan.lines) - LINES_LISTED
    tail = f"<p class='note'>{more} more lines in lines.pgn and dossier.json.</p>" if more > 0 else ""
    return f"<table class='lines'><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>{tail}"


def drill_data(side: SideDossier, tree: SideTree) -> dict[int, dict]:
    """The prepared lines as the page's drill walks them, by page node: at our node (``our``) our prepared moves
    (the chosen one first) and every legal move's SAN (``legal``: a move typed or clicked is read against them), at
    his his followed replies with his belief; each move with the node it leads to."""
    found: dict[int, dict] = {}
    stack = [side.plan.root]
    while stack:
        plan = stack.pop()
        node = tree.find(plan.fen)
        if node is None or node.key in found:
            continue
        board = plan.board
        moves = []
        for uci in plan.prepared():
            belief, child = plan.children[uci]
            after = tree.find(child.fen)
            if after is not None:
                moves.append([uci, board.san(chess.Move.from_uci(uci)), after.key, belief])
                stack.append(child)
        entry: dict = {"our": plan.our_turn, "moves": moves}
        if plan.our_turn and moves:
            entry["legal"] = {move.uci(): board.san(move) for move in board.legal_moves}
        found[node.key] = entry
    return found


def _drill_html(index: int) -> str:
    return (
        f"<section class='drill' id='drill{index}' data-side='{index}'><h3>Drill the prepared lines</h3>"
        "<p class='legend'>Play our side: click a piece, then its square (or type the move and press Enter). "
        "His replies are drawn from his probabilities; a move that is not prepared shows the prepared one.</p>"
        "<button type='button' class='start'>Start a line</button>"
        "<div class='drillbox'><div class='board'></div><div class='side'><p class='status'></p>"
        "<p class='moves'></p><input class='typed' type='text' placeholder='your move (Nf3 or g1f3)' "
        "aria-label='your move'><p class='score'></p></div></div></section>"
    )


def _side_html(index: int, dossier: Dossier, side: SideDossier, tree: SideTree) -> str:
    flipped = side.color == chess.WHITE  # boards from our side
    title = f"{_his(side.color)} ({side.games} games)"
    explorer = (
        f"<div class='explorer'><nav class='treebox' aria-label='his tree with {chess.COLOR_NAMES[side.color]}'>"
        f"{_tree_html(index, tree)}</nav><aside class='panel' id='panel{index}'><div class='board'></div>"
        "<h4 class='where'></h4><p class='facts'></p><table class='replies'><thead></thead><tbody></tbody></table>"
        "</aside></div>"
    )
    return (
        f"<section class='side' id='side{index}'><h2>{_esc(title)}</h2>"
        "<p class='legend'>Click a move: its position, his probability of each reply (<i>games</i>: his games played "
        "it there; <i>model</i>: the model alone) and the games behind it. ★ our prepared move, ☆ an alternative; "
        "values in pawns for us by the judge.</p>"
        f"{explorer}<h3>His costly habits</h3>{_habits_html(tree, side, flipped)}"
        f"<h3>Lines prepared for him</h3>{_lines_html(index, tree, side)}{_drill_html(index)}"
        f"{_boards(index, tree, flipped)}</section>"
    )


def _summary_item(index: int, side: SideDossier, tree: SideTree) -> str:
    line = summary_line(side)
    if line is None:
        return f"<li><b>{_his(side.color)}</b> ({side.games} games): no line prepared.</li>"
    node = tree.find(line.fen)
    link = "" if node is None else (
        f" <a href='#side{index}' class='go' data-side='{index}' data-node='{node.key}'>show</a>"
    )
    first = first_moves(side)
    return (
        f"<li><b>{_his(side.color)}</b> ({side.games} games): {_esc(first)}"
        f"<span class='figs'>the line he most likely follows: <span class='line'>{_esc(line.text())}</span>, "
        f"<b>{line.probability:.0%}</b> · value at its end <b>{pawns(line.value)}</b> · expected over his replies "
        f"<b>{pawns(side.plan.root.value)}</b>{link}</span></li>"
    )


def judge_notes(dossier: Dossier) -> list[str]:
    """What the judge leaves undone, said at the top of the page and of the text: his costly habits when it is
    not trusted with them, and the first move when it chose a strong engine's for fewer than
    :data:`~iam.prepare.scoring.FIRST_MOVE_TARGET` of the bundled masters with his colour."""
    notes = [] if all(side.habits_judged for side in dossier.sides) else [f"His costly habits: {HABITS_UNJUDGED}."]
    for side in dossier.sides:
        agreed = side.first_move_agreement
        if agreed is not None and agreed[0] < FIRST_MOVE_TARGET:
            notes.append(
                f"What to play first when he has {chess.COLOR_NAMES[side.color].capitalize()}: a weaker judge than "
                f"an engine; checked on the bundled masters, its first move was Stockfish's for {agreed[0]} of "
                f"{agreed[1]} (an engine judges it: --engine stockfish)."
            )
    return notes


def _judge_notes(dossier: Dossier) -> str:
    return "".join(f"<p class='judge note'>{_esc(text)}</p>" for text in judge_notes(dossier))


def _summary_html(dossier: Dossier, intro: list[str], trees: list[SideTree]) -> str:
    items = "".join(_summary_item(index, side, tree) for index, (side, tree) in enumerate(zip(dossier.sides, trees)))
    rest = "".join(f"<p>{_esc(text)}</p>" for text in intro[1:])
    return (
        f"<header id='summary'><h1>Preparing against {_esc(dossier.player)}</h1>"
        f"<p class='judge'><b>Judge:</b> {_esc(dossier.scorer)}</p>{_judge_notes(dossier)}<ul class='play'>{items}</ul>"
        f"<details class='about'><summary>How the beliefs were formed</summary><p>{_esc(intro[0])}</p>{rest}"
        "</details></header>"
    )


def _asset(name: str) -> str:
    return resources.files("iam.prepare").joinpath("assets", name).read_text(encoding="utf-8")


def page_html(dossier: Dossier, intro: list[str]) -> str:
    """One self-contained page for ``dossier``; ``intro`` the words on how it was made (the first, the beliefs)."""
    trees = [side_tree(side) for side in dossier.sides]
    data = json.dumps([[_node_data(node) for node in tree.nodes] for tree in trees], separators=(",", ":"))
    data = data.replace("</", "<\\/")  # no "</script>" inside the data
    drill = json.dumps(
        [{"flipped": side.color == chess.WHITE, "nodes": drill_data(side, tree)}
         for side, tree in zip(dossier.sides, trees)],
        separators=(",", ":"),
    ).replace("</", "<\\/")
    title = f"Preparing against {_esc(dossier.player)}"
    body = "".join(_side_html(i, dossier, side, tree) for i, (side, tree) in enumerate(zip(dossier.sides, trees)))
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{_asset('page.css')}</style>"
        f"</head>\n<body>{piece_defs()}{_summary_html(dossier, intro, trees)}<main>{body}</main>"
        f"<script type='application/json' id='nodes'>{data}</script>"
        f"<script type='application/json' id='drill'>{drill}</script>"
        f"<script>{_asset('page.js')}</script></body></html>\n"
    )
