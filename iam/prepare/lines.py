"""Lines prepared for him: our moves that maximise the expected evaluation against his predicted replies.

Expectimax over his beliefs, evaluation at the leaves, values in centipawns from *our*
point of view (we are the side he is not):

* a leaf (``plies`` reached, game over, or no reply of his worth following) is worth
  the scorer's value of the position;
* at our move, the best of our candidates: the scorer's moves within ``our_margin``
  centipawns of its best, at most ``our_width`` of them, and the moves his opponents
  played there in his games (``known``) within ``known_margin`` of the best. Of those,
  the one his opponents played most is chosen when its value is within
  ``familiar_margin`` of the best candidate's, so the lines go where he has been (where
  his beliefs rest on his games) when that costs us little. The other candidates worth
  within ``alternative_margin`` of the chosen move are prepared too, as *alternatives*
  (a player with another repertoire, or who wants a second weapon, finds them ready);
* at his move, ``sum_r p(r) V(child_r) + (1 - sum_r p(r)) V(here)`` over the replies
  followed: beliefs ``>= reply_min``, at most ``reply_width``, and only while the
  line's probability (the product of his beliefs along it) stays ``>= min_probability``.
  The belief his other moves hold is valued as the scorer values the position (his
  best play), so a line never counts on a reply the model does not see.

A *line* runs from the start along one of our prepared moves at each of our nodes and
one of the followed replies at each of his, to a leaf; its probability is the product
of his beliefs along it (the chance he follows it when we play our moves). A *main*
line takes our chosen move everywhere; the others take an alternative somewhere. The *reference*
is the scorer's main line: its best move for both sides, the no-model line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import chess

from iam.prepare.scoring import (
    MoveScorer,
    beyond_lines,
    decided,
    move_score,
    position_value,
    score_all,
    value_all,
)
from iam.prepare.tree import Predictor

__all__ = ["LineSettings", "PlanNode", "Line", "Plan", "prepare_lines", "main_line", "numbered"]


@dataclass(frozen=True)
class LineSettings:
    """How wide and deep the prepared tree grows."""

    plies: int = 12
    """Plies from the start position."""
    our_width: int = 2
    our_margin: int = 30
    """Our candidates: the scorer's moves within this many centipawns of its best."""
    known_margin: int = 60
    """Our moves his opponents played in his games are candidates too, within this many centipawns of the best."""
    familiar_margin: int = 25
    """The candidate his opponents played most is chosen over a better one worth up to this many centipawns more."""
    alternative_margin: int | None = 30
    """Our other candidates worth within this many centipawns of the chosen move are prepared too (None: none)."""
    reply_min: float = 0.1
    reply_width: int = 3
    min_probability: float = 0.02

    def __post_init__(self) -> None:
        alternative = 0 if self.alternative_margin is None else self.alternative_margin
        margins = (self.our_margin, self.familiar_margin, alternative)
        if self.plies < 1 or self.our_width < 1 or self.reply_width < 1 or min(margins) < 0:
            raise ValueError("plies and widths must be at least 1, the margin at least 0")
        if not (0 < self.reply_min <= 1 and 0 < self.min_probability <= 1):
            raise ValueError("reply_min and min_probability must be in (0, 1]")


@dataclass
class PlanNode:
    """One position of the prepared tree."""

    fen: str
    ply: int
    our_turn: bool
    reach: float
    """Probability that he plays into this position when we play our moves."""
    value: float = 0.0
    """Expectimax value, centipawns from our point of view."""
    static: float = 0.0
    """The scorer's value of the position, centipawns from our point of view."""
    choice: str | None = None
    """Our chosen move (UCI) at our node."""
    alternatives: list[str] = field(default_factory=list)
    """Our other prepared moves (UCI) at our node, best first."""
    children: dict[str, tuple[float | None, PlanNode]] = field(default_factory=dict)
    """UCI -> (his belief, or None for our move; the child)."""
    rest: float = 0.0
    """At his node, the belief of his moves not followed."""

    @property
    def board(self) -> chess.Board:
        return chess.Board(self.fen)

    def prepared(self, alternatives: bool = True) -> list[str]:
        """Our prepared moves at our node (the chosen one first), his followed replies at his."""
        if not self.our_turn:
            return list(self.children)
        if self.choice is None:
            return []
        return [self.choice, *self.alternatives] if alternatives else [self.choice]


@dataclass(frozen=True)
class Line:
    """A sequence of moves from the start: ours chosen, his followed, with its probability and end value."""

    moves: tuple[str, ...]
    sans: tuple[str, ...]
    probability: float
    value: float
    """Value at the line's end, centipawns from our point of view."""
    fen: str
    main: bool = True
    """Our chosen move everywhere along it (False: an alternative somewhere)."""

    def text(self) -> str:
        """The moves in SAN with move numbers ("1. e4 e5 2. Nf3")."""
        return numbered(self.sans)


