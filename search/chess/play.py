"""The selective search the UCI engine plays with: the fast core's search with extensions and reductions.

The plain search of :mod:`search.chess.engine` prunes nothing unsoundly: its values are
plain alpha-beta's to the nominal depth, which the move ranker's features and the
conformance recording rest on. Over the board a search is judged by the moves it finds
in a given time, and a few selective rules, compiled into kernels of their own (the exact
kernels do not change, nor pay for a flag), find more of them:

- **check extension**: a node whose side to move is in check is searched one ply deeper,
  so a line of checks is not cut at the horizon (mates and perpetual checks are seen
  sooner);
- **null-move pruning**: at a zero-window node out of check, three or more plies from the
  horizon, whose static evaluation is at least beta and whose side to move has a piece
  besides king and pawns, the side to move passes; when the reply searched two or three
  plies shallower still cannot bring the value below beta, the node fails high without
  searching its moves. Not after a pass, nor in king-and-pawn endings, where having to move
  can lose (zugzwang);
- **late-move reductions**: out of check, three or more plies from the horizon, a quiet
  move (no capture, promotion or check; neither the table's move nor a killer) ordered
  fourth or later is searched a ply shallower (two from the thirteenth on, at six plies or
  more) with a zero window, and again at full depth when it beats alpha;
- **futility pruning**: at a zero-window node out of check one or two plies from the horizon
  whose static evaluation, plus 150 centipawns a ply, cannot reach alpha, the quiet moves
  that give no check after the first are not searched (the node keeps that hope as its value);
- **mate distance**: a node cannot be worth more than a mate in one from it, nor less than
  being mated at once; a window beyond those bounds settles the node.

The transposition table, move order, killers, history, quiescence and draw rules are the
plain search's (the same functions). :class:`PlaySearch` is a :class:`ChessSearch` that
runs these kernels for its unguided searches while :attr:`PlaySearch.selective` is set;
its table is emptied when it changes between selective and exact values, so an exact
search never reads a selective one's bounds. Its :meth:`~PlaySearch.score_moves` stays
exact.
"""

from __future__ import annotations

import threading

import chess
from numba import njit

from search.chess.board import (
    _SQ,
    _Z_EP,
    _Z_SIDE,
    HEADER,
    S_CASTLING,
    S_EG,
    S_EP,
    S_FULLMOVE,
    S_HALFMOVE,
    S_HEAVY,
    S_KEY,
    S_KEY_START,
    S_KEY_TOP,
    S_MG,
    S_OCCUPIED,
    S_PHASE,
    S_SIDE,
    S_UNDO_CAP,
    S_UNDO_COUNT,
    UNDO_FIELDS,
    Position,
    _drawn_by_rule,
    _evaluate,
    _has_legal_move,
    _in_check,
    _make,
    _pick,
    _pseudo_moves,
    _unmake,
)
from search.chess.engine import (
    _CHECK_EVERY,
    _MATE_BOUND,
    _NODE,
    C_ABORT,
    C_CUTOFFS,
    C_DRAW,
    C_KILLERS,
    C_NODES,
    C_PV,
    C_PV_LENGTH,
    C_QNODES,
    C_QUIESCENCE,
    C_ROOT_ONLY,
    C_USE_TABLE,
    C_WATCHING,
    INFINITE,
    MATE,
    ChessSearch,
    _Aborted,
    _draw_or_mated,
    _key_moves,
    _out_of_budget,
    _probe,
    _quiesce,
    _record_cutoff,
    _root_moves,
    _set_line,
    _store,
    _visit,
)
from search.result import MAX_PLY, Limits

__all__ = ["PlaySearch"]

C_PASSES, C_REDUCED, C_EXTENDED = 21, 22, 23  # free slots of the context array: the selective rules' counters

_NULL_FROM = 3
"""The depth from which a node may try a pass (null move)."""
_LMR_FROM, _LMR_AFTER, _LMR_DEEP_AFTER, _LMR_DEEP_DEPTH = 3, 3, 12, 6
"""Late-move reductions: from this depth, past this many legal moves (one ply), past that many at that depth
or more (two plies)."""
_FUTILE_DEPTH, _FUTILITY_MARGIN = 2, 150
"""Futility pruning: at most this many plies from the horizon, the centipawns a quiet move may gain per ply."""


@njit(cache=True)
def _has_pieces(s):
    """Whether the side to move has a knight, bishop, rook or queen."""
    sign = 1 if s[S_SIDE] == 0 else -1
    for square in _SQ:
        kind = s[square] * sign
        if 2 <= kind <= 5:
            return True
    return False


@njit(cache=True)
def _after_pass(s):
    """Whether the last move made was a pass."""
    count = s[S_UNDO_COUNT]
    return count > 0 and s[HEADER + (count - 1) * UNDO_FIELDS] == 0


