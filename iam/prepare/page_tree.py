"""The page's tree for one colour: his repertoire and the prepared lines, one node per position.

A *node* is a position (its EPD), however many move orders reach it: its games are his
games that reached it by any order, its *replies* the moves out of it, each with the games
that played it there and, at his move, his belief in it (:attr:`SideDossier.beliefs
<iam.prepare.dossier.SideDossier.beliefs>`, the model's belief updated by his games). A
reply is marked ``"games"`` when his games played it there and ``"model"`` when the
belief rests on the model alone.

A *row* is one move of the tree as it reads, in move order from the start: his moves
played in ``branch_games`` of his games or more (counted along that move order, so a row
never shows more games than the row above it), the model's moves where his games run out,
and the prepared lines' moves (ours chosen, ours alternatives, his replies followed). A
position already shown higher up is not expanded again: its row links to the one node
(a transposition).

The judge's value of a node is the prepared tree's (the scorer's value of the position,
and the expectimax value over his replies) where the position is on the prepared lines;
elsewhere the scorer's value the dossier holds for the position
(:attr:`SideDossier.values <iam.prepare.dossier.SideDossier.values>`), by EPD.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from iam.prepare.dossier import SideDossier
from iam.prepare.lines import PlanNode, numbered
from iam.prepare.tree import Node

__all__ = ["Reply", "PageNode", "Row", "SideTree", "side_tree", "REPLIES_SHOWN", "MIN_BELIEF_SHOWN"]

REPLIES_SHOWN = 8
"""At most this many of his replies are listed at a node (the rest summed)."""
MIN_BELIEF_SHOWN = 0.02
"""His replies believed less than this are listed only when his games played them."""


@dataclass(frozen=True)
class Reply:
    """A move out of a node: his (with his belief) or ours (prepared or played against him)."""

    uci: str
    san: str
    belief: float | None
    """His belief in the move at his node (None at ours)."""
    games: int
    """His games that played the move here (every move order to the node)."""
    source: str
    """"games": his games played it here; "model": the belief rests on the model alone; "prepared": our move
    prepared here and never played against him."""
    prepared: str = ""
    """At our node: "chosen" or "alternative" for a prepared move, "" otherwise."""
    value: float | None = None
    """The judge's value of the position after the move, centipawns for us (None where the dossier holds none)."""
    expected: float | None = None
    """The prepared tree's expectimax value after the move (None off the prepared lines)."""


@dataclass
class PageNode:
    """One position of the page's tree."""

    key: int
    fen: str
    path: tuple[str, ...]
    """SAN moves of the move order the node is shown under."""
    his_turn: bool
    games: int
    """His games that reached the position, by any move order."""
    value: float | None = None
    """The judge's value of the position, centipawns for us (None where the dossier holds none)."""
    expected: float | None = None
    """The prepared tree's expectimax value (None off the prepared lines)."""
    replies: list[Reply] = field(default_factory=list)
    other_belief: float = 0.0
    """At his node, his belief in the moves not listed."""
    last_move: str | None = None

    @property
    def title(self) -> str:
        return numbered(self.path) or "the start position"


@dataclass(frozen=True)
class Row:
    """One move of the tree as it reads."""

    node: int
    """The node the move leads to."""
    depth: int
    label: str
    """The move with its number ("3... Nf6")."""
    games: int
    """His games that went this way (this move order), 0 for a move none of them played."""
    belief: float | None
    """His belief in the move (his moves), None for ours."""
    kind: str
    """"played", "predicted" (the model's, where his games run out) or "prepared" (ours on the prepared lines)."""
    prepared: str = ""
    """"chosen", "alternative" or "" (see :attr:`Reply.prepared`)."""
    transposition: bool = False
    """The position is shown under another move order (the row links to its node)."""


@dataclass
class SideTree:
    """The page's tree for one colour: its nodes (key 0 the start) and its rows in reading order."""

    color: chess.Color
    nodes: list[PageNode]
    rows: list[Row]
    by_epd: dict[str, PageNode] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_epd = {chess.Board(node.fen).epd(): node for node in self.nodes}

    def find(self, fen: str) -> PageNode | None:
        """The node of the position ``fen`` (None when the tree does not reach it)."""
        return self.by_epd.get(chess.Board(fen).epd())


def side_tree(side: SideDossier) -> SideTree:
    """The page's tree for ``side``: his repertoire and the prepared lines, merged by position."""
    return _Builder(side).build()


