"""The play search with its depth rules and move order read from a module (:mod:`search.chess.modules.space`).

The kernels are :mod:`search.chess.play`'s selective node and root with every constant of
the depth rules, and the weights of the move order, taken from an int64 array (one entry a
gene, in the order of :data:`~search.chess.modules.space.GENES`). The exact kernels and the
play search's own stay as they are; quiescence, the table, the draw rules and the
evaluation are theirs. With :meth:`DepthOrdering.default` the search visits the same
nodes in the same order as :class:`~search.chess.play.PlaySearch` and returns the same
moves and values.

The move order's keys use tiers of their own (table move, captures, killers, captures
that give up material when ``bad_captures_late`` is set, then history); for the default
module they rank every move as the plain search's keys do.

>>> import chess
>>> from search import Limits
>>> board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
>>> ModuleSearch(DepthOrdering.default()).search(board, Limits(depth=3)).move
Move.from_uci('a1a8')
"""

from __future__ import annotations

from numba import njit, types

from search.chess.board import (
    S_KEY,
    S_SIDE,
    Position,
    _drawn_by_rule,
    _evaluate,
    _has_legal_move,
    _in_check,
    _make,
    _pick,
    _pseudo_moves,
    _sort_descending,
    _unmake,
)
from search.chess.engine import (
    _CHECK_EVERY,
    _MATE_BOUND,
    _MOVE_BITS,
    _VICTIM,
    C_ABORT,
    C_CUTOFFS,
    C_DRAW,
    C_HISTORY,
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
    _Aborted,
    _draw_or_mated,
    _out_of_budget,
    _probe,
    _quiesce,
    _set_line,
    _store,
    _table_move,
    _visit,
)
from search.chess.modules.space import DepthOrdering
from search.chess.play import C_EXTENDED, C_PASSES, C_REDUCED, PlaySearch, _after_pass, _has_pieces, _make_pass
from search.result import MAX_PLY

__all__ = ["ModuleSearch"]

(G_CHECK, G_NULL_FROM, G_NULL_R, G_NULL_DEEP, G_LMR_FROM, G_LMR_AFTER, G_LMR_DEEP_AFTER, G_LMR_DEEP_DEPTH,
 G_FUTILE_DEPTH, G_FUTILE_MARGIN, G_STATIC_DEPTH, G_STATIC_MARGIN, G_PRUNE_DEPTH, G_PRUNE_MOVES, G_NO_HINT,
 G_HISTORY_POWER, G_ATTACKER, G_KILLERS, G_BAD_LATE) = range(19)
"""Each gene's index in the module's array (the order of ``GENES``)."""

_HINT, _CAPTURE, _KILLER, _BAD_CAPTURE = 1 << 44, 1 << 34, 1 << 33, 1 << 32
_HISTORY_CAP = (1 << 29) - 1  # the plain search's ceiling on a history entry

_ARRAY, _ROWS = types.int64[::1], types.int64[:, ::1]
_MODULE_NODE = types.int64(_ARRAY, _ARRAY, _ARRAY, _ROWS, _ROWS, types.int64, types.int64, types.int64, types.int64)


@njit(cache=True)
def _module_keys(s, ctx, genes, moves, count, hint, ply):
    """Each move's order key above its 17 bits, by the module's weights (taken largest first)."""
    killer, second = ctx[C_KILLERS + 2 * ply], ctx[C_KILLERS + 2 * ply + 1]
    side = s[S_SIDE]
    for i in range(count):
        move = moves[i]
        if move == hint:
            moves[i] = _HINT << 17 | move
            continue
        victim = s[move >> 7 & 127]
        promotion = move >> 14
        if victim or promotion:
            taken = _VICTIM[victim if victim > 0 else -victim]
            taker = _VICTIM[s[move & 127] if s[move & 127] > 0 else -s[move & 127]]
            score = 100 * taken - genes[G_ATTACKER] * taker + 100 * _VICTIM[promotion]
            late = genes[G_BAD_LATE] and promotion == 0 and taken < taker
            score += _BAD_CAPTURE if late else _CAPTURE
        elif move == killer and genes[G_KILLERS] >= 1:
            score = _KILLER + 1
        elif move == second and genes[G_KILLERS] >= 2:
            score = _KILLER
        else:
            score = ctx[C_HISTORY + (move << 1 | side)]
        moves[i] = score << 17 | move