@njit(cache=True)
def _make_pass(s):
    """The side to move passes (undone by the board's :func:`_unmake`): no repetition is seen across it."""
    side = s[S_SIDE]
    record = HEADER + s[S_UNDO_COUNT] * UNDO_FIELDS
    s[S_UNDO_COUNT] += 1
    s[record] = 0  # move 0 from and to the border square 0: the undo puts back what stands there
    s[record + 1] = s[0]
    s[record + 2] = s[0]
    s[record + 3] = s[S_CASTLING]
    s[record + 4] = s[S_EP]
    s[record + 5] = s[S_HALFMOVE]
    s[record + 6] = s[S_KEY]
    s[record + 7] = s[S_MG]
    s[record + 8] = s[S_EG]
    s[record + 9] = s[S_PHASE]
    s[record + 10] = s[S_HEAVY]
    s[record + 11] = s[S_KEY_START]
    s[record + 12] = s[S_OCCUPIED + side]
    s[record + 13] = s[S_OCCUPIED + 1 - side]
    key = s[S_KEY] ^ _Z_SIDE
    if s[S_EP]:
        key ^= _Z_EP[s[S_EP] % 10]
        s[S_EP] = 0
    s[S_SIDE] = 1 - side
    if side == 1:
        s[S_FULLMOVE] += 1
    s[S_KEY] = key
    keys = HEADER + s[S_UNDO_CAP] * UNDO_FIELDS
    s[keys + s[S_KEY_TOP]] = key
    s[S_KEY_TOP] += 1
    s[S_KEY_START] = s[S_KEY_TOP] - 1


@njit(_NODE, cache=True, nogil=True)
def _play_node(s, ctx, buffers, tables, depth, alpha, beta, ply):  # noqa: C901
    """A node of the selective search (the module's rules); fail-soft, values from the side to move."""
    ctx[C_NODES] += 1
    if not (ctx[C_NODES] + ctx[C_QNODES]) & _CHECK_EVERY and _out_of_budget(ctx):
        return 0
    if ctx[C_WATCHING]:
        _visit(s, ctx, ply, depth)
    ctx[C_PV_LENGTH + ply] = 0
    moves = buffers[ply]
    if _drawn_by_rule(s):
        return _draw_or_mated(s, ctx, moves, ply)
    in_check = _in_check(s)
    if in_check:
        depth += 1
        ctx[C_EXTENDED] += 1
    if depth <= 0 or ply >= MAX_PLY:
        if ctx[C_QUIESCENCE]:
            return _quiesce(s, ctx, buffers, tables, alpha, beta, ply, True)
        if not _has_legal_move(s, in_check, moves):
            return -(MATE - ply) if in_check else ctx[C_DRAW + s[S_SIDE]]
        return _evaluate(s)
    mated, mating = -(MATE - ply), MATE - ply - 1
    if alpha < mated:
        alpha = mated
        if mated >= beta:
            return mated
    if beta > mating:
        beta = mating
        if alpha >= mating:
            return mating
    key = s[S_KEY]
    hint = 0
    if ctx[C_USE_TABLE]:
        settled, value, hint = _probe(ctx, tables, key, depth, alpha, beta, ply)
        if settled:
            return value
    if (
        beta - alpha == 1 and not in_check and depth >= _NULL_FROM and -_MATE_BOUND < beta < _MATE_BOUND
        and not _after_pass(s) and _has_pieces(s) and _evaluate(s) >= beta
    ):
        reduced = depth - 1 - (3 if depth >= 7 else 2)
        ctx[C_PASSES] += 1
        _make_pass(s)
        value = -_play_node(s, ctx, buffers, tables, reduced, -beta, -beta + 1, ply + 1)
        _unmake(s)
        if ctx[C_ABORT]:
            return 0
        if value >= beta:
            return value if value < _MATE_BOUND else beta
    count = _pseudo_moves(s, moves)
    _key_moves(s, ctx, moves, count, hint, ply)
    killer, second = ctx[C_KILLERS + 2 * ply], ctx[C_KILLERS + 2 * ply + 1]
    original_alpha = alpha
    best, best_move = -INFINITE, 0
    legal = 0
    child = depth - 1
    reducible = depth >= _LMR_FROM and not in_check
    futile = -INFINITE  # below: the value a hopeless quiet move is given unsearched
    if depth <= _FUTILE_DEPTH and not in_check and beta - alpha == 1 and -_MATE_BOUND < alpha < _MATE_BOUND:
        hope = _evaluate(s) + _FUTILITY_MARGIN * depth
        if hope <= alpha:
            futile = hope
    for i in range(count):
        move = _pick(moves, i, count)
        quiet = s[move >> 7 & 127] == 0 and move >> 14 == 0 and move != hint and move != killer and move != second
        if not _make(s, move, in_check):
            _unmake(s)
            continue
        legal += 1
        if futile > -INFINITE and legal > 1 and quiet and not _in_check(s):
            _unmake(s)
            if futile > best:
                best = futile
            continue
        if legal == 1:
            value = -_play_node(s, ctx, buffers, tables, child, -beta, -alpha, ply + 1)
        else:
            reduction = 0
            if reducible and quiet and legal > _LMR_AFTER and not _in_check(s):
                reduction = 2 if legal > _LMR_DEEP_AFTER and depth >= _LMR_DEEP_DEPTH else 1
                ctx[C_REDUCED] += 1
            value = -_play_node(s, ctx, buffers, tables, child - reduction, -alpha - 1, -alpha, ply + 1)
            if reduction and value > alpha and not ctx[C_ABORT]:
                value = -_play_node(s, ctx, buffers, tables, child, -alpha - 1, -alpha, ply + 1)
            if alpha < value < beta and not ctx[C_ABORT]:
                value = -_play_node(s, ctx, buffers, tables, child, -beta, -alpha, ply + 1)
        _unmake(s)
        if ctx[C_ABORT]:
            return 0
        if value > best:
            best, best_move = value, move
            if value > alpha:
                _set_line(ctx, ply, move)
                alpha = value
                if alpha >= beta:
                    ctx[C_CUTOFFS] += 1
                    _record_cutoff(s, ctx, move, ply, depth)
                    break
    if not legal:
        return -(MATE - ply) if in_check else ctx[C_DRAW + s[S_SIDE]]
    if ctx[C_USE_TABLE]:
        _store(ctx, tables, key, depth, best, original_alpha, beta, best_move, ply)
    return best


