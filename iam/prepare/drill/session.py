"""A drill of the prepared lines: the player plays our side, his replies are drawn from his beliefs.

:func:`drill` reads the prepared lines a dossier's folder holds (``prepared.json``, written by ``iam prepare``:
:func:`iam.prepare.exports.prepared_dict`) and the schedule beside it
(:mod:`~iam.prepare.drill.schedule`). Each walk starts at the initial position: at his move a reply is drawn
(with the seeded generator) among his replies the lines follow, in proportion to his belief in them, from those
that lead to a position of ours that is due; at ours, when the position is due, the player types a move (SAN or
UCI), and when it is not, the walk plays our prepared move toward a due one. A prepared move (our choice or one
of our alternatives) is right and the walk goes on with it; any other move is a mistake, the prepared move is
shown and the walk goes on with it. Every answer is written to the schedule at once. A walk ends
where the lines end; the session ends when no position of ours is due, after ``lines`` walks, or when the player
types ``quit`` (or the input ends).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import chess

from iam.errors import DataError
from iam.games.pgntext import typed_move
from iam.prepare.drill.schedule import SCHEDULE_FILE, Schedule
from iam.prepare.exports import PREPARED_FORMAT, PREPARED_VERSION

__all__ = ["PREPARED_FILE", "DrillNode", "DrillSummary", "read_prepared", "drill", "card_name", "QUIT"]

PREPARED_FILE = "prepared.json"
QUIT = "quit"


@dataclass(frozen=True)
class DrillNode:
    """One position of the prepared lines."""

    path: str
    """The moves (UCI, space-separated) that reach it from the initial position."""
    fen: str
    our_turn: bool
    prepared: tuple[str, ...] = ()
    """Our prepared moves at our node, the chosen one first."""
    replies: tuple[tuple[str, float], ...] = ()
    """His replies the lines follow at his node, with his belief in them."""
    value_cp: float = 0.0

    def child(self, uci: str) -> str:
        return f"{self.path} {uci}".strip()


@dataclass
class DrillSummary:
    """What a session did."""

    walks: int = 0
    right: int = 0
    wrong: int = 0
    due_left: int = 0
    mistakes: list[tuple[str, str, str]] = field(default_factory=list)
    """(position FEN, the move played, the prepared move) per mistake."""


def read_prepared(folder: str | Path) -> dict[str, dict[str, DrillNode]]:
    """The prepared lines in ``folder``'s ``prepared.json``: colour -> path -> node; DataError if it has none."""
    path = Path(folder) / PREPARED_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{folder} holds no {PREPARED_FILE}: write the dossier there with iam prepare") from None
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    wrong = DataError(f"{path} is not a file of prepared lines ({PREPARED_FORMAT} version {PREPARED_VERSION})")
    if not isinstance(data, dict) or data.get("format") != PREPARED_FORMAT or data.get("version") != PREPARED_VERSION:
        raise wrong
    try:
        return {side["color"]: _nodes(side["nodes"]) for side in data["sides"]}
    except (KeyError, TypeError, ValueError):
        raise wrong from None


def _nodes(rows: list[dict]) -> dict[str, DrillNode]:
    nodes = {}
    for row in rows:
        prepared = tuple(uci for uci in (row.get("choice"), *row.get("alternatives", [])) if uci)
        replies = tuple(
            (reply["move"], float(reply["belief"])) for reply in row.get("replies", []) if reply["followed"]
        )
        nodes[row["path"]] = DrillNode(row["path"], row["fen"], bool(row["our_turn"]), prepared, replies,
                                       float(row.get("value_cp") or 0.0))
    return nodes


def card_name(color: str, node: DrillNode) -> str:
    """The schedule's name of our position ``node`` against him with ``color``."""
    return f"{color}:{node.path}"


class _Walker:
    """One session over one colour's lines: the due positions, the generator, the input and output."""

    def __init__(self, color: str, nodes: dict[str, DrillNode], schedule: Schedule, now: datetime,
                 rng: random.Random) -> None:
        self.color, self.nodes, self.schedule, self.now, self.rng = color, nodes, schedule, now, rng
        self._due: dict[str, bool] = {}

    def refresh(self) -> None:
        """Forget which positions were due: the schedule has changed."""
        self._due.clear()

    def due_count(self) -> int:
        """Our positions due now."""
        return sum(1 for node in self.nodes.values()
                   if node.our_turn and node.prepared and self.schedule.is_due(card_name(self.color, node), self.now))

    def due_below(self, path: str) -> bool:
        """Whether a position of ours at or after ``path`` is due (cached for the walk)."""
        if path not in self._due:
            node = self.nodes.get(path)
            if node is None:
                self._due[path] = False
            elif node.our_turn and node.prepared and self.schedule.is_due(card_name(self.color, node), self.now):
                self._due[path] = True
            else:
                moves = node.prepared if node.our_turn else tuple(uci for uci, _ in node.replies)
                self._due[path] = any(self.due_below(node.child(uci)) for uci in moves)
        return self._due[path]

    def toward_due(self, node: DrillNode) -> str:
        """At our ``node`` not due: the first prepared move (the chosen one first) leading to a due position."""
        return next((uci for uci in node.prepared if self.due_below(node.child(uci))), node.prepared[0])

    def draw(self, node: DrillNode) -> str | None:
        """His reply at ``node``: drawn by his belief among those leading to a due position of ours."""
        wanted = [(uci, belief) for uci, belief in node.replies if self.due_below(node.child(uci))]
        if not wanted:
            return None
        return self.rng.choices([uci for uci, _ in wanted], weights=[belief for _, belief in wanted])[0]


