"""Playing like a modelled player: a move chosen from his model's beliefs.

An imitation engine answers "what would X play here?" by playing it: a move drawn from the
model's beliefs (temperature 1, the default, draws them as they are; above 1 flattens them,
below sharpens them, 0 plays the most believed move), reproducibly: the draw depends only
on the seed, the game's number and the game so far, not on what the engine did before, so
that each new game draws its opening afresh and a seed replays a series of games. The
player's openings come with the model (a move ranker believes his own lines where his games
have been, :mod:`iam.ranker.own_lines`).

Where the model is unsure (its most believed move below ``unsure_below``) *and* the
position is tactical (see :func:`is_tactical`), a short search chooses instead: there
a master calculates, and a belief spread thin over several moves is most likely to
pick a blunder. Everywhere else the model alone decides, within two bounds read from the
search's scores of the position's moves:

* **Strength** (:func:`strengthen`): how much search overrides his beliefs. The move is
  drawn from ``(1 - strength) * belief + strength * softmax(score / SEARCH_SOFTNESS)``: 0
  plays his beliefs as they are, 1 the search's choice (nearly always its best move).
* **The blunder ceiling** (:func:`hold_ceiling`): a drawn move that loses at least
  :data:`BLUNDER_LOSS` centipawns against the best is a *blunder*. He makes them at his
  measured rate (a ranker records it from his training positions, judged by the search it
  scores moves with); the engine plays one only while its own blunders stay within that
  rate of its moves (:class:`BlunderBudget`), and otherwise draws again among the moves
  that lose less. The scores the model reads come from a short search; a drawn move can also be
  checked deeper (:func:`deep_check`, :func:`hold_deep_ceiling`): its value against the best
  value of an iterative-deepening search to :data:`CHECK_DEPTH`, so that a move losing to a
  combination beyond the short search counts as the blunder it is. Where a stronger engine is at hand, a
  :class:`MoveJudge` checks the drawn move instead, and his rate is the one that judge measures on his moves.
  The search's own move, where the model leaves the choice to it, is checked alike
  (:func:`hold_search_move`): a blunder stands for no habit of his, so it is replaced by the check's best move,
  and the budget counts the move, so that every move the engine plays is judged by the same check.
"""

from __future__ import annotations

import hashlib
import math
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, cast

import chess

from search.result import Limits

if TYPE_CHECKING:  # the compiled core is imported where a search runs: a UCI engine answers uci before it loads
    from search.chess.engine import ChessSearch

__all__ = [
    "Imitation", "ImitationChoice", "is_tactical", "choose_imitation_move", "PIECE_VALUES", "BLUNDER_LOSS",
    "SEARCH_SOFTNESS", "BlunderBudget", "CeilingVerdict", "strengthen", "hold_ceiling", "CHECK_DEPTH", "DeepCheck",
    "deep_check", "hold_deep_ceiling", "hold_search_move", "check_blunder_rate", "MoveJudge",
    "CHECK_ENGINE_DEPTH", "RATE_POSITIONS",
]

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}
BLUNDER_LOSS = 200
"""Centipawns a move loses against the position's best for it to count as a blunder (two pawns)."""
CHECK_DEPTH = 6
"""Deepest iteration of the search that checks a drawn move (:func:`deep_check`), time allowing."""
CHECK_ENGINE_DEPTH = 12
"""Depth of a :class:`MoveJudge` engine's searches of a drawn move (the position's best, the move alone), time
allowing: the depth of the judge the imitation's blunders are measured by."""
RATE_POSITIONS = 1000
"""Positions of his training games on which his rate by a :class:`MoveJudge` is measured."""
SEARCH_SOFTNESS = 50.0
"""Centipawns of score difference that make one move e (2.718...) times as likely as another in the search's share
of a :func:`strengthen` draw: a move half a pawn worse is drawn about a third as often, a pawn worse a seventh."""