@njit(cache=True, nogil=True)
def _play_root(s, ctx, buffers, tables, depth, first):  # noqa: C901
    """The root of the selective search to ``depth``, full window; the line is row 0 of the lines."""
    if _out_of_budget(ctx):
        return 0
    ctx[C_NODES] += 1
    in_check = _in_check(s)
    moves = buffers[0]
    count = _root_moves(s, ctx, tables, moves, first)
    alpha = best = -INFINITE
    ctx[C_PV_LENGTH] = 0
    for i in range(count):
        move = moves[i]
        if not _make(s, move, in_check):
            _unmake(s)
            continue
        if best > -INFINITE and _out_of_budget(ctx):
            _unmake(s)
            return 0
        if best == -INFINITE:
            value = -_play_node(s, ctx, buffers, tables, depth - 1, -INFINITE, -alpha, 1)
        else:
            value = -_play_node(s, ctx, buffers, tables, depth - 1, -alpha - 1, -alpha, 1)
            if value > alpha and not ctx[C_ABORT]:
                value = -_play_node(s, ctx, buffers, tables, depth - 1, -INFINITE, -alpha, 1)
        _unmake(s)
        if ctx[C_ABORT]:
            return 0
        if value > best:
            best = value
            _set_line(ctx, 0, move)
            if value > alpha:
                alpha = value
    if ctx[C_USE_TABLE] and ctx[C_ROOT_ONLY] < 0:
        _store(ctx, tables, s[S_KEY], depth, best, -INFINITE, INFINITE, ctx[C_PV] if ctx[C_PV_LENGTH] else 0, 0)
    return best


class PlaySearch(ChessSearch):
    """A :class:`ChessSearch` whose unguided searches are selective while :attr:`selective` is set.

    >>> import chess
    >>> from search import Limits
    >>> board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    >>> result = PlaySearch().search(board, Limits(depth=3))
    >>> result.move, result.value == MATE - 1
    (Move.from_uci('a1a8'), True)
    """

    def __init__(self, *, selective: bool = True, table_size: int = 1_000_000, contempt: int = 0) -> None:
        super().__init__(table_size=table_size, contempt=contempt)
        self.selective = selective
        """Whether an unguided search runs the selective kernels (else the exact ones)."""
        self._selecting = False  # the kernels of the running search
        self._filled_selective = False  # the kind of values the table holds

    def _begin(self, limits: Limits, stop: threading.Event | None, started: float) -> None:
        super()._begin(limits, stop, started)
        self._ctx[C_PASSES] = self._ctx[C_REDUCED] = self._ctx[C_EXTENDED] = 0
        self._selecting = self.selective and self.guide is None
        if self._selecting != self._filled_selective:
            self._clear_tables()
            self._filled_selective = self._selecting

    def _root(self, position: Position, depth: int, first: int) -> int:
        if not self._selecting or self.guide is not None:
            return super()._root(position, depth, first)
        value = _play_root(position.state, self._ctx, self._buffers, self._tables, depth, first)
        if self._ctx[C_ABORT]:
            raise _Aborted
        return int(value)

    @property
    def passes(self) -> int:
        """Passes (null moves) the last selective search tried."""
        return int(self._ctx[C_PASSES])

    @property
    def late_reductions(self) -> int:
        """Late moves the last selective search first searched shallower."""
        return int(self._ctx[C_REDUCED])

    @property
    def check_extensions(self) -> int:
        """Nodes in check the last selective search searched a ply deeper."""
        return int(self._ctx[C_EXTENDED])

    def score_moves(self, board: chess.Board, depth: int, *, deadline: float | None = None) -> dict[chess.Move, int]:
        """Every legal move's exact value (as :meth:`ChessSearch.score_moves`: the exact kernels, whatever
        :attr:`selective` says)."""
        selective, self.selective = self.selective, False
        try:
            return super().score_moves(board, depth, deadline=deadline)
        finally:
            self.selective = selective