@dataclass(frozen=True)
class Plan:
    """The prepared tree for one colour of his, its lines, and the scorer's main line."""

    his_color: chess.Color
    root: PlanNode
    lines: list[Line]
    reference: Line
    nodes: int

    def our_moves(self) -> list[tuple[chess.Board, chess.Move, float]]:
        """(position, our chosen move, probability of reaching it) at each of our nodes on the prepared lines."""
        found: list[tuple[chess.Board, chess.Move, float]] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.our_turn and node.choice is not None:
                found.append((node.board, chess.Move.from_uci(node.choice), node.reach))
                stack.append(node.children[node.choice][1])
            elif not node.our_turn:
                stack.extend(child for _, child in node.children.values())
        return found

    def nodes_on_lines(self, alternatives: bool = True) -> dict[str, PlanNode]:
        """Every position on the prepared lines (main lines only without ``alternatives``), by EPD, first met kept."""
        found: dict[str, PlanNode] = {}
        stack = [self.root]
        while stack:
            node = stack.pop()
            found.setdefault(node.board.epd(), node)
            stack.extend(node.children[uci][1] for uci in reversed(node.prepared(alternatives)))
        return found

    def his_nodes(self, alternatives: bool = True) -> dict[str, PlanNode]:
        """His nodes on the prepared lines (he to move, replies followed), by EPD."""
        return {
            epd: node for epd, node in self.nodes_on_lines(alternatives).items() if not node.our_turn and node.children
        }


class _Search:
    """One expectimax over his beliefs, grown ply by ply; predictions kept by position and ply.

    The tree's shape depends on nothing deeper than each node (our candidates on the
    scores of the position, his replies on his beliefs and the line's probability), so it
    is grown a ply at a time, each ply's positions scored in one batch (an engine spreads
    a batch over its processes: first our positions that grow, whose moves are read, then
    the others, whose value alone is), and the values are backed up from the leaves
    afterwards.
    """

    def __init__(
        self,
        predictor: Predictor,
        scorer: MoveScorer,
        settings: LineSettings,
        us: chess.Color,
        tick: Callable[[], object],
        known: Callable[[chess.Board], list[chess.Move]],
    ) -> None:
        self.predictor, self.scorer, self.settings, self.us, self.tick = predictor, scorer, settings, us, tick
        self.known = known
        self.beliefs: dict[tuple[str, int], dict[chess.Move, float]] = {}
        """His beliefs by position and ply (a model may read the move number and the moves before)."""
        self.familiar: dict[int, list[chess.Move]] = {}
        """Our moves his opponents played at each of our nodes (by the node's id), most played first."""
        self.nodes = 0

    def ours(self, board: chess.Board, value: int) -> float:
        return value if board.turn == self.us else -value

    def grow(self, board: chess.Board) -> PlanNode:
        """The prepared tree from ``board``, with every node's value."""
        root = self._node(board, 1.0)
        frontier = [(root, board.copy())]
        while frontier:
            growing = [
                (node, position) for node, position in frontier
                if position.ply() < self.settings.plies and not position.is_game_over(claim_draw=False)
            ]
            read = {id(position) for node, position in growing if node.our_turn}
            score_all(self.scorer, [position for _, position in frontier if id(position) in read])
            value_all(self.scorer, [
                position for _, position in frontier if id(position) not in read and not decided(position)
            ])
            for node, position in frontier:
                node.static = node.value = self.ours(position, position_value(self.scorer, position))
            score_all(self.scorer, self._familiar_elsewhere(growing))
            frontier = []
            for node, position in growing:
                frontier.extend(self._our_move(position, node) if node.our_turn else self._his_move(position, node))
        self._back_up(root)
        return root

    def _node(self, board: chess.Board, reach: float) -> PlanNode:
        self.nodes += 1
        self.tick()
        return PlanNode(board.fen(), board.ply(), board.turn == self.us, reach)

    def _child(self, board: chess.Board, move: chess.Move, reach: float) -> tuple[PlanNode, chess.Board]:
        after = board.copy()
        after.push(move)
        return self._node(after, reach), after

    def _familiar_elsewhere(self, growing: list[tuple[PlanNode, chess.Board]]) -> list[chess.Board]:
        """Where his opponents' moves at our nodes lead, for those outside the scorer's best: scored in one batch."""
        found = []
        for node, board in growing:
            if node.our_turn:
                self.familiar[id(node)] = known = self.known(board)
                found.extend(beyond_lines(self.scorer, board, known))
        return found

    def _our_move(self, board: chess.Board, node: PlanNode) -> list[tuple[PlanNode, chess.Board]]:
        scores = self.scorer.scores(board)
        best = max(scores.values())
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0].uci()))
        margin, width = self.settings.our_margin, self.settings.our_width
        candidates = [move for move, score in ranked if score >= best - margin][:width]
        for move in self.familiar[id(node)]:
            if move not in candidates and move_score(self.scorer, board, move) >= best - self.settings.known_margin:
                candidates.append(move)
        children = [self._child(board, move, node.reach) for move in candidates]
        node.children = {move.uci(): (None, child) for move, (child, _) in zip(candidates, children)}
        return children

    def _his_move(self, board: chess.Board, node: PlanNode) -> list[tuple[PlanNode, chess.Board]]:
        key = (board.epd(), board.ply())
        if key not in self.beliefs:
            self.beliefs[key] = self.predictor.predict_proba(board)
        ranked = sorted(self.beliefs[key].items(), key=lambda item: (-item[1], item[0].uci()))
        settings = self.settings
        followed = [
            (move, float(p))
            for move, p in ranked
            if p >= settings.reply_min and node.reach * p >= settings.min_probability
        ][: settings.reply_width]
        children = [self._child(board, move, node.reach * belief) for move, belief in followed]
        node.children = {move.uci(): (belief, child) for (move, belief), (child, _) in zip(followed, children)}
        return children

    def _back_up(self, node: PlanNode) -> None:
        """Values from the leaves up: the best of our candidates at ours, the expectation at his."""
        if not node.children:
            return
        for _, child in node.children.values():
            self._back_up(child)
        if node.our_turn:
            self._choose(node)
            return
        replies = _replies(node)
        expected = 0.0
        for belief, child in replies:  # added one by one: sum() rounds otherwise on newer Pythons
            expected += belief * child.value
        node.rest = max(0.0, 1.0 - sum(belief for belief, _ in replies))
        node.value = expected + node.rest * node.static

    def _choose(self, node: PlanNode) -> None:
        """Our chosen move (the best-valued candidate, or his opponents' most played one when it is worth nearly
        as much) and the alternatives worth within ``alternative_margin`` of it."""
        value = {uci: child.value for uci, (_, child) in node.children.items()}
        best = max(value, key=value.__getitem__)
        familiar = next((move.uci() for move in self.familiar[id(node)] if move.uci() in value), None)
        node.choice = (
            familiar
            if familiar is not None and value[familiar] >= value[best] - self.settings.familiar_margin
            else best
        )
        node.value = value[node.choice]
        margin = self.settings.alternative_margin
        if margin is not None:
            others = sorted((uci for uci in value if uci != node.choice), key=lambda uci: (-value[uci], uci))
            node.alternatives = [uci for uci in others if value[uci] >= node.value - margin]