@dataclass(frozen=True)
class Imitation:
    """How the imitation engine turns beliefs into a move."""

    temperature: float = 1.0
    """1 draws from the beliefs; above 1 flattens them; 0 plays the most believed move."""
    seed: int = 0
    """Seed of the draws (with the game's number and the game so far)."""
    game: int = 0
    """The game's number in a series (an engine counts its new games): each game draws afresh."""
    unsure_below: float = 0.3
    """A most-believed move below this leaves a tactical position to the search."""
    strength: float = 0.0
    """How much the search overrides his beliefs, from 0 (his beliefs alone) to 1 (see :func:`strengthen`)."""
    blunder_rate: float | None = None
    """His share of moves that lose :data:`BLUNDER_LOSS` or more, the engine's ceiling (1: none); None: the one
    his model records (no ceiling when it records none)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.strength <= 1.0:
            raise ValueError(f"strength must be in [0, 1], got {self.strength}")
        if self.blunder_rate is not None and not 0.0 <= self.blunder_rate <= 1.0:
            raise ValueError(f"blunder rate must be in [0, 1], got {self.blunder_rate}")
        if not 0.0 <= self.temperature <= 100.0:
            raise ValueError(f"temperature must be in [0, 100], got {self.temperature}")
        if not 0.0 <= self.unsure_below <= 1.0:
            raise ValueError(f"unsure_below must be in [0, 1], got {self.unsure_below}")


@dataclass(frozen=True)
class ImitationChoice:
    """The move to play and why: from the model, or left to the search (``move`` is then ``None``)."""

    move: chess.Move | None
    belief: float
    """The model's belief in ``move`` (0 when the search decides)."""
    top_belief: float
    tactical: bool
    source: str
    """``"model"`` or ``"search"``."""


def is_tactical(board: chess.Board) -> bool:
    """Whether material is at stake now: the mover is in check, or either side can
    capture a piece that is undefended or worth more than its cheapest attacker.

    A deliberately simple line (pins and exchanges deeper than one capture are not
    examined): it marks the positions where one move can win or lose material.
    """
    if board.is_check():
        return True
    for color in (chess.WHITE, chess.BLACK):
        for square, piece in board.piece_map().items():
            if piece.color == color or piece.piece_type == chess.KING:
                continue
            attackers = board.attackers(color, square)
            if not attackers:
                continue
            if not board.attackers(not color, square):
                return True
            # An attacker's square holds a piece.
            cheapest = min(PIECE_VALUES[cast(chess.PieceType, board.piece_type_at(a))] for a in attackers)
            if cheapest < PIECE_VALUES[piece.piece_type]:
                return True
    return False


def choose_imitation_move(
    board: chess.Board, beliefs: Mapping[chess.Move, float], imitation: Imitation
) -> ImitationChoice:
    """The model's move for ``board`` under ``imitation``, or a request for the search.

    ``beliefs`` are the model's over the legal moves. The search is asked for when the
    model predicts nothing, or when it is unsure and the position is tactical.
    """
    legal = [(move, belief) for move, belief in beliefs.items() if belief > 0 and board.is_legal(move)]
    top = max((belief for _, belief in legal), default=0.0)
    tactical = is_tactical(board)
    if not legal or (top < imitation.unsure_below and tactical):
        return ImitationChoice(None, 0.0, top, tactical, "search")
    legal.sort(key=lambda pair: (-pair[1], pair[0].uci()))
    if imitation.temperature == 0.0:
        move, belief = legal[0]
    else:
        weights = [belief ** (1.0 / imitation.temperature) for _, belief in legal]
        move, belief = _draw(legal, weights, _rng(board, imitation.seed, imitation.game))
    return ImitationChoice(move, belief, top, tactical, "model")


def _rng(board: chess.Board, seed: int, game: int = 0) -> random.Random:
    """A generator fixed by the seed, the game's number and the game so far (start position and moves)."""
    root = board.root()
    series = f"{seed}" if game == 0 else f"{seed}/{game}"
    text = f"{series}|{root.fen()}|{' '.join(move.uci() for move in board.move_stack)}"
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))