class _Builder:
    """Walks the repertoire and the prepared tree together, depth first, most likely first."""

    def __init__(self, side: SideDossier) -> None:
        self.side = side
        self.repertoire = side.repertoire
        self.plan = side.plan.nodes_on_lines()
        self.prepared = _prepared_moves(side.plan.root)
        self.nodes: dict[str, PageNode] = {}
        self.rows: list[Row] = []

    def build(self) -> SideTree:
        board = chess.Board()
        self._node(board, (), None)
        self._visit(board, (), 0)
        return SideTree(self.side.color, list(self.nodes.values()), self.rows)

    def _node(self, board: chess.Board, path: tuple[str, ...], last: str | None) -> PageNode:
        epd = board.epd()
        found = self.repertoire.nodes.get(epd)
        planned = self.plan.get(epd)
        his_turn = board.turn == self.side.color
        node = PageNode(len(self.nodes), board.fen(), path, his_turn, found.games if found else 0, last_move=last)
        if planned is not None:
            node.value, node.expected = planned.static, planned.value
        else:
            node.value = self.side.values.get(epd)
        node.replies = self._his_replies(board, found, node) if his_turn else self._our_replies(board, found, planned)
        self.nodes[epd] = node
        return node

    def _his_replies(self, board: chess.Board, found: Node | None, node: PageNode) -> list[Reply]:
        beliefs = {move.uci(): float(p) for move, p in self.side.beliefs.predict_proba(board).items()}
        played = _played(found)
        followed = set(self.prepared.get(board.epd(), ()))
        ranked = sorted(beliefs, key=lambda uci: (-beliefs[uci], uci))
        listed = [uci for uci in ranked if beliefs[uci] >= MIN_BELIEF_SHOWN or uci in played]
        kept = [uci for rank, uci in enumerate(listed) if rank < REPLIES_SHOWN or uci in played or uci in followed]
        kept += sorted((uci for uci in played if uci not in beliefs), key=lambda uci: (-played[uci], uci))
        node.other_belief = max(0.0, 1.0 - sum(beliefs.get(uci, 0.0) for uci in kept)) if beliefs else 0.0
        return [
            Reply(uci, board.san(chess.Move.from_uci(uci)), beliefs.get(uci), played.get(uci, 0),
                  "games" if uci in played else "model", "", *self._values_after(board, uci))
            for uci in kept
        ]

    def _our_replies(self, board: chess.Board, found: Node | None, planned: PlanNode | None) -> list[Reply]:
        played = _played(found)
        chosen = self.prepared.get(board.epd(), [])
        order = [*chosen, *sorted((u for u in played if u not in chosen), key=lambda u: (-played[u], u))]
        replies = []
        for uci in order:
            mark = "" if uci not in chosen else ("chosen" if uci == chosen[0] else "alternative")
            source = "games" if uci in played else "prepared"
            move = chess.Move.from_uci(uci)
            replies.append(Reply(uci, board.san(move), None, played.get(uci, 0), source, mark,
                                 *self._values_after(board, uci)))
        return replies

    def _values_after(self, board: chess.Board, uci: str) -> tuple[float | None, float | None]:
        """The judge's value and the expectimax value of the position after ``uci`` (None off the prepared tree)."""
        after = board.copy(stack=False)
        after.push(chess.Move.from_uci(uci))
        planned = self.plan.get(after.epd())
        return (self.side.values.get(after.epd()), None) if planned is None else (planned.static, planned.value)

    def _children(self, board: chess.Board, moves: tuple[str, ...]) -> list[tuple[str, int, str]]:
        """(UCI, games along this move order, kind) of the moves shown after ``moves``, in reading order."""
        node = self.nodes[board.epd()]
        branch = self.repertoire.branch_games
        found = self.repertoire.nodes.get(board.epd())
        predicted = {uci for uci, edge in found.edges.items() if edge.predicted} if found else set()
        on_plan = set(self.prepared.get(board.epd(), ()))
        out = []
        for reply in node.replies:
            games = self.repertoire.paths.get((*moves, reply.uci), 0)
            if reply.uci in on_plan and not (games >= branch):
                out.append((reply.uci, games, "prepared"))
            elif games >= branch:
                out.append((reply.uci, games, "played"))
            elif reply.uci in predicted:
                out.append((reply.uci, games, "predicted"))
        return out

    def _visit(self, board: chess.Board, moves: tuple[str, ...], depth: int) -> None:
        parent = self.nodes[board.epd()]
        replies = {reply.uci: reply for reply in parent.replies}
        for uci, games, kind in self._children(board, moves):
            move = chess.Move.from_uci(uci)
            reply = replies[uci]
            label = numbered((reply.san,), board.ply())
            board.push(move)
            known = self.nodes.get(board.epd())
            if known is None:
                child = self._node(board, (*parent.path, reply.san), uci)
            self.rows.append(Row(
                (known or child).key, depth, label, games, reply.belief, kind, reply.prepared, known is not None
            ))
            if known is None:
                self._visit(board, (*moves, uci), depth + 1)
            board.pop()


def _prepared_moves(root: PlanNode) -> dict[str, list[str]]:
    """The prepared tree's moves out of each of its positions (EPD), over every move order that reaches it: our
    prepared moves (the chosen one of the position first met first) or his followed replies.

    A position reached by two move orders with different chances may follow different replies along each; the
    page's one node for it shows them all.
    """
    found: dict[str, list[str]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        moves = found.setdefault(node.board.epd(), [])
        moves += [uci for uci in node.prepared() if uci not in moves]
        stack.extend(node.children[uci][1] for uci in reversed(node.prepared()))
    return found



def _played(found: Node | None) -> dict[str, int]:
    """His games (every move order) that played each move at ``found``, for the moves they played."""
    if found is None:
        return {}
    return {uci: edge.played.games for uci, edge in found.edges.items() if edge.played.games}