def _replies(node: PlanNode) -> list[tuple[float, PlanNode]]:
    """His followed replies at his node, each with his belief in it."""
    replies = []
    for belief, child in node.children.values():
        assert belief is not None, "his replies carry his belief"
        replies.append((belief, child))
    return replies


def prepare_lines(
    board: chess.Board,
    his_color: chess.Color,
    predictor: Predictor,
    scorer: MoveScorer,
    settings: LineSettings = LineSettings(),
    *,
    tick: Callable[[], object] = lambda: None,
    known: Callable[[chess.Board], list[chess.Move]] = lambda board: [],
) -> Plan:
    """The prepared tree from ``board`` against him playing ``his_color``.

    ``known(board)``: our moves his opponents played in his games there; ``tick()`` is called per node (what it
    returns is ignored).
    """
    search = _Search(predictor, scorer, settings, not his_color, tick, known)
    root = search.grow(board.copy())
    lines = sorted(_lines(root, board.copy()), key=lambda line: (not line.main, -line.probability, line.moves))
    return Plan(his_color, root, lines, main_line(board, scorer, settings.plies, not his_color), search.nodes)


def _lines(root: PlanNode, board: chess.Board) -> list[Line]:
    found: list[Line] = []
    stack: list[tuple[PlanNode, tuple[str, ...], tuple[str, ...], float, bool]] = [(root, (), (), 1.0, True)]
    while stack:
        node, moves, sans, probability, main = stack.pop()
        steps = node.prepared()
        if not steps:
            found.append(Line(moves, sans, probability, node.value, node.fen, main))
            continue
        position = node.board
        for uci in steps:
            belief, child = node.children[uci]
            san = position.san(chess.Move.from_uci(uci))
            on_main = main and (not node.our_turn or uci == node.choice)
            stack.append((child, (*moves, uci), (*sans, san), probability * (belief or 1.0), on_main))
    return found


def main_line(board: chess.Board, scorer: MoveScorer, plies: int, us: chess.Color) -> Line:
    """The scorer's best move for both sides to ply ``plies``: the no-model reference."""
    board = board.copy()
    moves, sans = [], []
    while board.ply() < plies and not board.is_game_over(claim_draw=False):
        scores = scorer.scores(board)
        move = min(scores, key=lambda m: (-scores[m], m.uci()))
        moves.append(move.uci())
        sans.append(board.san(move))
        board.push(move)
    value = position_value(scorer, board)
    return Line(tuple(moves), tuple(sans), 1.0, value if board.turn == us else -value, board.fen())


def numbered(sans: tuple[str, ...], start_ply: int = 0) -> str:
    parts = []
    for offset, san in enumerate(sans):
        ply = start_ply + offset
        if ply % 2 == 0:
            parts.append(f"{ply // 2 + 1}. {san}")
        elif offset == 0:
            parts.append(f"{ply // 2 + 1}... {san}")
        else:
            parts.append(san)
    return " ".join(parts)