@njit(cache=True)
def _module_cutoff(s, ctx, genes, move, ply, depth):
    """A quiet move that failed high: first killer at ``ply``; its history grows by ``depth ** history_power``."""
    if s[move >> 7 & 127] or move >> 14:
        return
    at = C_KILLERS + 2 * ply
    if ctx[at] != move:
        ctx[at + 1] = ctx[at]
        ctx[at] = move
    index = C_HISTORY + (move << 1 | s[S_SIDE])
    ctx[index] = min(ctx[index] + depth ** genes[G_HISTORY_POWER], _HISTORY_CAP)


@njit(cache=True)
def _reduction(genes, depth, legal):
    """Plies a late quiet move (the ``legal``-th legal one) is first searched shallower."""
    if legal <= genes[G_LMR_AFTER]:
        return 0
    return 2 if legal > genes[G_LMR_DEEP_AFTER] and depth >= genes[G_LMR_DEEP_DEPTH] else 1


@njit(_MODULE_NODE, cache=True, nogil=True)
def _module_node(s, ctx, genes, buffers, tables, depth, alpha, beta, ply):  # noqa: C901
    """A node of the selective search with the module's rules; fail-soft, values from the side to move."""
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
    if in_check and genes[G_CHECK]:
        depth += genes[G_CHECK]
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
        depth <= genes[G_STATIC_DEPTH] and beta - alpha == 1 and not in_check and -_MATE_BOUND < beta < _MATE_BOUND
    ):
        standing = _evaluate(s) - genes[G_STATIC_MARGIN] * depth
        if standing >= beta:
            return standing
    if genes[G_NO_HINT] and depth >= genes[G_NO_HINT] and depth >= 3 and hint == 0:
        depth -= 1
    if (
        beta - alpha == 1 and not in_check and depth >= genes[G_NULL_FROM] and -_MATE_BOUND < beta < _MATE_BOUND
        and not _after_pass(s) and _has_pieces(s) and _evaluate(s) >= beta
    ):
        reduced = depth - 1 - (genes[G_NULL_R] + 1 if depth >= genes[G_NULL_DEEP] else genes[G_NULL_R])
        ctx[C_PASSES] += 1
        _make_pass(s)
        value = -_module_node(s, ctx, genes, buffers, tables, reduced, -beta, -beta + 1, ply + 1)
        _unmake(s)
        if ctx[C_ABORT]:
            return 0
        if value >= beta:
            return value if value < _MATE_BOUND else beta
    count = _pseudo_moves(s, moves)
    _module_keys(s, ctx, genes, moves, count, hint, ply)
    killer, second = ctx[C_KILLERS + 2 * ply], ctx[C_KILLERS + 2 * ply + 1]
    original_alpha = alpha
    best, best_move = -INFINITE, 0
    legal = 0
    child = depth - 1
    reducible = depth >= genes[G_LMR_FROM] and not in_check
    prune_after = INFINITE
    if depth <= genes[G_PRUNE_DEPTH] and not in_check and beta - alpha == 1:
        prune_after = genes[G_PRUNE_MOVES] + depth * depth
    futile = -INFINITE
    if depth <= genes[G_FUTILE_DEPTH] and not in_check and beta - alpha == 1 and -_MATE_BOUND < alpha < _MATE_BOUND:
        hope = _evaluate(s) + genes[G_FUTILE_MARGIN] * depth
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
        if legal > prune_after and quiet and best > -_MATE_BOUND and not _in_check(s):
            _unmake(s)
            continue
        if legal == 1:
            value = -_module_node(s, ctx, genes, buffers, tables, child, -beta, -alpha, ply + 1)
        else:
            reduction = 0
            if reducible and quiet and not _in_check(s):
                reduction = _reduction(genes, depth, legal)
                if reduction:
                    ctx[C_REDUCED] += 1
            value = -_module_node(s, ctx, genes, buffers, tables, child - reduction, -alpha - 1, -alpha, ply + 1)
            if reduction and value > alpha and not ctx[C_ABORT]:
                value = -_module_node(s, ctx, genes, buffers, tables, child, -alpha - 1, -alpha, ply + 1)
            if alpha < value < beta and not ctx[C_ABORT]:
                value = -_module_node(s, ctx, genes, buffers, tables, child, -beta, -alpha, ply + 1)
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
                    _module_cutoff(s, ctx, genes, move, ply, depth)
                    break
    if not legal:
        return -(MATE - ply) if in_check else ctx[C_DRAW + s[S_SIDE]]
    if ctx[C_USE_TABLE]:
        _store(ctx, tables, key, depth, best, original_alpha, beta, best_move, ply)
    return best