def _draw(pairs: list[tuple[chess.Move, float]], weights: list[float], rng: random.Random) -> tuple[chess.Move, float]:
    total = sum(weights)
    if total <= 0.0:  # underflow at a tiny temperature: the most believed move
        return pairs[0]
    point = rng.random() * total
    for pair, weight in zip(pairs, weights):
        point -= weight
        if point < 0.0:
            return pair
    return pairs[-1]


def strengthen(
    beliefs: Mapping[chess.Move, float], scores: Mapping[chess.Move, float], strength: float
) -> dict[chess.Move, float]:
    """His beliefs mixed with a softmax of the search's scores (centipawns, the mover's view), in the share
    ``strength``: ``(1 - strength) * belief + strength * softmax(score / SEARCH_SOFTNESS)`` over the moves
    scored, highest first. ``strength`` 0 or no scores: ``beliefs`` unchanged.

    >>> e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
    >>> mixed = strengthen({e4: 0.9, d4: 0.1}, {e4: 0, d4: 100}, 0.5)
    >>> round(mixed[d4], 3), round(mixed[e4], 3)
    (0.49, 0.51)
    """
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength must be in [0, 1], got {strength}")
    if strength == 0.0 or not scores:
        return dict(beliefs)
    best = max(scores.values())
    weights = {move: math.exp((score - best) / SEARCH_SOFTNESS) for move, score in scores.items()}
    total = sum(weights.values())
    moves = set(scores) | set(beliefs)
    mixed = {
        move: (1.0 - strength) * beliefs.get(move, 0.0) + strength * weights.get(move, 0.0) / total for move in moves
    }
    return dict(sorted(mixed.items(), key=lambda pair: (-pair[1], pair[0].uci())))


@dataclass(frozen=True)
class BlunderBudget:
    """The engine's moves so far and how many of them were blunders (moves losing :data:`BLUNDER_LOSS` or more)."""

    moves: int = 0
    blunders: int = 0

    def allows(self, rate: float) -> bool:
        """Whether one more blunder now keeps the blunders within ``rate`` of the moves (this one counted)."""
        return self.blunders + 1 <= rate * (self.moves + 1) + 1e-9

    def after(self, *, blunder: bool) -> BlunderBudget:
        """The budget once one more move is played."""
        return BlunderBudget(self.moves + 1, self.blunders + int(blunder))


@dataclass(frozen=True)
class CeilingVerdict:
    """The move to play once the ceiling is held, what the drawn move lost, and whether it was replaced."""

    move: chess.Move
    loss: int
    """Centipawns the drawn move loses against the best (0 when it was not scored)."""
    replaced: bool
    blunder: bool
    """Whether the move played is a blunder (allowed by the budget)."""


def hold_ceiling(
    board: chess.Board, drawn: chess.Move, beliefs: Mapping[chess.Move, float], scores: Mapping[chess.Move, int],
    *, rate: float, budget: BlunderBudget, seed: int = 0, game: int = 0,
) -> CeilingVerdict:
    """``drawn`` unless it loses :data:`BLUNDER_LOSS` or more against the best of ``scores`` while ``budget`` holds
    no room for a blunder at ``rate``; then a move drawn from ``beliefs`` among the moves that lose less (the best
    scored move when he believes none of them). The redraw is fixed by ``seed``, the game's number and the game
    so far (the draw after the one :func:`choose_imitation_move` made).

    >>> board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    >>> take, wait = chess.Move.from_uci("d1d5"), chess.Move.from_uci("e1e2")
    >>> verdict = hold_ceiling(board, wait, {wait: 0.9, take: 0.1}, {take: 500, wait: -900}, rate=0.05,
    ...                        budget=BlunderBudget())
    >>> verdict.move == take, verdict.loss, verdict.replaced
    (True, 1400, True)
    """
    if not scores or drawn not in scores:
        return CeilingVerdict(drawn, 0, False, False)
    best = max(scores.values())
    loss = best - scores[drawn]
    if loss < BLUNDER_LOSS:
        return CeilingVerdict(drawn, loss, False, False)
    if budget.allows(rate):
        return CeilingVerdict(drawn, loss, False, True)
    safe = sorted(
        ((move, beliefs.get(move, 0.0)) for move, score in scores.items() if best - score < BLUNDER_LOSS),
        key=lambda pair: (-pair[1], pair[0].uci()),
    )
    believed = [(move, belief) for move, belief in safe if belief > 0.0]
    if not believed:
        top = max(scores, key=lambda move: (scores[move], move.uci()))
        return CeilingVerdict(top, loss, True, False)
    rng = _rng(board, seed, game)
    rng.random()  # the first draw was the move replaced
    move, _ = _draw(believed, [belief for _, belief in believed], rng)
    return CeilingVerdict(move, loss, True, False)


