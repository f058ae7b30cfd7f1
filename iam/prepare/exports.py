"""The prepared lines as a chess program reads them: one repertoire PGN game per colour, a polyglot book, and the
prepared tree as versioned JSON (what ``iam drill`` reads).

The *repertoire* of a colour is the prepared tree from the start: at each of our positions our chosen move is
the main line and our alternatives are variations; at each of his, his most believed reply followed is the main
line and his other replies followed are variations, then his replies the lines do not follow, one move each. A
reply of his is listed (in the PGN, the book and the tree) when followed, or of at least :data:`REPLY_SHARE`
belief, or played in at least :data:`REPLY_SHARE` of his games there. Each of his moves carries a comment with his
probability of playing it and where it comes from (``his games: 5 of 32`` where he has been there, else ``the
model``); each line's last move, the value for us at its end.

>>> REPLY_SHARE
0.1
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import chess.pgn

from iam.prepare.dossier import Dossier, SideDossier
from iam.prepare.lines import PlanNode

__all__ = [
    "REPLY_SHARE", "ALTERNATIVE_WEIGHT", "Reply", "replies_at", "repertoire_game", "repertoire_pgn", "book_moves",
    "prepared_dict", "PREPARED_FORMAT", "PREPARED_VERSION",
]

REPLY_SHARE = 0.10
"""A reply of his at one of his positions on the lines is listed when he is believed to play it at least this
often, or played it in at least this share of his games there."""
ALTERNATIVE_WEIGHT = 0.1
"""In the book, our alternatives weigh this fraction of our chosen move (a program choosing by weight plays the
chosen move and knows the others)."""
PREPARED_FORMAT = "iam-prepared-lines"
PREPARED_VERSION = 1


@dataclass(frozen=True)
class Reply:
    """One reply of his at a position on the lines."""

    uci: str
    belief: float
    games: int
    """His games with the move there (0 where his games never went)."""
    position_games: int
    """His games at the position."""
    followed: bool
    """The prepared lines go on after it."""

    def source(self) -> str:
        """Where his probability comes from, in words."""
        if self.position_games:
            return f"his games: {self.games} of {self.position_games}"
        return "the model"


def replies_at(side: SideDossier, node: PlanNode) -> list[Reply]:
    """His replies at his ``node``: those followed, and those of at least :data:`REPLY_SHARE` belief or of his
    games there; most believed first (ties: UCI)."""
    board = node.board
    believed = side.replies.get(board.epd(), {})
    played = side.repertoire.node(board)
    games = {uci: edge.played.games for uci, edge in played.edges.items()} if played is not None else {}
    total = sum(games.values())
    listed = {uci for uci, p in believed.items() if p >= REPLY_SHARE} | set(node.children)
    listed |= {uci for uci, count in games.items() if total and count / total >= REPLY_SHARE}
    replies = [
        Reply(uci, believed.get(uci, _child_belief(node, uci)), games.get(uci, 0), total, uci in node.children)
        for uci in listed
    ]
    return sorted(replies, key=lambda reply: (-reply.belief, reply.uci))


def _child_belief(node: PlanNode, uci: str) -> float:
    belief = node.children[uci][0] if uci in node.children else None
    return belief or 0.0


def repertoire_game(side: SideDossier, player: str) -> chess.pgn.Game:
    """The repertoire against him with ``side``'s colour as one PGN game with variations (see the module)."""
    game = chess.pgn.Game()
    his = side.plan.his_color
    game.headers["Event"] = f"Repertoire against {player} with {chess.COLOR_NAMES[his]}"
    game.headers["White" if his == chess.WHITE else "Black"] = player
    game.headers["Black" if his == chess.WHITE else "White"] = "Prepared"
    game.headers["Result"] = "*"
    game.comment = (
        f"Prepared lines against {player} with {chess.COLOR_NAMES[his]}; expected value for us "
        f"{side.plan.root.value / 100:+.2f} pawns"
    )
    _grow(side, side.plan.root, game)
    return game


def _grow(side: SideDossier, node: PlanNode, parent: chess.pgn.GameNode) -> None:
    """Add ``node``'s prepared moves under ``parent`` (main line first), then their subtrees."""
    if node.our_turn:
        ordered = node.prepared()
        notes = {uci: ("prepared" if uci == node.choice else "an alternative of ours") for uci in ordered}
    else:
        replies = replies_at(side, node) if node.children else []
        ordered = [reply.uci for reply in replies if reply.followed] + [r.uci for r in replies if not r.followed]
        notes = {
            reply.uci: f"his probability {reply.belief:.0%} ({reply.source()})" + ("" if reply.followed else
                                                                                 "; not prepared")
            for reply in replies
        }
    for uci in ordered:
        branch = parent.add_variation(chess.Move.from_uci(uci), comment=notes[uci])
        if uci not in node.children:
            continue
        _, child = node.children[uci]
        if not child.children:
            branch.comment += f"; value for us {child.value / 100:+.2f} pawns"
        _grow(side, child, branch)


def repertoire_pgn(dossier: Dossier) -> str:
    """One repertoire game per colour of the dossier, as PGN text."""
    return "".join(f"{repertoire_game(side, dossier.player)}\n\n" for side in dossier.sides)


def book_moves(side: SideDossier) -> list[tuple[chess.Board, chess.Move, float]]:
    """(position, move, weight) for a polyglot book of the prepared lines: our chosen move weighs 1 and our
    alternatives :data:`ALTERNATIVE_WEIGHT`; his replies (:func:`replies_at`) weigh his belief in them."""
    found: list[tuple[chess.Board, chess.Move, float]] = []
    for node in side.plan.nodes_on_lines().values():
        board = node.board
        if node.our_turn and node.choice is not None:
            found.append((board, chess.Move.from_uci(node.choice), 1.0))
            found.extend((board, chess.Move.from_uci(uci), ALTERNATIVE_WEIGHT) for uci in node.alternatives)
        elif not node.our_turn and node.children:
            found.extend((board, chess.Move.from_uci(reply.uci), reply.belief) for reply in replies_at(side, node))
    return found


def prepared_dict(dossier: Dossier) -> dict:
    """The prepared trees as JSON-ready data (:data:`PREPARED_FORMAT`, version :data:`PREPARED_VERSION`): per
    colour, every position on the lines by the moves (UCI, space-separated) that reach it."""
    return {
        "format": PREPARED_FORMAT,
        "version": PREPARED_VERSION,
        "player": dossier.player,
        "judged_by": dossier.scorer,
        "sides": [{"color": chess.COLOR_NAMES[side.color], "nodes": _nodes(side)} for side in dossier.sides],
    }


def _nodes(side: SideDossier) -> list[dict]:
    rows: list[dict] = []
    stack: list[tuple[PlanNode, tuple[str, ...]]] = [(side.plan.root, ())]
    while stack:
        node, path = stack.pop()
        row: dict = {"path": " ".join(path), "fen": node.fen, "our_turn": node.our_turn, "value_cp": node.value}
        if node.our_turn:
            row.update(choice=node.choice, alternatives=list(node.alternatives))
        else:
            row["replies"] = [
                {"move": reply.uci, "belief": reply.belief, "games": reply.games, "followed": reply.followed}
                for reply in (replies_at(side, node) if node.children else [])
            ]
        rows.append(row)
        stack.extend((node.children[uci][1], (*path, uci)) for uci in reversed(node.prepared()))
    return rows