def drill(
    folder: str | Path,
    *,
    ask: Callable[[str], str | None],
    say: Callable[[str], None],
    now: datetime,
    seed: int,
    colors: tuple[str, ...] = ("white", "black"),
    lines: int = 10,
) -> DrillSummary:
    """Drill the prepared lines in ``folder`` (see the module docstring); returns what the session did.

    ``ask(prompt)`` returns the player's answer (None: the input ended); ``say`` shows a line; ``now`` is the
    session's clock; ``colors`` are his colours to drill (those the dossier holds); ``lines`` the walks at most.
    """
    if lines < 1:
        raise DataError(f"the walks of a session must be at least 1, not {lines}")
    prepared = read_prepared(folder)
    wanted = [color for color in colors if color in prepared]
    if not wanted:
        raise DataError(f"{folder} holds no prepared lines against him with {' or '.join(colors)}")
    schedule_path = Path(folder) / SCHEDULE_FILE
    schedule = Schedule.load(schedule_path)
    rng = random.Random(seed)
    summary = DrillSummary()
    for color in wanted:
        walker = _Walker(color, prepared[color], schedule, now, rng)
        while summary.walks < lines:
            walker.refresh()
            if not walker.due_below(""):
                break
            summary.walks += 1
            say(f"-- line {summary.walks}: he has {color} --")
            if not _walk(walker, ask, say, summary, schedule_path):
                _close(walker, summary, say)
                return summary
        _close(walker, summary, say)
    return summary


def _close(walker: _Walker, summary: DrillSummary, say: Callable[[str], None]) -> None:
    left = walker.due_count()
    summary.due_left += left
    say(f"{walker.color}: {summary.right} right, {summary.wrong} wrong so far; {left} positions still due")


def _walk(walker: _Walker, ask: Callable[[str], str | None], say: Callable[[str], None], summary: DrillSummary,
          schedule_path: Path) -> bool:
    """One walk from the initial position; False when the player quits."""
    board, path = chess.Board(), ""
    while (node := walker.nodes.get(path)) is not None:
        if not node.our_turn:
            uci = walker.draw(node)
            if uci is None:
                break
            belief = dict(node.replies)[uci]
            say(f"He plays {board.san(chess.Move.from_uci(uci))} (his probability {belief:.0%})")
        else:
            if not node.prepared:
                break
            if walker.schedule.is_due(card_name(walker.color, node), walker.now):
                uci = _our_move(walker, node, board, ask, say, summary)
                if uci is None:
                    return False
                walker.schedule.save(schedule_path)
            else:
                uci = walker.toward_due(node)
                say(f"We play {board.san(chess.Move.from_uci(uci))} (learned)")
        board.push_uci(uci)
        path = node.child(uci)
    value = walker.nodes[path].value_cp if path in walker.nodes else 0.0
    say(f"End of the line; value for us {value / 100:+.2f} pawns")
    return True


def _our_move(walker: _Walker, node: DrillNode, board: chess.Board, ask: Callable[[str], str | None],
              say: Callable[[str], None], summary: DrillSummary) -> str | None:
    """Ask for our move at ``node``, record the answer; the move the walk goes on with (None: quit)."""
    say(str(board))
    say(f"Position: {board.fen()}")
    while True:
        answer = ask(f"Your move ({chess.COLOR_NAMES[board.turn]}): ")
        if answer is None or answer.strip().lower() == QUIT:
            return None
        move = typed_move(board, answer.strip())
        if move is not None:
            break
        say(f"Not a legal move here: {answer.strip()!r} (type a move such as Nf3 or g1f3, or {QUIT})")
    name, choice = card_name(walker.color, node), node.prepared[0]
    if move.uci() in node.prepared:
        walker.schedule.answer(name, True, walker.now)
        summary.right += 1
        extra = "" if move.uci() == choice else f" (an alternative; the chosen move is {board.san(_move(choice))})"
        say(f"Right: {board.san(move)}{extra}")
        return move.uci()
    walker.schedule.answer(name, False, walker.now)
    summary.wrong += 1
    summary.mistakes.append((board.fen(), move.uci(), choice))
    others = [board.san(_move(uci)) for uci in node.prepared[1:]]
    also = f" (also prepared: {', '.join(others)})" if others else ""
    say(f"Mistake: the prepared move is {board.san(_move(choice))}{also}")
    return choice


def _move(uci: str) -> chess.Move:
    return chess.Move.from_uci(uci)