@njit(cache=True)
def _module_root_moves(s, ctx, genes, tables, moves, first):
    """The root's pseudo-legal moves in the module's order; their number."""
    count = _pseudo_moves(s, moves)
    _module_keys(s, ctx, genes, moves, count, first if first else _table_move(ctx, tables, s[S_KEY]), 0)
    _sort_descending(moves, count)
    for i in range(count):
        moves[i] &= _MOVE_BITS
    return count


@njit(cache=True, nogil=True)
def _module_root(s, ctx, genes, buffers, tables, depth, first):  # noqa: C901
    """The root to ``depth``, full window; the line is row 0 of the lines."""
    if _out_of_budget(ctx):
        return 0
    ctx[C_NODES] += 1
    in_check = _in_check(s)
    moves = buffers[0]
    count = _module_root_moves(s, ctx, genes, tables, moves, first)
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
            value = -_module_node(s, ctx, genes, buffers, tables, depth - 1, -INFINITE, -alpha, 1)
        else:
            value = -_module_node(s, ctx, genes, buffers, tables, depth - 1, -alpha - 1, -alpha, 1)
            if value > alpha and not ctx[C_ABORT]:
                value = -_module_node(s, ctx, genes, buffers, tables, depth - 1, -INFINITE, -alpha, 1)
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


class ModuleSearch(PlaySearch):
    """A :class:`PlaySearch` whose selective searches follow a depth-and-ordering module.

    Unguided searches with :attr:`selective` set run the module's kernels; a root restricted to
    some moves (``only``, several lines) and :meth:`score_moves` fall back to the play search's
    and the exact kernels. Killers and history live on between searches, as the play search's do:
    :meth:`clear` them for a search independent of the ones before it.
    """

    def __init__(self, module: DepthOrdering, *, table_size: int = 1_000_000, contempt: int = 0) -> None:
        super().__init__(table_size=table_size, contempt=contempt)
        self.module = module
        """The depth rules and ordering weights the selective searches use."""

    @property
    def module(self) -> DepthOrdering:
        """The depth rules and ordering weights the selective searches use."""
        return self._module

    @module.setter
    def module(self, module: DepthOrdering) -> None:
        self._module = module
        self._genes = module.array()
        self._clear_tables()  # a table filled under other rules holds other bounds

    def _root(self, position: Position, depth: int, first: int) -> int:
        if not self._selecting or self.guide is not None or self._ctx[C_ROOT_ONLY] >= 0:
            return super()._root(position, depth, first)
        value = _module_root(position.state, self._ctx, self._genes, self._buffers, self._tables, depth, first)
        if self._ctx[C_ABORT]:
            raise _Aborted
        return int(value)

