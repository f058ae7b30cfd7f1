"""The chess search loop on the fast board: alpha-beta specialised to :class:`Position`.

The generic worker of :mod:`search.alphabeta` reaches a chess position through the
game protocol (a cursor, an orderer, a table object, an evaluator), and those calls
are most of its cost. This loop is the same search written for one game: negamax
alpha-beta with a principal-variation (zero-window) scheme, a transposition table in
a plain dict, the table's move, MVV-LVA captures, two killers per ply and a history
score for move order, and quiescence search. It prunes nothing unsoundly, so its
values are those of plain alpha-beta to the same depth: the game rules, the
quiescence rules and the draw rules are the generic chess adapter's
(:mod:`search.chess.game`), and the tests hold the two to the same values.

Rules, as in the adapter: values are centipawns from the side to move; a mate ``p``
plies below the root is worth ``MATE - p`` (negated for the mated side); below the
root a position that occurred before (on the path or in the game since the last
capture or pawn move) is a draw, at the root only a threefold repetition; fifty moves
(halfmove clock 100) and insufficient material are draws; in check quiescence
searches every move, elsewhere it may stand pat on the evaluation.

Guidance at his nodes (off by default): a :class:`~search.chess.guided.ModelGuide` of the
opponent (the side not to move at the root) plans each of his nodes from a model's
beliefs: his predicted moves first, the strongly believed ones searched deeper, the ones
the model rules out shallower or not at all (:mod:`search.chess.guided`). The search then
looks deeper along the lines he is likely to choose; its values are no longer plain
alpha-beta's, which is why it is off unless asked for. One such guide is the reply
policy's selectivity (``replies`` and ``reduce_below``, used by the exploiting search of
:mod:`search.chess.exploit`): at his nodes two or more plies from the horizon, the quiet
moves a :class:`~search.chess.replies.ReplyPolicy` believes less than the threshold are
searched one ply shallower, with a zero window, and searched again in full only when one
of them beats his best move so far.

Line watch: given the line the game went on with (``line``), the search records per
completed iteration how far it followed that line before handing it to the evaluation
and where its horizon lay (:meth:`ChessSearch.shape`, the figures of
:class:`search.probe.DepthProbe`); it changes nothing in the search.

Contempt: a draw (repetition, fifty moves, dead material, stalemate) is worth
``-contempt`` to the side to move at the root and ``+contempt`` to the other side, so
a positive contempt makes the engine play on rather than take a draw that is level by
its evaluation. The default 0 keeps the adapter's values.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TypedDict

import chess
import numpy as np

from search.chess.board import Position, from_move, to_move
from search.chess.guided import ModelGuide, line_keys, reply_guide
from search.probe import IterationShape
from search.result import MAX_PLY, Limits, SearchResult

if TYPE_CHECKING:
    from search.chess.replies import ReplyPolicy

__all__ = ["ChessSearch", "MATE", "INFINITE"]

MATE = 100_000
"""A checkmate's value for the winner; a mate ``p`` plies below the root is ``MATE - p``."""
INFINITE = 1_000_000
_MATE_BOUND = MATE // 2
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 1023  # nodes between looks at the clock and the stop flag
_HINT, _CAPTURE, _KILLER = 1 << 40, 1 << 30, 1 << 29
_VICTIM = (0, 1, 3, 3, 5, 9, 0)
_MOVE_BITS = (1 << 17) - 1


class _Counters(TypedDict):
    """A search's counters, as :class:`SearchResult` takes them."""

    nodes: int
    qnodes: int
    cutoffs: int
    tt_hits: int


class _Aborted(Exception):
    """A node or time budget ran out, or a stop was requested."""


def _to_table(value: int, ply: int) -> int:
    """A value found ``ply`` plies below the root, as stored (mates relative to the node)."""
    if value >= _MATE_BOUND:
        return value + ply
    if value <= -_MATE_BOUND:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value >= _MATE_BOUND:
        return value - ply
    if value <= -_MATE_BOUND:
        return value + ply
    return value