@dataclass(frozen=True)
class DeepCheck:
    """A move's loss against the best by an iterative-deepening search, at the deepest depth both were searched."""

    best: chess.Move
    """The search's best move at ``depth``."""
    loss: int
    """Centipawns the move loses against the best value (0 when it is the best)."""
    depth: int


def deep_check(
    search: ChessSearch, board: chess.Board, move: chess.Move, limits: Limits, *,
    stop: threading.Event | None = None,
) -> DeepCheck | None:
    """``move``'s loss against the best by ``search``: an iterative deepening within ``limits`` (its first
    60% of their time), then ``move`` alone to the depth reached, within the rest; the loss compares the two at
    the deepest depth both completed. None when not even depth 1 of either completes, or the game is over.

    >>> from search.chess.engine import ChessSearch
    >>> board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    >>> found = deep_check(ChessSearch(), board, chess.Move.from_uci("e1e2"), Limits(depth=3))
    >>> found.best.uci(), found.loss > 800, found.depth
    ('d1d5', True, 3)
    """
    timed = limits.time is not None
    best_limits = limits if not timed else replace(limits, time=0.6 * cast(float, limits.time))
    started = time.perf_counter()
    values: dict[int, tuple[int, chess.Move]] = {}
    for result in search.iterate(board, best_limits, stop=stop):
        values[result.depth] = (int(cast(float, result.value)), cast(chess.Move, result.move))
    if not values:
        return None
    deepest = max(values)
    if values[deepest][1] == move:
        return DeepCheck(move, 0, deepest)
    rest = None if not timed else max(0.0, cast(float, limits.time) - (time.perf_counter() - started))
    alone = None
    for alone in search.iterate(board, replace(limits, depth=deepest, time=rest), stop=stop, only=move):
        pass
    if alone is None:
        return None
    value, best = values[alone.depth]
    return DeepCheck(best, max(0, value - int(cast(float, alone.value))), alone.depth)


class MoveJudge(Protocol):
    """A judge of drawn moves other than the toolkit's search (a UCI engine, say), and his rate by it.

    The imitation holds a drawn move to :data:`BLUNDER_LOSS` by :meth:`check` and plays a blunder only within
    ``rate``, his share of such moves by the same judge, so that the ceiling and the rate it holds are measured
    alike.
    """

    @property
    def name(self) -> str:
        """What the judge is, for the engine's notes (e.g. ``Stockfish 15.1 at depth 12``)."""
        ...

    rate: float | None
    """His share of moves losing :data:`BLUNDER_LOSS` or more by this judge (None: not measured)."""

    def check(
        self, board: chess.Board, move: chess.Move, limits: Limits, stop: threading.Event | None = None
    ) -> DeepCheck | None:
        """``move``'s loss against the best of ``board`` within ``limits``; None when it cannot judge it."""
        ...


