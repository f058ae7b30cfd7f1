"""The opponent-model-guided search on the fast core: his predicted moves first, deeper; the rest shallower.

:mod:`search.opponent.omsearch` guides the generic alpha-beta through the search-policy hook;
this module is the same policy for the fast core (:class:`~search.chess.engine.ChessSearch`),
with the same :class:`~search.opponent.omsearch.Guidance` and the same meaning of its settings.
At the modelled player's nodes (the side not to move at the root) a :class:`ModelGuide`

* searches his predicted moves first, most believed first (after the move ordering's
  first move, the table's, when ``keep_first`` is set);
* searches every move believed at least ``extend_at`` ``extension`` plies deeper;
* searches every move believed less than ``reduce_below`` ``reduction`` plies shallower
  and leaves out every move believed less than ``prune_below``, both only where the
  predictions together hold at least ``confidence`` of the belief.

The first legal move a node searches is never pruned, and reduced only with
``reduce_first``; so a node always has a value and a move.

Predictions cost more than nodes, so a guide reads two predictors. The *predictor*
(any :class:`~search.opponent.predictor.MovePredictor`: a ``chess.Board`` with the game's moves
in its move stack to beliefs over ``chess.Move``) is asked at his nodes at most
:attr:`GuideSettings.near` plies below the root; deeper (or everywhere, without a
predictor), the *cheap* predictor, if any,
a :class:`PositionPredictor` that reads the fast board directly (the distilled reply
policy of :mod:`search.chess.replies`, the oracles of :mod:`search.chess.oracle`).
Either is asked only at nodes with at least ``min_depth`` plies left, once per
position: beliefs are kept by the position's key (with the predictor's
``context_key`` of the board when it has one).

Two settings beyond :class:`~search.opponent.omsearch.Guidance` let the fast core express its
cheaper kinds of selectivity: ``verify`` searches a reduced move again at its full
depth when its reduced value beats his best so far (a reduction that the search can
take back), and ``quiet_only`` reduces and prunes only quiet moves and leaves nodes in
check alone. ``order=False`` keeps the core's own move order. The selectivity with a
reply policy (``ChessSearch(replies=..., reduce_below=...)``) is the guide
:func:`reply_guide` builds.

A guide with no predictor, or whose predictors predict nothing, leaves every node as
the plain search has it: the same values, moves and node counts.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import chess

from search.chess.board import Position, from_move, to_move
from search.opponent.omsearch import Guidance
from search.opponent.predictor import MovePredictor, abilities_of, checked_beliefs

__all__ = ["PositionPredictor", "GuideSettings", "GuideStats", "ModelGuide", "Plan", "reply_guide"]



class _Missing(enum.Enum):
    """The cache's answer for a position it holds nothing for (``None`` is a kept answer)."""

    MISSING = enum.auto()


_MISSING = _Missing.MISSING

Plan = tuple[list[int], dict[int, int], frozenset[int]]
"""A guided node's moves in search order, the depth adjustment of each adjusted move, the pruned moves."""


class PositionPredictor(Protocol):
    """Beliefs over a fast position's legal moves (encoded as :mod:`search.chess.board` moves).

    The same contract as :class:`~search.opponent.predictor.MovePredictor`: each belief in [0, 1],
    together at most 1, an empty mapping for no prediction. Not checked at each call:
    the search asks it at many nodes.
    """

    def position_beliefs(self, position: Position) -> Mapping[int, float]: ...


@dataclass(frozen=True)
class GuideSettings:
    """Where the guide reads which predictor, and how its beliefs change the search."""

    guidance: Guidance = field(default_factory=Guidance)
    """Order, extensions, reductions and pruning, as in the generic guided search."""
    near: int = 1
    """His nodes at most this many plies below the root ask the predictor; deeper ones the cheap one."""
    order: bool = True
    """Search his predicted moves first (False: the core's own order)."""
    verify: bool = False
    """Search a reduced move again at full depth when its reduced value beats his best so far."""
    quiet_only: bool = False
    """Reduce and prune only quiet moves (no capture, no promotion); leave nodes in check alone."""

    def __post_init__(self) -> None:
        if self.near < 0:
            raise ValueError(f"near must be at least 0 plies, got {self.near}")