class ChessSearch:
    """One engine's search state: transposition table, killers, history, counters.

    Keep one per game (the table carries over from move to move); ``table_size`` bounds
    the table (it is emptied when full). ``quiescence=False`` evaluates the horizon
    statically. ``use_table=False`` searches without a table (for reference searches).
    ``guide`` plans the opponent's nodes (see the module docstring); ``replies`` and
    ``reduce_below`` set the reply policy's selectivity instead (a guide of its own).
    With neither (the default) every move is searched alike.

    >>> import chess
    >>> from search import Limits
    >>> result = ChessSearch().search(chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), Limits(depth=3))
    >>> result.move, result.value == MATE - 1, result.depth
    (Move.from_uci('a1a8'), True, 3)
    """

    def __init__(
        self, *, table_size: int = 1_000_000, quiescence: bool = True, use_table: bool = True, contempt: int = 0,
        replies: ReplyPolicy | None = None, reduce_below: float = 0.0, guide: ModelGuide | None = None,
    ) -> None:
        if not 0.0 <= reduce_below < 1.0:
            raise ValueError(f"reduce_below must be in [0, 1), got {reduce_below}")
        if guide is not None and replies is not None:
            raise ValueError("give a guide or a reply policy, not both")
        self.table_size = table_size
        self.contempt = contempt
        """Centipawns a draw costs the side to move at the root (may change between searches)."""
        self._draw_values = (0, 0)  # a draw's value for White to move, for Black to move
        self._drawn_for: int | None = None  # the root side the table's draws were valued for under a contempt
        self.quiescence = quiescence
        self.use_table = use_table
        self.guide = guide
        """What plans the opponent's nodes (None: nothing)."""
        self._replies = replies
        self._reduce_below = reduce_below
        if replies is not None:
            self.guide = reply_guide(replies, reduce_below)
        self.reduced = self.extended = self.pruned = 0
        """Moves searched shallower, deeper, not at all at his nodes in the last search (over all its depths)."""
        self._his_side = -1
        self._watch: list[int] | None = None
        self._line_state: list[float] = [0, 0.0]  # plies of the line entered, line depth (this iteration)
        self._horizon_counts = np.zeros(MAX_PLY + 1, dtype=np.int64)
        self.shapes: dict[int, IterationShape] = {}
        """Per completed depth of the last watched search: the tree's shape (:meth:`shape`)."""
        self.line_length = 0
        """Plies of the watched line that could be followed from the root."""
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.qtable: dict[int, tuple[int, int]] = {}
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_PLY + 2)]
        self.history: dict[int, int] = {}
        self.nodes = self.qnodes = self.cutoffs = self.tt_hits = 0
        self._deadline: float | None = None
        self._max_nodes: int | None = None
        self._stop: threading.Event | None = None
        self._pv: list[list[int]] = [[] for _ in range(MAX_PLY + 2)]
        self._root_only: frozenset[int] | None = None  # the root moves searched (None: all)

    @property
    def replies(self) -> ReplyPolicy | None:
        """The opponent's reply policy for the selectivity at his nodes (None: none).

        Setting it (or :attr:`reduce_below`) replaces the guide by the reply policy's.
        """
        return self._replies

    @replies.setter
    def replies(self, policy: ReplyPolicy | None) -> None:
        self._replies = policy
        self.guide = None if policy is None else reply_guide(policy, self._reduce_below)

    @property
    def reduce_below(self) -> float:
        """His quiet moves the reply policy believes less than this are searched a ply shallower first."""
        return self._reduce_below

    @reduce_below.setter
    def reduce_below(self, below: float) -> None:
        if not 0.0 <= below < 1.0:
            raise ValueError(f"reduce_below must be in [0, 1), got {below}")
        self._reduce_below = below
        if self._replies is not None:
            self.guide = reply_guide(self._replies, below)

    def shape(self, depth: int) -> IterationShape | None:
        """The watched search's iteration of nominal ``depth``: horizon and reach along the line."""
        return self.shapes.get(depth)

    def clear(self) -> None:
        """Forget the tables, killers and history (a new game)."""
        self.table.clear()
        self.qtable.clear()
        self.history.clear()
        self.killers = [[0, 0] for _ in range(MAX_PLY + 2)]
        self._drawn_for = None

    # ---- entry points --------------------------------------------------------------------

    def iterate(
        self, board: chess.Board, limits: Limits = Limits(), *, stop: threading.Event | None = None,
        only: chess.Move | None = None, line: Sequence[chess.Move] | None = None,
    ) -> Iterator[SearchResult]:
        """Yield one result per completed depth (counters cumulative), as :func:`search.iterate`.

        ``only`` restricts the root to that one legal move (a reference search of one
        move's value; ``ValueError`` if it is not legal). ``line`` watches that line of
        play from the root (:meth:`shape`). A finished game yields nothing.
        """
        if only is not None and only not in board.legal_moves:
            raise ValueError(f"{only} is not legal in {board.fen()}")
        started = time.perf_counter()
        position = self._start(board, limits, stop, started, line)
        if position is None:
            return
        self._root_only = None if only is None else frozenset((from_move(only),))
        previous = 0
        for depth in range(1, (limits.depth or 64) + 1):
            if self._watch is not None:
                self._line_state = [0, float(depth)]
                self._horizon_counts = np.zeros(MAX_PLY + 1, dtype=np.int64)
            try:
                value = self._root(position, depth, previous)
            except _Aborted:
                return
            if self._watch is not None:
                entered, reach = self._line_state
                self.shapes[depth] = IterationShape(depth, self._horizon_counts, int(entered), reach)
            pv = self._pv[0]
            previous = pv[0] if pv else 0
            yield self._result(value, pv, depth, started)

    def iterate_lines(
        self, board: chess.Board, limits: Limits, lines: int, *, stop: threading.Event | None = None,
    ) -> Iterator[tuple[SearchResult, ...]]:
        """The ``lines`` best root moves, each with its value and line, per completed depth (UCI MultiPV).

        At each depth the root is searched once per line, each time without the moves
        already ranked, so every line's value is exact for its move and the lines come
        best first. The first line is what :meth:`iterate` finds. A depth whose lines
        did not all finish is not yielded; a finished game yields nothing.
        """
        if lines < 1:
            raise ValueError(f"lines must be at least 1, got {lines}")
        started = time.perf_counter()
        position = self._start(board, limits, stop, started, None)
        if position is None:
            return
        legal = frozenset(from_move(move) for move in board.legal_moves)
        count = min(lines, len(legal))
        previous: list[int] = []
        try:
            for depth in range(1, (limits.depth or 64) + 1):
                ranked: list[int] = []
                results = []
                for line in range(count):
                    self._root_only = None if not ranked else legal.difference(ranked)
                    allowed = legal if self._root_only is None else self._root_only
                    first = previous[line] if line < len(previous) and previous[line] in allowed else 0
                    value = self._root(position, depth, first)
                    pv = self._pv[0]
                    ranked.append(pv[0])
                    results.append(self._result(value, pv, depth, started))
                previous = ranked
                yield tuple(results)
        except _Aborted:
            return
        finally:
            self._root_only = None

    def search(
        self, board: chess.Board, limits: Limits, *, stop: threading.Event | None = None,
        only: chess.Move | None = None, line: Sequence[chess.Move] | None = None,
    ) -> SearchResult:
        """The deepest completed iteration's answer within ``limits`` (as :func:`search.search`).

        Counters and seconds include the interrupted iteration. A finished game gives
        no move and its value; if not even depth 1 completes, the first legal move
        with the static evaluation and ``depth=0``.
        """
        started = time.perf_counter()
        last = None
        for last in self.iterate(board, limits, stop=stop, only=only, line=line):
            pass
        seconds = time.perf_counter() - started
        counts = _Counters(nodes=self.nodes, qnodes=self.qnodes, cutoffs=self.cutoffs, tt_hits=self.tt_hits)
        if last is not None:
            return SearchResult(value=last.value, move=last.move, pv=last.pv, depth=last.depth,
                                seconds=seconds, **counts)
        position = Position.from_board(board)
        if self._root_terminal(position):
            mated = position.in_check() and not position.has_legal_move()
            value = -(MATE) if mated else self._draw_values[position.side]
            return SearchResult(value=value, move=None, seconds=seconds, **counts)
        move = to_move(position.legal_moves()[0])
        return SearchResult(value=position.evaluate(), move=move, pv=(move,), depth=0, seconds=seconds, **counts)

    def score_moves(self, board: chess.Board, depth: int, *, deadline: float | None = None) -> dict[chess.Move, int]:
        """Every legal move's exact value: each child searched ``depth - 1`` plies, full window.

        Iterative deepening to ``depth - 1`` first fills the table and the move order;
        then every root move gets a full-window search, so each value is exact. A
        full-window quiescence can be costly in a tactical position: with a ``deadline``
        (``time.perf_counter`` seconds) the scoring raises :class:`TimeoutError` when it
        passes, since a partial set of scores would not be exact.
        """
        started = time.perf_counter()
        limits = Limits(time=None if deadline is None else max(0.0, deadline - started))
        position = self._start(board, limits, None, started, None)
        if position is None:
            return {}
        try:
            return self._score_moves(position, depth)
        except _Aborted:
            raise TimeoutError(
                f"scoring {len(list(board.legal_moves))} moves to depth {depth} passed its deadline"
            ) from None

    def _score_moves(self, position: Position, depth: int) -> dict[chess.Move, int]:
        """The body of :meth:`score_moves`; raises ``_Aborted`` past the deadline."""
        previous = 0
        for shallower in range(1, depth):
            self._root(position, shallower, previous)
            previous = self._pv[0][0] if self._pv[0] else 0
        scores = {}
        for move in position.legal_moves():
            position.make(move)
            value = -self._negamax(position, depth - 1, -INFINITE, INFINITE, 1)
            position.unmake()
            scores[to_move(move)] = value
        return scores

    # ---- internals -----------------------------------------------------------------------

    def _start(
        self, board: chess.Board, limits: Limits, stop: threading.Event | None, started: float,
        line: Sequence[chess.Move] | None,
    ) -> Position | None:
        """Ready a search from ``board`` (budget, watched line, guide, draw values); ``None`` if the game is over."""
        position = Position.from_board(board)
        self._begin(limits, stop, started)
        self._begin_watch(board, line)
        if self.guide is not None:
            self.guide.begin(board)
        self._root_only = None
        self._his_side = 1 - position.side
        self._value_draws(position)
        return None if self._root_terminal(position) else position

    def _begin(self, limits: Limits, stop: threading.Event | None, started: float) -> None:
        self.nodes = self.qnodes = self.cutoffs = self.tt_hits = self.reduced = self.extended = self.pruned = 0
        self._deadline = None if limits.time is None else started + limits.time
        self._max_nodes = limits.nodes
        self._stop = stop

    def _begin_watch(self, board: chess.Board, line: Sequence[chess.Move] | None) -> None:
        self.shapes = {}
        self._watch = None if line is None else line_keys(board, line)
        self.line_length = 0 if self._watch is None else len(self._watch) - 1

    def _visit(self, position: Position, ply: int, depth: int) -> None:
        """A main-search node of a watched search (as :meth:`search.probe.DepthProbe.visit`)."""
        if depth <= 0:
            self._horizon_counts[ply] += 1
        state = self._line_state
        watch = self._watch
        assert watch is not None  # called only in a watched search
        if 0 < ply < len(watch) and ply >= state[0] and position.key == watch[ply]:
            reach: float = ply + max(depth, 0)
            if ply == state[0]:
                reach = max(reach, state[1])
            state[0], state[1] = ply, float(reach)

    def _result(self, value: int, pv: list[int], depth: int, started: float) -> SearchResult:
        moves = tuple(to_move(m) for m in pv)
        return SearchResult(
            value=value, move=moves[0] if moves else None, pv=moves, nodes=self.nodes,
            qnodes=self.qnodes, cutoffs=self.cutoffs, tt_hits=self.tt_hits, depth=depth,
            seconds=time.perf_counter() - started,
        )

    @staticmethod
    def _root_terminal(position: Position) -> bool:
        """The game's own end: no legal move, fifty moves, threefold, dead material."""
        return (
            not position.has_legal_move()
            or position.halfmove >= 100
            or position.repetitions() >= 2
            or position.insufficient_material()
        )

    def _check_budget(self) -> None:
        total = self.nodes + self.qnodes
        if self._max_nodes is not None and total > self._max_nodes:
            raise _Aborted
        if self._deadline is not None and time.perf_counter() >= self._deadline:
            raise _Aborted
        if self._stop is not None and self._stop.is_set():
            raise _Aborted

    def _root(self, position: Position, depth: int, first: int) -> int:
        """Search the root to ``depth`` with a full window; the line is in ``self._pv[0]``."""
        self._check_budget()  # also between root moves: a stop is seen at once at shallow depths
        self.nodes += 1
        in_check = position.in_check()
        moves = position.pseudo_moves()
        if self._root_only is not None:
            moves = [m for m in moves if m in self._root_only]
        moves = self._order(position, moves, first or self._table_move(position), 0)
        alpha, best = -INFINITE, -INFINITE
        pv = self._pv
        pv[0] = []
        for move in moves:
            if not position.make(move, in_check):
                position.unmake()
                continue
            if best > -INFINITE:
                self._check_budget()
            if best == -INFINITE:
                value = -self._negamax(position, depth - 1, -INFINITE, -alpha, 1)
            else:
                value = -self._negamax(position, depth - 1, -alpha - 1, -alpha, 1)
                if value > alpha:
                    value = -self._negamax(position, depth - 1, -INFINITE, -alpha, 1)
            position.unmake()
            if value > best:
                best = value
                pv[0] = [move, *pv[1]]
                if value > alpha:
                    alpha = value
        if self.use_table and self._root_only is None:  # some moves' value is not the position's
            self._store(position.key, depth, best, -INFINITE, INFINITE, pv[0][0] if pv[0] else 0, 0)
        return best

    def _table_move(self, position: Position) -> int:
        entry = self.table.get(position.key) if self.use_table else None
        return entry[3] if entry else 0

    def _order(self, position: Position, moves: list[int], hint: int, ply: int) -> list[int]:
        """Table move, captures by MVV-LVA (promotions too), killers, then history.

        Each move is sorted as one integer, its score above its 17 move bits.
        """
        board = position.board
        killer, second = self.killers[ply]
        history = self.history
        side = position.side
        keyed: list[int] = []
        add = keyed.append
        for move in moves:
            if move == hint:
                add(_HINT << 17 | move)
                continue
            victim = board[move >> 7 & 127]
            promotion = move >> 14
            if victim or promotion:
                attacker = board[move & 127]
                score = (_CAPTURE + 100 * _VICTIM[victim if victim > 0 else -victim]
                         - _VICTIM[attacker if attacker > 0 else -attacker] + 100 * _VICTIM[promotion])
            elif move == killer:
                score = _KILLER + 1
            elif move == second:
                score = _KILLER
            else:
                score = history.get(move << 1 | side, 0)
            add(score << 17 | move)
        keyed.sort(reverse=True)
        return [key & _MOVE_BITS for key in keyed]

    def _store(self, key: int, depth: int, value: int, alpha: int, beta: int, move: int, ply: int) -> None:
        """Record a fail-soft result as bounds, merged with an entry of the same depth."""
        table = self.table
        stored = _to_table(value, ply)
        lower = stored if value > alpha else -INFINITE
        upper = stored if value < beta else INFINITE
        entry = table.get(key)
        if entry is not None:
            old_depth, old_lower, old_upper, old_move = entry
            if depth < old_depth:
                return
            if depth == old_depth:
                if old_lower > lower:
                    lower = old_lower
                if old_upper < upper:
                    upper = old_upper
                if lower > upper:  # contradiction (path-dependent draws): trust the newest
                    lower = stored if value > alpha else -INFINITE
                    upper = stored if value < beta else INFINITE
            if value <= alpha and old_move:
                move = old_move  # a fail-low has no best move worth keeping
        elif len(table) >= self.table_size:
            table.clear()
        table[key] = (depth, lower, upper, move)

    def _value_draws(self, root: Position) -> None:
        """A draw's value for each side to move under the contempt, seen from ``root``'s mover.

        The table holds values with draws in them. A contempt for the other side would
        turn their sign, so the table is emptied when the root side changes under a
        contempt; a new size of contempt for the same side only shifts them a little, and
        the table stays (as it does for the path-dependent draws).
        """
        contempt = int(self.contempt)
        self._draw_values = (-contempt, contempt) if root.side == 0 else (contempt, -contempt)
        if not contempt:
            return
        if self._drawn_for is not None and self._drawn_for != root.side:
            self.table.clear()
            self.qtable.clear()
        self._drawn_for = root.side

    def _draw_or_mated(self, position: Position, ply: int) -> int:
        """The value of a position the draw rules end: the draw's, unless the mover is checkmated."""
        if position.in_check() and not position.has_legal_move():
            return -(MATE - ply)
        return self._draw_values[position.side]

    def _negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:  # noqa: C901
        self.nodes += 1
        if not (self.nodes + self.qnodes) & _CHECK_EVERY:
            self._check_budget()
        if self._watch is not None:
            self._visit(position, ply, depth)
        pv = self._pv
        pv[ply] = []
        if position.halfmove >= 100 or position.repeated() or (not position.heavy and position.insufficient_material()):
            return self._draw_or_mated(position, ply)
        if depth <= 0 or ply >= MAX_PLY:
            if self.quiescence:
                return self._quiesce(position, alpha, beta, ply, True)
            in_check = position.in_check()
            if not position.has_legal_move():
                return -(MATE - ply) if in_check else self._draw_values[position.side]
            return position.evaluate()

        key = position.key
        hint = 0
        if self.use_table:
            entry = self.table.get(key)
            if entry is not None:
                hint = entry[3]
                if entry[0] >= depth:
                    lower = _from_table(entry[1], ply)
                    if lower >= beta or entry[1] == entry[2]:
                        self.tt_hits += 1
                        return lower
                    upper = _from_table(entry[2], ply)
                    if upper <= alpha:
                        self.tt_hits += 1
                        return upper

        in_check = position.in_check()
        moves = self._order(position, position.pseudo_moves(), hint, ply)
        original_alpha = alpha
        best, best_move = -INFINITE, 0
        legal = 0
        child = depth - 1
        # a horizon child goes straight to quiescence, which applies the draw rules itself
        search = self._horizon if child <= 0 and self.quiescence else self._negamax
        plan = None
        if self.guide is not None and position.side == self._his_side:
            plan = self.guide.plan(position, moves, ply, depth, in_check)
            if self._deadline is not None:  # a prediction may take longer than a thousand nodes
                self._check_budget()
            if plan is not None:
                moves, adjust, pruned = plan
        for move in moves:
            if not position.make(move, in_check):
                position.unmake()
                continue
            if plan is not None:
                if legal and move in pruned:
                    position.unmake()
                    self.pruned += 1
                    continue
                legal += 1
                value = self._guided_child(position, child, adjust.get(move, 0), alpha, beta, ply, legal == 1)
            elif legal == 0:
                legal = 1
                value = -search(position, child, -beta, -alpha, ply + 1)
            else:
                legal += 1
                value = -search(position, child, -alpha - 1, -alpha, ply + 1)
                if alpha < value < beta:
                    value = -search(position, child, -beta, -alpha, ply + 1)
            position.unmake()
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    pv[ply] = [move, *pv[ply + 1]]
                    alpha = value
                    if alpha >= beta:
                        self.cutoffs += 1
                        self._record_cutoff(position, move, ply, depth)
                        break
        if not legal:
            return -(MATE - ply) if in_check else self._draw_values[position.side]
        if self.use_table:
            self._store(key, depth, best, original_alpha, beta, best_move, ply)
        return best

    def _guided_child(
        self, position: Position, child: int, extra: int, alpha: int, beta: int, ply: int, first: bool
    ) -> int:
        """A move's value at a guided node of his: searched ``extra`` plies deeper (or shallower).

        The first move gets the full window and is reduced only with ``reduce_first``; a
        reduced move whose value beats his best so far is searched again at full depth
        under ``verify``.
        """
        assert self.guide is not None  # only guided nodes have guided children
        settings = self.guide.settings
        if extra < 0 and first and not settings.guidance.reduce_first:
            extra = 0
        depth = child + extra
        search = self._horizon if depth <= 0 and self.quiescence else self._negamax
        if extra > 0:
            self.extended += 1
        elif extra < 0:
            self.reduced += 1
        if first:
            return -search(position, depth, -beta, -alpha, ply + 1)
        value = -search(position, depth, -alpha - 1, -alpha, ply + 1)
        if extra < 0 and value > alpha and settings.verify:  # it would be his best move so far: search it in full
            search = self._horizon if child <= 0 and self.quiescence else self._negamax
            value = -search(position, child, -alpha - 1, -alpha, ply + 1)
        if alpha < value < beta:
            value = -search(position, child if extra < 0 and settings.verify else depth, -beta, -alpha, ply + 1)
        return value

    def _horizon(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        """A node at the horizon: counted as a main-search node, valued by quiescence."""
        self.nodes += 1
        if self._watch is not None:
            self._visit(position, ply, depth)
        self._pv[ply] = []
        return self._quiesce(position, alpha, beta, ply, False)

    def _record_cutoff(self, position: Position, move: int, ply: int, depth: int) -> None:
        if position.board[move >> 7 & 127] or move >> 14:
            return  # captures and promotions are ordered by MVV-LVA already
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        key = move << 1 | position.side
        self.history[key] = min(self.history.get(key, 0) + depth * depth, _KILLER - 1)

    def _quiesce(self, position: Position, alpha: int, beta: int, ply: int, checked: bool) -> int:  # noqa: C901
        """Stand pat or search the captures and promotions; in check, every move.

        The caller has applied the draw rules to this position when ``checked``.
        """
        if not checked:
            if not (self.nodes + self.qnodes) & _CHECK_EVERY:
                self._check_budget()
            if position.halfmove >= 100 or position.repeated() or (
                not position.heavy and position.insufficient_material()
            ):
                return self._draw_or_mated(position, ply)
        if ply >= MAX_PLY:
            if not position.has_legal_move():
                return -(MATE - ply) if position.in_check() else self._draw_values[position.side]
            return position.evaluate()
        key = position.key
        if self.use_table:
            bounds = self.qtable.get(key)
            if bounds is not None:
                lower = _from_table(bounds[0], ply)
                if lower >= beta or bounds[0] == bounds[1]:
                    return lower
                upper = _from_table(bounds[1], ply)
                if upper <= alpha:
                    return upper
        original_alpha = alpha
        in_check = position.in_check()
        if in_check:
            best = -INFINITE
            moves = self._order(position, position.pseudo_moves(), 0, ply)
        else:
            best = position.evaluate()
            if best >= beta:
                return best if position.has_legal_move(False) else self._draw_values[position.side]
            if best > alpha:
                alpha = best
            moves = position.captures()
        legal = 0
        for move in moves:
            if not position.make(move, in_check):
                position.unmake()
                continue
            legal += 1
            self.qnodes += 1
            value = -self._quiesce(position, -beta, -alpha, ply + 1, False)
            position.unmake()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self.cutoffs += 1
                        break
        if not legal:
            if in_check:
                return -(MATE - ply)
            if not position.has_legal_move(False):
                return self._draw_values[position.side]
        if self.use_table and (legal or best > original_alpha):
            self._store_quiet(key, best, original_alpha, beta, ply)
        return best

    def _store_quiet(self, key: int, value: int, alpha: int, beta: int, ply: int) -> None:
        """Record a quiescence result as bounds (its own table: depth 0, no move)."""
        stored = _to_table(value, ply)
        lower = stored if value > alpha else -INFINITE
        upper = stored if value < beta else INFINITE
        table = self.qtable
        old = table.get(key)
        if old is not None:
            lower, upper = max(lower, old[0]), min(upper, old[1])
            if lower > upper:  # contradiction (path-dependent draws): trust the newest
                lower = stored if value > alpha else -INFINITE
                upper = stored if value < beta else INFINITE
        elif len(table) >= self.table_size:
            table.clear()
        table[key] = (lower, upper)