def hold_deep_ceiling(
    board: chess.Board, drawn: chess.Move, beliefs: Mapping[chess.Move, float], scores: Mapping[chess.Move, int],
    check: Callable[[chess.Move], DeepCheck | None], *, rate: float, budget: BlunderBudget, seed: int = 0,
    game: int = 0,
) -> CeilingVerdict:
    """:func:`hold_ceiling` with ``drawn`` judged by ``check`` (a :func:`deep_check`) instead of ``scores``.

    A drawn move the check finds losing :data:`BLUNDER_LOSS` or more is played while ``budget`` has room at
    ``rate``; otherwise a move drawn again from ``beliefs`` among those that lose less by ``scores`` (the
    shallow search's) is played if the check passes it too, else the check's best move. When the check
    cannot judge ``drawn`` (no time), the shallow ceiling holds (:func:`hold_ceiling`).
    """
    found = check(drawn)
    if found is None:
        return hold_ceiling(board, drawn, beliefs, scores, rate=rate, budget=budget, seed=seed, game=game)
    if found.loss < BLUNDER_LOSS:
        return CeilingVerdict(drawn, found.loss, False, False)
    if budget.allows(rate):
        return CeilingVerdict(drawn, found.loss, False, True)
    best = max(scores.values(), default=0)
    believed = sorted(
        ((move, belief) for move, belief in beliefs.items()
         if move != drawn and belief > 0.0 and move in scores and best - scores[move] < BLUNDER_LOSS),
        key=lambda pair: (-pair[1], pair[0].uci()),
    )
    if believed:
        rng = _rng(board, seed, game)
        rng.random()  # the first draw was the move replaced
        move, _ = _draw(believed, [belief for _, belief in believed], rng)
        again = check(move)
        if again is not None and again.loss < BLUNDER_LOSS:
            return CeilingVerdict(move, found.loss, True, False)
    return CeilingVerdict(found.best, found.loss, True, False)


def hold_search_move(move: chess.Move, check: Callable[[chess.Move], DeepCheck | None]) -> CeilingVerdict:
    """The search's ``move`` (where the model leaves the choice to the search) judged by ``check`` as a drawn move
    is: played when it loses less than :data:`BLUNDER_LOSS` against the check's best, else replaced by that best
    move whatever the budget holds (the budget makes room for his blunders, and the search's stand for none of
    them). The verdict's ``blunder`` is whether the move played is one by the check (only when the check names the
    move itself as its best at a loss, which an unstable search can); the engine counts it in its budget. When the
    check cannot judge the move (no time), it is played unjudged.

    >>> take = chess.Move.from_uci("d1d5")  # 4k3/8/8/3q4/8/8/8/3RK3 w: the rook takes the queen
    >>> verdict = hold_search_move(chess.Move.from_uci("e1e2"), lambda move: DeepCheck(take, 1400, 12))
    >>> verdict.move.uci(), verdict.loss, verdict.replaced, verdict.blunder
    ('d1d5', 1400, True, False)
    """
    found = check(move)
    if found is None or found.loss < BLUNDER_LOSS:
        return CeilingVerdict(move, 0 if found is None else found.loss, False, False)
    if found.best == move:
        return CeilingVerdict(move, found.loss, False, True)
    return CeilingVerdict(found.best, found.loss, True, False)


def check_blunder_rate(moves: Sequence[tuple[chess.Board, chess.Move]], depth: int = CHECK_DEPTH) -> float | None:
    """The share of ``moves`` (a position and the move played there) that lose :data:`BLUNDER_LOSS` or more by a
    :func:`deep_check` to ``depth``: a player's blunder rate by the check the imitation holds his moves to. None
    without a move; a finished game's move counts as sound.

    >>> board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    >>> check_blunder_rate([(board, chess.Move.from_uci("d1d5")), (board, chess.Move.from_uci("e1e2"))], 3)
    0.5
    """
    if not moves:
        return None
    from search.chess.engine import ChessSearch

    search = ChessSearch()
    found = [deep_check(search, board, move, Limits(depth=depth)) for board, move in moves]
    return sum(check is not None and check.loss >= BLUNDER_LOSS for check in found) / len(moves)