@dataclass(frozen=True)
class GuideStats:
    """What the predictions cost during one search, and how many of his nodes they changed."""

    near_calls: int
    """Positions the predictor was asked about (cache misses)."""
    cheap_calls: int
    """Positions the cheap predictor was asked about (cache misses)."""
    cache_hits: int
    near_seconds: float
    cheap_seconds: float
    guided_nodes: int
    """His nodes whose plan differed from the plain search's."""

    @property
    def seconds(self) -> float:
        """Time spent inside both predictors."""
        return self.near_seconds + self.cheap_seconds

    @property
    def calls(self) -> int:
        return self.near_calls + self.cheap_calls


class ModelGuide:
    """Plans the modelled player's nodes of a fast search from a predictor and a cheap one.

    Keep one per game: the beliefs stay cached across searches (``cache_size`` of the
    guidance bounds them); the counters restart with each search (:meth:`begin`).

    >>> import chess
    >>> from search.chess.engine import ChessSearch
    >>> from search.result import Limits
    >>> guide = ModelGuide(cheap=None)
    >>> ChessSearch(guide=guide).search(chess.Board(), Limits(depth=2)).nodes == ChessSearch().search(
    ...     chess.Board(), Limits(depth=2)).nodes
    True
    """

    def __init__(
        self, predictor: MovePredictor | None = None, *, cheap: PositionPredictor | None = None,
        settings: GuideSettings = GuideSettings(),
    ) -> None:
        self.predictor = predictor
        self.cheap = cheap
        self.settings = settings
        self._context = abilities_of(predictor).context_key
        self._root: chess.Board | None = None
        self._cache: dict[Hashable, Plan | None] = {}
        self._near_calls = self._cheap_calls = self._hits = self._guided = 0
        self._near_seconds = self._cheap_seconds = 0.0

    def begin(self, board: chess.Board) -> None:
        """A search starts from ``board`` (its move stack is the game so far): counters restart."""
        self._root = board.copy()
        self._near_calls = self._cheap_calls = self._hits = self._guided = 0
        self._near_seconds = self._cheap_seconds = 0.0

    def stats(self) -> GuideStats:
        return GuideStats(
            self._near_calls, self._cheap_calls, self._hits, self._near_seconds, self._cheap_seconds, self._guided,
        )

    def may_plan(self, ply: int, depth: float) -> bool:
        """Whether :meth:`plan` may give a plan at his node ``ply`` plies below the root with ``depth`` left.

        False also for every node below such a node (more plies, less depth): the search
        runs those without asking.
        """
        if depth < self.settings.guidance.min_depth:
            return False
        return self.cheap is not None or (self.predictor is not None and ply <= self.settings.near)

    def plan(self, position: Position, moves: list[int], ply: int, depth: int, in_check: bool) -> Plan | None:
        """His node's plan, or ``None`` to search it as the plain search does.

        ``moves`` are the node's pseudo-legal moves in the core's order; ``position`` is
        his position ``ply`` plies below the root with ``depth`` plies left.
        """
        settings = self.settings
        if depth < settings.guidance.min_depth or (in_check and settings.quiet_only):
            return None
        if ply <= settings.near and self.predictor is not None:
            prepared = self._near(position)
        elif self.cheap is not None:
            prepared = self._cheap(position)
        else:
            return None
        if prepared is None:
            return None
        ranked, adjust, pruned = prepared
        if settings.order and ranked:
            first = moves[0] if settings.guidance.keep_first else None
            front = [first, *(move for move in ranked if move != first)] if first is not None else list(ranked)
            chosen = set(front)
            ordered = front + [move for move in moves if move not in chosen]
        else:
            ordered = moves
        if not adjust and not pruned and ordered == moves:
            return None
        self._guided += 1
        return ordered, adjust, pruned

    def believed_move(self, board: chess.Board) -> chess.Move | None:
        """His most believed move at ``board`` when this guide's search already asked a predictor there, else ``None``.

        ``board`` carries the game's move stack (a predictor's context may read it). Nothing is
        predicted here: the beliefs come from the cache the search filled, so the answer costs no time.
        An engine names this move as the reply it ponders on.
        """
        position = Position.from_board(board)
        keys = [(True, position.key, self._context(board)) if self._context is not None else (True, position.key)]
        keys.append((False, position.key))
        for key in keys:
            found = self._cache.get(key)
            if found:
                ranked = found[0]
                move = to_move(ranked[0]) if ranked else None
                if move is not None and move in board.legal_moves:
                    return move
        return None

    # ---- beliefs ----------------------------------------------------------------------

    def _near(self, position: Position) -> Plan | None:
        board = None
        if self._context is not None:
            board = self._board(position)
            key: Hashable = (True, position.key, self._context(board))
        else:
            key = (True, position.key)
        found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            self._hits += 1
            return found
        if board is None:
            board = self._board(position)
        assert self.predictor is not None  # asked only with a predictor
        started = time.perf_counter()
        raw = self.predictor.predict_proba(board)
        self._near_seconds += time.perf_counter() - started
        self._near_calls += 1
        checked = checked_beliefs(raw, set(board.legal_moves))
        beliefs = {from_move(move): belief for move, belief in checked.items() if belief > 0}
        return self._keep(key, position, beliefs)

    def _cheap(self, position: Position) -> Plan | None:
        key = (False, position.key)
        found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            self._hits += 1
            return found
        assert self.cheap is not None  # asked only with a cheap predictor
        started = time.perf_counter()
        beliefs = {move: belief for move, belief in self.cheap.position_beliefs(position).items() if belief > 0}
        self._cheap_seconds += time.perf_counter() - started
        self._cheap_calls += 1
        return self._keep(key, position, beliefs)

    def _board(self, position: Position) -> chess.Board:
        """The game's board at ``position``: the root's, with the moves made since pushed."""
        if self._root is None:
            raise RuntimeError("the guide's search has not begun (ModelGuide.begin)")
        board = self._root.copy()
        for move in position.moves_made():
            board.push(to_move(move))
        return board

    def _keep(self, key: Hashable, position: Position, beliefs: dict[int, float]) -> Plan | None:
        prepared = self._prepare(position, beliefs) if beliefs else None
        if len(self._cache) >= self.settings.guidance.cache_size:
            self._cache.clear()
        self._cache[key] = prepared
        return prepared

    def _prepare(self, position: Position, beliefs: dict[int, float]) -> Plan:
        """The predicted moves, most believed first; every legal move's depth adjustment; the pruned moves."""
        guidance, quiet_only = self.settings.guidance, self.settings.quiet_only
        confident = sum(beliefs.values()) >= guidance.confidence
        ranked = sorted(beliefs, key=lambda move: (-beliefs[move], move))
        selective = confident and (guidance.reduce_below > 0 or guidance.prune_below > 0)
        moves = position.legal_moves() if selective else ranked
        squares = position.board
        adjust: dict[int, int] = {}
        pruned = set()
        for move in moves:
            belief = beliefs.get(move, 0.0)
            if belief >= guidance.extend_at:
                if guidance.extension:
                    adjust[move] = guidance.extension
                continue
            if not confident or (quiet_only and (squares[move >> 7 & 127] or move >> 14)):
                continue
            if belief < guidance.prune_below:
                pruned.add(move)
            if belief < guidance.reduce_below and guidance.reduction:
                adjust[move] = -guidance.reduction
        return ranked, adjust, frozenset(pruned)


def reply_guide(replies: PositionPredictor, reduce_below: float) -> ModelGuide:
    """The reply policy's selectivity: his quiet moves believed less than ``reduce_below``
    searched a ply shallower (taken back when one beats his best move), the order kept."""
    guidance = Guidance(extend_at=1.0, extension=0, reduce_below=reduce_below, reduction=1, confidence=0.0, min_depth=2)
    settings = GuideSettings(guidance=guidance, near=0, order=False, verify=True, quiet_only=True)
    return ModelGuide(cheap=replies, settings=settings)


def line_keys(board: chess.Board, line: Sequence[chess.Move]) -> list[int]:
    """The fast keys of ``board`` and of the positions along ``line`` (while it stays legal and the game goes on)."""
    position = Position.from_board(board)
    replay = board.copy(stack=False)
    keys = [position.key]
    for move in line:
        if replay.is_game_over() or move not in replay.legal_moves:
            break
        replay.push(move)
        position.make(from_move(move))
        keys.append(position.key)
    return keys
