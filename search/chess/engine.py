"""The chess search loop on the fast board: alpha-beta specialised to :class:`Position`, compiled with numba.

The generic worker of :mod:`search.alphabeta` reaches a chess position through the
game protocol (a cursor, an orderer, a table object, an evaluator), and those calls
are most of its cost. This loop is the same search written for one game: negamax
alpha-beta with a principal-variation (zero-window) scheme, a transposition table,
the table's move, MVV-LVA captures, two killers per ply and a history score for move
order, and quiescence search. It prunes nothing unsoundly, so its values are those of
plain alpha-beta to the same depth: the game rules, the quiescence rules and the draw
rules are the generic chess adapter's (:mod:`search.chess.game`), and the tests hold
the two to the same values.

Rules, as in the adapter: values are centipawns from the side to move; a mate ``p``
plies below the root is worth ``MATE - p`` (negated for the mated side); below the
root a position that occurred before (on the path or in the game since the last
capture or pawn move) is a draw, at the root only a threefold repetition; fifty moves
(halfmove clock 100) and insufficient material are draws; in check quiescence
searches every move, elsewhere it may stand pat on the evaluation.

Compiled core: the root, the negamax and quiescence nodes, the tables and the move
order are ``@njit(cache=True)`` functions over numpy arrays: the position's state
(:mod:`search.chess.board`), a context array (counters, limits, killers, history, the
principal variations, the line watch), one move buffer per ply, and the two tables
(open addressing over ``int64`` arrays that grow as they fill; a table holding
``table_size`` positions is emptied before it takes another, as a dict would be). numba
keeps the machine code in ``__pycache__`` next to this module (``cache=True``), stamped
with the digest of all the core's files (:mod:`search.chess.board`); the three
recursive node functions are compiled for fixed argument types when the module is
imported (or loaded from that cache), the rest on first use. The search's entry
points release the GIL, so a UCI thread answers while it thinks; the node budget and
a stop flag are checked every 1024 nodes, and one watchdog thread raises a search's
stop flag when its deadline passes or its stop event is set.

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
of them beats his best move so far. A guided search runs its root, and the nodes where
the guide may plan (and their parents), in Python, which asks the guide; every other
node, and the whole of a plain search, runs compiled, on the same tables.

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

import itertools
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TypedDict

import chess
import numpy as np
from numba import njit, types

from search.chess.board import (
    _SQ,
    MOVE_BUFFER,
    S_EG,
    S_KEY,
    S_MG,
    S_PHASE,
    S_SIDE,
    Position,
    _capture_keys,
    _drawn_by_rule,
    _evaluate,
    _has_legal_move,
    _in_check,
    _legal_moves,
    _make,
    _pick,
    _pseudo_moves,
    _sort_descending,
    _unmake,
    from_move,
    to_move,
)
from search.chess.guided import ModelGuide, line_keys, reply_guide
from search.chess.pst import EG_TABLE, MG_TABLE, PHASE_TOTAL, PieceValues
from search.probe import IterationShape
from search.result import MAX_PLY, Limits, SearchResult

if TYPE_CHECKING:
    from search.chess.replies import ReplyPolicy

__all__ = ["ChessSearch", "MATE", "INFINITE"]

MATE = 100_000
"""A checkmate's value for the winner; a mate ``p`` plies below the root is ``MATE - p``."""
INFINITE = 1_000_000
_MATE_BOUND = MATE // 2
_CHECK_EVERY = 1023  # nodes between looks at the node budget and the stop flag
_HINT, _CAPTURE, _KILLER = 1 << 40, 1 << 30, 1 << 29
_VICTIM = np.array((0, 1, 3, 3, 5, 9, 0), dtype=np.int64)
_MOVE_BITS = (1 << 17) - 1

# ---- the context array's layout ------------------------------------------------------------

C_NODES, C_QNODES, C_CUTOFFS, C_TT_HITS = 0, 1, 2, 3
C_MAX_NODES, C_ABORT, C_STOP = 4, 5, 6  # max nodes -1: none; abort: the search gave up; stop: asked to
C_USE_TABLE, C_QUIESCENCE, C_TABLE_SIZE, C_DRAW = 7, 8, 9, 10  # draw: a draw's value for White (10), Black (11)
C_WATCHING, C_WATCH_LEN, C_LINE_ENTERED, C_LINE_REACH = 12, 13, 14, 15
C_TT_COUNT, C_QT_COUNT, C_TT_SLOTS, C_QT_SLOTS = 16, 17, 18, 19  # entries and slots in use, per table
C_ROOT_ONLY = 20  # the number of root moves searched, -1: all
_PLIES = MAX_PLY + 2
C_KILLERS = 32
C_PV_LENGTH = C_KILLERS + 2 * _PLIES
C_PV = C_PV_LENGTH + _PLIES  # row ``ply`` of ``_PLIES`` moves: the line found at ``ply``
C_HORIZON = C_PV + _PLIES * _PLIES
C_WATCH = C_HORIZON + _PLIES  # the watched line's keys, by ply
C_ROOT_MOVES = C_WATCH + _PLIES
C_HISTORY = C_ROOT_MOVES + MOVE_BUFFER  # indexed by ``move << 1 | side``: quiet moves only, below 1 << 14
C_VALUED = C_HISTORY + (1 << 15)  # 1: the evaluation is the piece values' tables below (0: the board's own)
C_MG_DELTA = C_VALUED + 1  # by ``(piece & 15) * 120 + square``: the middlegame table's entry minus the board's
C_EG_DELTA = C_MG_DELTA + 16 * 120  # the same in the endgame
C_SIZE = C_EG_DELTA + 16 * 120

_FIELDS = 4  # a table entry: key, depth << 20 | move (quiescence: 1), lower bound, upper bound
_DEPTH_SHIFT = 20
_FIRST_SLOTS = 1 << 10

# The recursive nodes are compiled for these types only: numba's cache cannot hold a
# recursive function specialised to several argument types (a literal ply, say).
_ARRAY, _ROWS = types.int64[::1], types.int64[:, ::1]
_NODE = types.int64(_ARRAY, _ARRAY, _ROWS, _ROWS, types.int64, types.int64, types.int64, types.int64)
_QUIESCENCE_NODE = types.int64(_ARRAY, _ARRAY, _ROWS, _ROWS, types.int64, types.int64, types.int64, types.boolean)


class _Counters(TypedDict):
    """A search's counters, as :class:`SearchResult` takes them."""

    nodes: int
    qnodes: int
    cutoffs: int
    tt_hits: int


class _Aborted(Exception):
    """A node or time budget ran out, or a stop was requested."""


# ---- the compiled search ---------------------------------------------------------------------


@njit(cache=True)
def _to_table(value, ply):
    """A value found ``ply`` plies below the root, as stored (mates relative to the node)."""
    if value >= _MATE_BOUND:
        return value + ply
    if value <= -_MATE_BOUND:
        return value - ply
    return value


@njit(cache=True)
def _from_table(value, ply):
    if value >= _MATE_BOUND:
        return value - ply
    if value <= -_MATE_BOUND:
        return value + ply
    return value


@njit(cache=True)
def _slot(tables, which, slots, key):
    """Where ``key``'s entry is in table ``which`` of ``slots`` slots, or the free slot it would take."""
    mask = slots - 1
    i = (key ^ (key >> 29)) & mask
    while True:
        at = i * _FIELDS
        if not tables[which, at + 1] or tables[which, at] == key:
            return at
        i = (i + 1) & mask


@njit(cache=True)
def _rehash(tables, which, slots, into):
    """Table ``which``'s entries (``slots`` slots) spread over its first ``into`` slots."""
    kept = tables[which, : slots * _FIELDS].copy()
    tables[which, : into * _FIELDS] = 0
    for at in range(0, kept.size, _FIELDS):
        if kept[at + 1]:
            to = _slot(tables, which, into, kept[at])
            for field in range(_FIELDS):
                tables[which, to + field] = kept[at + field]


@njit(cache=True)
def _new_slot(ctx, tables, which, key):
    """A slot for a key not in table ``which``: emptied when it holds ``table_size`` keys, grown when half full."""
    count_at, slots_at = C_TT_COUNT + which, C_TT_SLOTS + which
    slots = ctx[slots_at]
    if ctx[count_at] >= ctx[C_TABLE_SIZE]:
        tables[which, : slots * _FIELDS] = 0
        ctx[count_at] = 0
    elif 2 * (ctx[count_at] + 1) > slots and 2 * slots * _FIELDS <= tables.shape[1]:
        _rehash(tables, which, slots, 2 * slots)
        slots *= 2
        ctx[slots_at] = slots
    at = _slot(tables, which, slots, key)
    tables[which, at] = key
    ctx[count_at] += 1
    return at


@njit(cache=True)
def _store(ctx, tables, key, depth, value, alpha, beta, move, ply):
    """Record a fail-soft result as bounds, merged with an entry of the same depth."""
    stored = _to_table(value, ply)
    lower = stored if value > alpha else -INFINITE
    upper = stored if value < beta else INFINITE
    at = _slot(tables, 0, ctx[C_TT_SLOTS], key)
    held = tables[0, at + 1]
    if held:
        old_depth, old_move = held >> _DEPTH_SHIFT, held & _MOVE_BITS
        old_lower, old_upper = tables[0, at + 2], tables[0, at + 3]
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
    else:
        at = _new_slot(ctx, tables, 0, key)
    tables[0, at + 1] = depth << _DEPTH_SHIFT | move
    tables[0, at + 2] = lower
    tables[0, at + 3] = upper


@njit(cache=True)
def _store_quiet(ctx, tables, key, value, alpha, beta, ply):
    """Record a quiescence result as bounds (its own table: depth 0, no move)."""
    stored = _to_table(value, ply)
    lower = stored if value > alpha else -INFINITE
    upper = stored if value < beta else INFINITE
    at = _slot(tables, 1, ctx[C_QT_SLOTS], key)
    if tables[1, at + 1]:
        lower = max(lower, tables[1, at + 2])
        upper = min(upper, tables[1, at + 3])
        if lower > upper:  # contradiction (path-dependent draws): trust the newest
            lower = stored if value > alpha else -INFINITE
            upper = stored if value < beta else INFINITE
    else:
        at = _new_slot(ctx, tables, 1, key)
        tables[1, at + 1] = 1
    tables[1, at + 2] = lower
    tables[1, at + 3] = upper


@njit(cache=True)
def _table_move(ctx, tables, key):
    """The table's move for ``key`` (0: none)."""
    if not ctx[C_USE_TABLE]:
        return 0
    return tables[0, _slot(tables, 0, ctx[C_TT_SLOTS], key) + 1] & _MOVE_BITS


@njit(cache=True)
def _holds(ctx, tables, which, key):
    return tables[which, _slot(tables, which, ctx[C_TT_SLOTS + which], key) + 1] != 0


@njit(cache=True)
def _probe(ctx, tables, key, depth, alpha, beta, ply):
    """The table's word on a node: ``(settled, value, move)``; settled when a bound of at least ``depth``
    decides the window (a table hit), the move is the table's best move (0: none)."""
    at = _slot(tables, 0, ctx[C_TT_SLOTS], key)
    held = tables[0, at + 1]
    if not held:
        return False, 0, 0
    move = held & _MOVE_BITS
    if held >> _DEPTH_SHIFT >= depth:
        lower = _from_table(tables[0, at + 2], ply)
        if lower >= beta or tables[0, at + 2] == tables[0, at + 3]:
            ctx[C_TT_HITS] += 1
            return True, lower, move
        upper = _from_table(tables[0, at + 3], ply)
        if upper <= alpha:
            ctx[C_TT_HITS] += 1
            return True, upper, move
    return False, 0, move


@njit(cache=True)
def _key_moves(s, ctx, moves, count, hint, ply):
    """Each move's order key above its 17 bits: table move, captures by MVV-LVA (promotions too),
    killers, then history (the moves are taken largest key first)."""
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
            attacker = s[move & 127]
            score = (_CAPTURE + 100 * _VICTIM[victim if victim > 0 else -victim]
                     - _VICTIM[attacker if attacker > 0 else -attacker] + 100 * _VICTIM[promotion])
        elif move == killer:
            score = _KILLER + 1
        elif move == second:
            score = _KILLER
        else:
            score = ctx[C_HISTORY + (move << 1 | side)]
        moves[i] = score << 17 | move


@njit(cache=True)
def _order(s, ctx, moves, count, hint, ply):
    """The moves in search order (:func:`_key_moves`), sorted in place."""
    _key_moves(s, ctx, moves, count, hint, ply)
    _sort_descending(moves, count)
    for i in range(count):
        moves[i] &= _MOVE_BITS


@njit(cache=True)
def _record_cutoff(s, ctx, move, ply, depth):
    """A quiet move that failed high: first killer at ``ply``, and its history grows by ``depth**2``."""
    if s[move >> 7 & 127] or move >> 14:
        return  # captures and promotions are ordered by MVV-LVA already
    at = C_KILLERS + 2 * ply
    if ctx[at] != move:
        ctx[at + 1] = ctx[at]
        ctx[at] = move
    index = C_HISTORY + (move << 1 | s[S_SIDE])
    ctx[index] = min(ctx[index] + depth * depth, _KILLER - 1)


@njit(cache=True)
def _set_line(ctx, ply, move):
    """The line at ``ply``: ``move`` and then the line found one ply below."""
    row, below = C_PV + ply * _PLIES, C_PV + (ply + 1) * _PLIES
    length = ctx[C_PV_LENGTH + ply + 1]
    ctx[row] = move
    for i in range(length):
        ctx[row + 1 + i] = ctx[below + i]
    ctx[C_PV_LENGTH + ply] = length + 1


@njit(cache=True)
def _out_of_budget(ctx):
    """Whether the node budget is spent or a stop was asked for (then the search gives up)."""
    if ctx[C_STOP] or (ctx[C_MAX_NODES] >= 0 and ctx[C_NODES] + ctx[C_QNODES] > ctx[C_MAX_NODES]):
        ctx[C_ABORT] = 1
    return ctx[C_ABORT] != 0


@njit(cache=True)
def _visit(s, ctx, ply, depth):
    """A main-search node of a watched search (as :meth:`search.probe.DepthProbe.visit`)."""
    if depth <= 0:
        ctx[C_HORIZON + ply] += 1
    if 0 < ply < ctx[C_WATCH_LEN] and ply >= ctx[C_LINE_ENTERED] and s[S_KEY] == ctx[C_WATCH + ply]:
        reach = ply + max(depth, 0)
        if ply == ctx[C_LINE_ENTERED]:
            reach = max(reach, ctx[C_LINE_REACH])
        ctx[C_LINE_ENTERED] = ply
        ctx[C_LINE_REACH] = reach


@njit(cache=True)
def _valued(s, ctx):
    """The tapered evaluation with the search's piece values (:class:`PieceValues`), from the side to move's view.

    The board's sums with each piece's delta (its entry in the values' tables minus the
    board's) added, in the middlegame and the endgame, blended by the phase as
    :func:`_evaluate` blends them.
    """
    mg, eg = s[S_MG], s[S_EG]
    for square in _SQ:
        piece = s[square]
        if piece != 0:
            at = (piece & 15) * 120 + square
            mg += ctx[C_MG_DELTA + at]
            eg += ctx[C_EG_DELTA + at]
    phase = s[S_PHASE] if s[S_PHASE] < PHASE_TOTAL else PHASE_TOTAL
    value = (mg * phase + eg * (PHASE_TOTAL - phase)) // PHASE_TOTAL
    return -value if s[S_SIDE] else value


@njit(cache=True)
def _value(s, ctx):
    """The static evaluation the search uses: the board's own, or with the search's piece values."""
    if ctx[C_VALUED]:
        return _valued(s, ctx)
    return _evaluate(s)


@njit(cache=True)
def _draw_or_mated(s, ctx, buffer, ply):
    """The value of a position the draw rules end: the draw's, unless the mover is checkmated."""
    if _in_check(s) and not _has_legal_move(s, True, buffer):
        return -(MATE - ply)
    return ctx[C_DRAW + s[S_SIDE]]


@njit(_QUIESCENCE_NODE, cache=True)
def _quiesce(s, ctx, buffers, tables, alpha, beta, ply, checked):  # noqa: C901
    """Stand pat or search the captures and promotions; in check, every move.

    The caller has applied the draw rules to this position when ``checked``.
    """
    moves = buffers[ply]
    if not checked:
        if not (ctx[C_NODES] + ctx[C_QNODES]) & _CHECK_EVERY and _out_of_budget(ctx):
            return 0
        if _drawn_by_rule(s):
            return _draw_or_mated(s, ctx, moves, ply)
    if ply >= MAX_PLY:
        if not _has_legal_move(s, _in_check(s), moves):
            return -(MATE - ply) if _in_check(s) else ctx[C_DRAW + s[S_SIDE]]
        return _value(s, ctx)
    key = s[S_KEY]
    if ctx[C_USE_TABLE]:
        at = _slot(tables, 1, ctx[C_QT_SLOTS], key)
        if tables[1, at + 1]:
            lower = _from_table(tables[1, at + 2], ply)
            if lower >= beta or tables[1, at + 2] == tables[1, at + 3]:
                return lower
            upper = _from_table(tables[1, at + 3], ply)
            if upper <= alpha:
                return upper
    original_alpha = alpha
    in_check = _in_check(s)
    if in_check:
        best = -INFINITE
        count = _pseudo_moves(s, moves)
        _key_moves(s, ctx, moves, count, 0, ply)
    else:
        best = _value(s, ctx)
        if best >= beta:
            return best if _has_legal_move(s, False, moves) else ctx[C_DRAW + s[S_SIDE]]
        if best > alpha:
            alpha = best
        count = _capture_keys(s, moves)
    legal = 0
    unchecked = ply < 0  # False, computed: numba's cache cannot hold a recursive call with a constant argument
    for i in range(count):
        move = _pick(moves, i, count)
        if not _make(s, move, in_check):
            _unmake(s)
            continue
        legal += 1
        ctx[C_QNODES] += 1
        value = -_quiesce(s, ctx, buffers, tables, -beta, -alpha, ply + 1, unchecked)
        _unmake(s)
        if ctx[C_ABORT]:
            return 0
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    ctx[C_CUTOFFS] += 1
                    break
    if not legal:
        if in_check:
            return -(MATE - ply)
        if not _has_legal_move(s, False, moves):
            return ctx[C_DRAW + s[S_SIDE]]
    if ctx[C_USE_TABLE] and (legal or best > original_alpha):
        _store_quiet(ctx, tables, key, best, original_alpha, beta, ply)
    return best


@njit(_NODE, cache=True, nogil=True)
def _horizon(s, ctx, buffers, tables, depth, alpha, beta, ply):
    """A node at the horizon: counted as a main-search node, valued by quiescence."""
    ctx[C_NODES] += 1
    if ctx[C_WATCHING]:
        _visit(s, ctx, ply, depth)
    ctx[C_PV_LENGTH + ply] = 0
    return _quiesce(s, ctx, buffers, tables, alpha, beta, ply, False)


@njit(_NODE, cache=True, nogil=True)
def _negamax(s, ctx, buffers, tables, depth, alpha, beta, ply):  # noqa: C901
    """A main-search node: draw rules, table, ordered moves with a zero window after the first."""
    ctx[C_NODES] += 1
    if not (ctx[C_NODES] + ctx[C_QNODES]) & _CHECK_EVERY and _out_of_budget(ctx):
        return 0
    if ctx[C_WATCHING]:
        _visit(s, ctx, ply, depth)
    ctx[C_PV_LENGTH + ply] = 0
    moves = buffers[ply]
    if _drawn_by_rule(s):
        return _draw_or_mated(s, ctx, moves, ply)
    if depth <= 0 or ply >= MAX_PLY:
        if ctx[C_QUIESCENCE]:
            return _quiesce(s, ctx, buffers, tables, alpha, beta, ply, True)
        in_check = _in_check(s)
        if not _has_legal_move(s, in_check, moves):
            return -(MATE - ply) if in_check else ctx[C_DRAW + s[S_SIDE]]
        return _value(s, ctx)
    key = s[S_KEY]
    hint = 0
    if ctx[C_USE_TABLE]:
        settled, value, hint = _probe(ctx, tables, key, depth, alpha, beta, ply)
        if settled:
            return value
    in_check = _in_check(s)
    count = _pseudo_moves(s, moves)
    _key_moves(s, ctx, moves, count, hint, ply)
    original_alpha = alpha
    best, best_move = -INFINITE, 0
    legal = 0
    child = depth - 1
    # a horizon child goes straight to quiescence, which applies the draw rules itself
    horizon = child <= 0 and ctx[C_QUIESCENCE] != 0
    for i in range(count):
        move = _pick(moves, i, count)
        if not _make(s, move, in_check):
            _unmake(s)
            continue
        if legal == 0:
            legal = 1
            if horizon:
                value = -_horizon(s, ctx, buffers, tables, child, -beta, -alpha, ply + 1)
            else:
                value = -_negamax(s, ctx, buffers, tables, child, -beta, -alpha, ply + 1)
        else:
            legal += 1
            if horizon:
                value = -_horizon(s, ctx, buffers, tables, child, -alpha - 1, -alpha, ply + 1)
                if alpha < value < beta and not ctx[C_ABORT]:
                    value = -_horizon(s, ctx, buffers, tables, child, -beta, -alpha, ply + 1)
            else:
                value = -_negamax(s, ctx, buffers, tables, child, -alpha - 1, -alpha, ply + 1)
                if alpha < value < beta and not ctx[C_ABORT]:
                    value = -_negamax(s, ctx, buffers, tables, child, -beta, -alpha, ply + 1)
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


@njit(cache=True)
def _root_moves(s, ctx, tables, moves, first):
    """The root's pseudo-legal moves (only the allowed ones under a root restriction) in search order; their number."""
    count = _pseudo_moves(s, moves)
    allowed = ctx[C_ROOT_ONLY]
    if allowed >= 0:
        kept = 0
        for i in range(count):
            for j in range(allowed):
                if moves[i] == ctx[C_ROOT_MOVES + j]:
                    moves[kept] = moves[i]
                    kept += 1
                    break
        count = kept
    _order(s, ctx, moves, count, first if first else _table_move(ctx, tables, s[S_KEY]), 0)
    return count


@njit(cache=True, nogil=True)
def _root(s, ctx, buffers, tables, depth, first):  # noqa: C901
    """Search the root to ``depth`` with a full window; the line is row 0 of the lines."""
    if _out_of_budget(ctx):  # also between root moves: a stop is seen at once at shallow depths
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
            value = -_negamax(s, ctx, buffers, tables, depth - 1, -INFINITE, -alpha, 1)
        else:
            value = -_negamax(s, ctx, buffers, tables, depth - 1, -alpha - 1, -alpha, 1)
            if value > alpha and not ctx[C_ABORT]:
                value = -_negamax(s, ctx, buffers, tables, depth - 1, -INFINITE, -alpha, 1)
        _unmake(s)
        if ctx[C_ABORT]:
            return 0
        if value > best:
            best = value
            _set_line(ctx, 0, move)
            if value > alpha:
                alpha = value
    if ctx[C_USE_TABLE] and ctx[C_ROOT_ONLY] < 0:  # some moves' value is not the position's
        _store(ctx, tables, s[S_KEY], depth, best, -INFINITE, INFINITE, ctx[C_PV] if ctx[C_PV_LENGTH] else 0, 0)
    return best


@njit(cache=True, nogil=True)
def _score_all(s, ctx, buffers, tables, depth, moves, values):
    """Every legal move's exact value into ``moves``/``values``; their number (-1: the search gave up)."""
    previous = 0
    for shallower in range(1, depth):
        _root(s, ctx, buffers, tables, shallower, previous)
        if ctx[C_ABORT]:
            return -1
        previous = ctx[C_PV] if ctx[C_PV_LENGTH] else 0
    count = _legal_moves(s, moves)
    for i in range(count):
        _make(s, moves[i], True)
        values[i] = -_negamax(s, ctx, buffers, tables, depth - 1, -INFINITE, INFINITE, 1)
        _unmake(s)
        if ctx[C_ABORT]:
            return -1
    return count


@njit(cache=True)
def _enter(s, ctx, buffers, tables, depth, alpha, beta, ply):
    """The start of a node the guided search runs in Python (``depth > 0``, ``ply < MAX_PLY``).

    As :func:`_negamax` up to its move loop: ``(0, 0, count, in_check)`` with the
    ordered moves in ``buffers[ply]``, ``(1, value, 0, False)`` when the node is
    settled before its moves, ``(2, 0, 0, False)`` when the search gives up.
    """
    ctx[C_NODES] += 1
    if not (ctx[C_NODES] + ctx[C_QNODES]) & _CHECK_EVERY and _out_of_budget(ctx):
        return 2, 0, 0, False
    if ctx[C_WATCHING]:
        _visit(s, ctx, ply, depth)
    ctx[C_PV_LENGTH + ply] = 0
    moves = buffers[ply]
    if _drawn_by_rule(s):
        return 1, _draw_or_mated(s, ctx, moves, ply), 0, False
    hint = 0
    if ctx[C_USE_TABLE]:
        settled, value, hint = _probe(ctx, tables, s[S_KEY], depth, alpha, beta, ply)
        if settled:
            return 1, value, 0, False
    in_check = _in_check(s)
    count = _pseudo_moves(s, moves)
    _order(s, ctx, moves, count, hint, ply)
    return 0, 0, count, in_check


@njit(cache=True)
def _cutoff(s, ctx, move, ply, depth):
    ctx[C_CUTOFFS] += 1
    _record_cutoff(s, ctx, move, ply, depth)


def _by_two_plies(depth: int) -> range:
    """The depths of an iterative deepening to ``depth`` by two plies, the shallowest of its parity first (6: 2, 4,
    6; 5: 1, 3, 5): an iteration orders the next about as well as the depth just below would, which it skips."""
    return range(2 - depth % 2, depth + 1, 2)


def _table_slots(table_size: int) -> int:
    """Slots each table may grow to: room for ``table_size`` entries at most half full."""
    slots = _FIRST_SLOTS
    while slots < 2 * table_size:
        slots *= 2
    return slots


def table_bytes(table_size: int) -> int:
    """Bytes a :class:`ChessSearch` of ``table_size`` holds in its tables: two (the main and the quiescence
    table) of :func:`_table_slots` slots, each slot ``_FIELDS`` int64 fields, allocated when it is made."""
    return 2 * _FIELDS * np.dtype(np.int64).itemsize * _table_slots(table_size)


# ---- deadlines and stop requests --------------------------------------------------------------


class _Watchdog:
    """One daemon thread that raises the stop flag of each watched search whose deadline
    passed or whose stop event is set (polled every few milliseconds)."""

    POLL = 0.002

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._watched: dict[int, tuple[np.ndarray, float | None, threading.Event | None]] = {}
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, ctx: np.ndarray, deadline: float | None, stop: threading.Event | None) -> int:
        """Watch one search's context; the token releases it."""
        if (deadline is not None and time.perf_counter() >= deadline) or (stop is not None and stop.is_set()):
            ctx[C_STOP] = 1
        with self._lock:
            token = next(self._tokens)
            self._watched[token] = (ctx, deadline, stop)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="chess-search-watchdog", daemon=True)
                self._thread.start()
            self._lock.notify()
        return token

    def release(self, token: int) -> None:
        """Stop watching (after this returns, the search's flag is not touched again)."""
        with self._lock:
            self._watched.pop(token, None)

    def _run(self) -> None:
        with self._lock:
            while True:
                now = time.perf_counter()
                waits = []
                for ctx, deadline, stop in self._watched.values():
                    if ctx[C_STOP]:
                        continue
                    if (deadline is not None and now >= deadline) or (stop is not None and stop.is_set()):
                        ctx[C_STOP] = 1
                        continue
                    if stop is not None:
                        waits.append(self.POLL)
                    if deadline is not None:
                        waits.append(deadline - now)
                self._lock.wait(min(waits) if waits else None)


_WATCHDOG = _Watchdog()


def _fresh_watchdog() -> None:
    """A forked child has no watchdog thread and may hold a copy of a taken lock: start afresh."""
    global _WATCHDOG
    _WATCHDOG = _Watchdog()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_watchdog)


# ---- the Python face --------------------------------------------------------------------------


class _TableView:
    """Which positions (by :attr:`Position.key`) a search's table holds, and how many."""

    def __init__(self, search: ChessSearch, which: int) -> None:
        self._search = search
        self._which = which

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, int):
            return False
        signed = (key ^ (1 << 63)) - (1 << 63)
        return bool(_holds(self._search._ctx, self._search._tables, self._which, signed))

    def __len__(self) -> int:
        return int(self._search._ctx[C_TT_COUNT + self._which])


class ChessSearch:
    """One engine's search state: transposition table, killers, history, counters.

    Keep one per game (the table carries over from move to move); ``table_size`` bounds
    the table (it is emptied when full). ``quiescence=False`` evaluates the horizon
    statically. ``use_table=False`` searches without a table (for reference searches).
    ``guide`` plans the opponent's nodes (see the module docstring); ``replies`` and
    ``reduce_below`` set the reply policy's selectivity instead (a guide of its own).
    With neither (the default) every move is searched alike.
    ``values`` (:class:`~search.chess.pst.PieceValues`) replace the tables' material and scale
    their square bonuses in the evaluation (an evolved evaluation, :mod:`search.chess.selfplay`);
    None (the default) keeps the board's own evaluation, unchanged and as fast.

    >>> import chess
    >>> from search import Limits
    >>> result = ChessSearch().search(chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), Limits(depth=3))
    >>> result.move, result.value == MATE - 1, result.depth
    (Move.from_uci('a1a8'), True, 3)
    """

    def __init__(
        self, *, table_size: int = 1_000_000, quiescence: bool = True, use_table: bool = True, contempt: int = 0,
        replies: ReplyPolicy | None = None, reduce_below: float = 0.0, guide: ModelGuide | None = None,
        values: PieceValues | None = None,
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
        self.shapes: dict[int, IterationShape] = {}
        """Per completed depth of the last watched search: the tree's shape (:meth:`shape`)."""
        self.line_length = 0
        """Plies of the watched line that could be followed from the root."""
        self._ctx = np.zeros(C_SIZE, dtype=np.int64)
        self._buffers = np.empty((_PLIES, MOVE_BUFFER), dtype=np.int64)
        self._tables = np.zeros((2, _FIELDS * _table_slots(table_size)), dtype=np.int64)
        self._ctx[C_TT_SLOTS] = self._ctx[C_QT_SLOTS] = _FIRST_SLOTS
        self._deadline: float | None = None
        self._max_nodes: int | None = None
        self._stop: threading.Event | None = None
        self._watching: int | None = None  # the watchdog's token for the running search
        self._root_only: frozenset[int] | None = None  # the root moves searched (None: all)
        self.values = values

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

    @property
    def values(self) -> PieceValues | None:
        """The piece values and square scales the evaluation uses (None: the tables' own, :mod:`search.chess.pst`).

        Setting them empties the tables, whose values were found with the old ones.
        """
        return self._values

    @values.setter
    def values(self, values: PieceValues | None) -> None:
        if values is not None and not isinstance(values, PieceValues):
            raise TypeError(f"values must be PieceValues or None, got {type(values).__name__}")
        self._values = values
        ctx = self._ctx
        ctx[C_VALUED] = values is not None
        ctx[C_MG_DELTA:C_SIZE] = 0
        if values is not None:
            for start, table, board in zip((C_MG_DELTA, C_EG_DELTA), values.tables(), (MG_TABLE, EG_TABLE)):
                delta = np.array(table, dtype=np.int64) - np.array(board, dtype=np.int64)
                ctx[start: start + 16 * 120] = np.concatenate([delta[p if p < 8 else p - 16] for p in range(16)])
        self._clear_tables()

    def evaluate(self, board: chess.Board) -> int:
        """The static evaluation of ``board`` this search uses, from the side to move's view (centipawns)."""
        return int(_value(Position.from_board(board).state, self._ctx))

    @property
    def nodes(self) -> int:
        """Main-search nodes of the last search."""
        return int(self._ctx[C_NODES])

    @property
    def qnodes(self) -> int:
        """Quiescence nodes of the last search."""
        return int(self._ctx[C_QNODES])

    @property
    def cutoffs(self) -> int:
        return int(self._ctx[C_CUTOFFS])

    @property
    def tt_hits(self) -> int:
        return int(self._ctx[C_TT_HITS])

    @property
    def table(self) -> _TableView:
        """The positions the transposition table holds (``key in table``, ``len(table)``)."""
        return _TableView(self, 0)

    @property
    def qtable(self) -> _TableView:
        """The positions the quiescence table holds."""
        return _TableView(self, 1)

    def shape(self, depth: int) -> IterationShape | None:
        """The watched search's iteration of nominal ``depth``: horizon and reach along the line."""
        return self.shapes.get(depth)

    def clear(self) -> None:
        """Forget the tables, killers and history (a new game)."""
        self._clear_tables()
        self._ctx[C_KILLERS: C_PV_LENGTH] = 0
        self._ctx[C_HISTORY:] = 0
        self._drawn_for = None

    def _clear_tables(self) -> None:
        ctx = self._ctx
        for which in (0, 1):
            self._tables[which, : _FIELDS * ctx[C_TT_SLOTS + which]] = 0
            ctx[C_TT_COUNT + which] = 0

    def _fit_tables(self) -> None:
        """Room in the tables for ``table_size`` entries (a larger size than at the start moves them)."""
        slots = _table_slots(self.table_size)
        if _FIELDS * slots <= self._tables.shape[1]:
            return
        tables = np.zeros((2, _FIELDS * slots), dtype=np.int64)
        tables[:, : self._tables.shape[1]] = self._tables
        self._tables = tables

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
        try:
            position = self._start(board, limits, stop, started, line)
            if position is None:
                return
            self._restrict_root(None if only is None else frozenset((from_move(only),)))
            previous = 0
            ctx = self._ctx
            for depth in range(1, (limits.depth or 64) + 1):
                if self._watch is not None:
                    ctx[C_LINE_ENTERED], ctx[C_LINE_REACH] = 0, depth
                    ctx[C_HORIZON: C_HORIZON + MAX_PLY + 1] = 0
                try:
                    value = self._root(position, depth, previous)
                except _Aborted:
                    return
                if self._watch is not None:
                    horizon = ctx[C_HORIZON: C_HORIZON + MAX_PLY + 1].copy()
                    self.shapes[depth] = IterationShape(
                        depth, horizon, int(ctx[C_LINE_ENTERED]), float(ctx[C_LINE_REACH])
                    )
                pv = self._line()
                previous = pv[0] if pv else 0
                yield self._result(value, pv, depth, started)
        finally:
            self._finish()

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
        try:
            position = self._start(board, limits, stop, started, None)
            if position is None:
                return
            legal = frozenset(from_move(move) for move in board.legal_moves)
            count = min(lines, len(legal))
            previous: list[int] = []
            for depth in range(1, (limits.depth or 64) + 1):
                ranked: list[int] = []
                results = []
                for line in range(count):
                    self._restrict_root(None if not ranked else legal.difference(ranked))
                    allowed = legal if self._root_only is None else self._root_only
                    first = previous[line] if line < len(previous) and previous[line] in allowed else 0
                    value = self._root(position, depth, first)
                    pv = self._line()
                    ranked.append(pv[0])
                    results.append(self._result(value, pv, depth, started))
                previous = ranked
                yield tuple(results)
        except _Aborted:
            return
        finally:
            self._restrict_root(None)
            self._finish()

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
        value = int(_value(position.state, self._ctx))
        return SearchResult(value=value, move=move, pv=(move,), depth=0, seconds=seconds, **counts)

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
        try:
            position = self._start(board, limits, None, started, None)
            if position is None:
                return {}
            return self._score_moves(position, depth)
        except _Aborted:
            raise TimeoutError(
                f"scoring {len(list(board.legal_moves))} moves to depth {depth} passed its deadline"
            ) from None
        finally:
            self._finish()

    def best_moves(self, board: chess.Board, depth: int, lines: int) -> dict[chess.Move, int]:
        """The exact values of the best ``lines`` legal moves and of every move tied with the last of them.

        Iterative deepening by passes over the root moves, two plies at a time as in
        :meth:`value`, each pass searching first the best moves of the pass before, best
        first (then the table's order). A pass gives the first ``lines`` moves a full
        window and every later one a zero window at the ``lines``-th best value so far
        (``cut``), proving most moves below it, and a move reaching ``cut`` a window from
        ``cut - 1`` up, which makes its value exact. Every move with a value of at least
        the ``lines``-th best is returned, so however ties are broken the best ``lines``
        are those :meth:`score_moves` gives, at about the cost of one search; with the
        best moves first, ``cut`` is the final one from the start. ``{}`` for a
        finished game.
        """
        if depth < 1 or lines < 1:
            raise ValueError(f"depth and lines must be at least 1, got {depth} and {lines}")
        started = time.perf_counter()
        try:
            position = self._start(board, Limits(), None, started, None)
            if position is None:
                return {}
            found: dict[int, int] = {}
            for iteration in _by_two_plies(depth):
                found = self._best_pass(position, iteration, lines, sorted(found, key=found.__getitem__, reverse=True))
            return {to_move(move): value for move, value in found.items()}
        finally:
            self._finish()

    def value(self, board: chess.Board, depth: int) -> int:
        """The value of ``board`` for the side to move at ``depth``, as :meth:`search` gives it to that depth.

        Iterative deepening by two plies (depth 6: 2, 4, 6; depth 5: 1, 3, 5): each
        iteration's line and table order the next, and one of the same parity orders it
        about as well as the depth just below, which it skips. A full-width search's value
        does not depend on its move order, save through the table (a bound found deeper
        settling a shallower node, repetitions). A finished game's value as :meth:`search`.
        """
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        started = time.perf_counter()
        try:
            position = self._start(board, Limits(), None, started, None)
            if position is not None:
                previous, value = 0, 0
                for iteration in _by_two_plies(depth):
                    value = self._root(position, iteration, previous)
                    pv = self._line()
                    previous = pv[0] if pv else 0
                return int(value)
        finally:
            self._finish()
        ended = self.search(board, Limits(depth=1)).value
        assert isinstance(ended, (int, float)), "a chess search has one value"
        return int(ended)

    def _best_pass(self, position: Position, depth: int, lines: int, first: list[int]) -> dict[int, int]:
        """One root pass of :meth:`best_moves` at ``depth``: ``first`` searched first, in that order."""
        ctx = self._ctx
        ctx[C_NODES] += 1
        in_check = position.in_check()
        count = _root_moves(position.state, ctx, self._tables, self._buffers[0], first[0] if first else 0)
        moves = self._buffers[0, :count].tolist()
        found: dict[int, int] = {}
        for move in [move for move in first if move in moves] + [move for move in moves if move not in first]:
            if not _make(position.state, move, in_check):
                _unmake(position.state)
                continue
            value: int | None = None
            if len(found) < lines:
                value = -self._node(position, depth - 1, -INFINITE, INFINITE, 1)
            else:
                cut = sorted(found.values(), reverse=True)[lines - 1]
                if -self._node(position, depth - 1, -cut, -cut + 1, 1) >= cut:
                    value = -self._node(position, depth - 1, -INFINITE, -cut + 1, 1)
                    if value < cut:  # the table's bounds moved between the two searches: no exact value
                        value = None
            _unmake(position.state)
            if value is not None:
                found[move] = value
                cut = sorted(found.values(), reverse=True)[min(lines, len(found)) - 1]
                found = {kept: held for kept, held in found.items() if held >= cut}
        return found

    def _score_moves(self, position: Position, depth: int) -> dict[chess.Move, int]:
        """The body of :meth:`score_moves`; raises ``_Aborted`` past the deadline."""
        if self.guide is None:
            moves = np.empty(MOVE_BUFFER, dtype=np.int64)
            values = np.empty(MOVE_BUFFER, dtype=np.int64)
            count = _score_all(position.state, self._ctx, self._buffers, self._tables, depth, moves, values)
            if count < 0:
                raise _Aborted
            return {to_move(move): value for move, value in zip(moves[:count].tolist(), values[:count].tolist())}
        previous = 0
        for shallower in range(1, depth):
            self._root(position, shallower, previous)
            pv = self._line()
            previous = pv[0] if pv else 0
        scores = {}
        for move in position.legal_moves():
            position.make(move)
            value = -self._node(position, depth - 1, -INFINITE, INFINITE, 1)
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
        position.reserve(MAX_PLY + 8)
        self._begin(limits, stop, started)
        self._begin_watch(board, line)
        if self.guide is not None:
            self.guide.begin(board)
        self._restrict_root(None)
        self._his_side = 1 - position.side
        self._value_draws(position)
        return None if self._root_terminal(position) else position

    def _begin(self, limits: Limits, stop: threading.Event | None, started: float) -> None:
        self._finish()
        ctx = self._ctx
        ctx[C_NODES] = ctx[C_QNODES] = ctx[C_CUTOFFS] = ctx[C_TT_HITS] = 0
        self.reduced = self.extended = self.pruned = 0
        self._deadline = None if limits.time is None else started + limits.time
        self._max_nodes = limits.nodes
        self._stop = stop
        ctx[C_MAX_NODES] = -1 if limits.nodes is None else limits.nodes
        ctx[C_ABORT] = ctx[C_STOP] = 0
        ctx[C_USE_TABLE] = bool(self.use_table)
        ctx[C_QUIESCENCE] = bool(self.quiescence)
        ctx[C_TABLE_SIZE] = self.table_size
        self._fit_tables()
        if self._deadline is not None or stop is not None:
            self._watching = _WATCHDOG.watch(ctx, self._deadline, stop)

    def _finish(self) -> None:
        """The search is over: its deadline and stop event are no longer watched."""
        if self._watching is not None:
            _WATCHDOG.release(self._watching)
            self._watching = None

    def _begin_watch(self, board: chess.Board, line: Sequence[chess.Move] | None) -> None:
        self.shapes = {}
        self._watch = None if line is None else line_keys(board, line)
        self.line_length = 0 if self._watch is None else len(self._watch) - 1
        ctx = self._ctx
        ctx[C_WATCHING] = self._watch is not None
        watched = [] if self._watch is None else self._watch[:_PLIES]
        ctx[C_WATCH_LEN] = len(watched)
        if watched:
            ctx[C_WATCH: C_WATCH + len(watched)] = np.array(watched, dtype=np.uint64).view(np.int64)

    def _restrict_root(self, moves: frozenset[int] | None) -> None:
        """Search only ``moves`` at the root (None: every move)."""
        self._root_only = moves
        ctx = self._ctx
        ctx[C_ROOT_ONLY] = -1 if moves is None else len(moves)
        if moves:
            ctx[C_ROOT_MOVES: C_ROOT_MOVES + len(moves)] = sorted(moves)

    def _line(self) -> list[int]:
        """The line the last root search found."""
        return self._ctx[C_PV: C_PV + self._ctx[C_PV_LENGTH]].tolist()

    def _result(self, value: int, pv: list[int], depth: int, started: float) -> SearchResult:
        moves = tuple(to_move(m) for m in pv)
        return SearchResult(
            value=int(value), move=moves[0] if moves else None, pv=moves, nodes=self.nodes,
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

    def _value_draws(self, root: Position) -> None:
        """A draw's value for each side to move under the contempt, seen from ``root``'s mover.

        The table holds values with draws in them. A contempt for the other side would
        turn their sign, so the table is emptied when the root side changes under a
        contempt; a new size of contempt for the same side only shifts them a little, and
        the table stays (as it does for the path-dependent draws).
        """
        contempt = int(self.contempt)
        self._draw_values = (-contempt, contempt) if root.side == 0 else (contempt, -contempt)
        self._ctx[C_DRAW], self._ctx[C_DRAW + 1] = self._draw_values
        if not contempt:
            return
        if self._drawn_for is not None and self._drawn_for != root.side:
            self._clear_tables()
        self._drawn_for = root.side

    # ---- the root, and the nodes a guide plans, in Python ----------------------------------

    def _root(self, position: Position, depth: int, first: int) -> int:
        """Search the root to ``depth`` with a full window; the line is :meth:`_line`."""
        if self.guide is None:
            value = _root(position.state, self._ctx, self._buffers, self._tables, depth, first)
            if self._ctx[C_ABORT]:
                raise _Aborted
            return int(value)
        return self._guided_root(position, depth, first)

    def _guided_root(self, position: Position, depth: int, first: int) -> int:
        """The compiled root's loop, with each child searched through :meth:`_node`."""
        self._check_budget()  # also between root moves: a stop is seen at once at shallow depths
        ctx = self._ctx
        ctx[C_NODES] += 1
        in_check = position.in_check()
        count = _root_moves(position.state, ctx, self._tables, self._buffers[0], first)
        moves = self._buffers[0, :count].tolist()
        alpha, best = -INFINITE, -INFINITE
        ctx[C_PV_LENGTH] = 0
        for move in moves:  # the stacks have room for the whole search (_start): the kernels make the moves
            if not _make(position.state, move, in_check):
                _unmake(position.state)
                continue
            if best > -INFINITE:
                self._check_budget()
            if best == -INFINITE:
                value = -self._node(position, depth - 1, -INFINITE, -alpha, 1)
            else:
                value = -self._node(position, depth - 1, -alpha - 1, -alpha, 1)
                if value > alpha:
                    value = -self._node(position, depth - 1, -INFINITE, -alpha, 1)
            _unmake(position.state)
            if value > best:
                best = value
                _set_line(ctx, 0, move)
                if value > alpha:
                    alpha = value
        if self.use_table and self._root_only is None:  # some moves' value is not the position's
            line = self._line()
            move = line[0] if line else 0
            _store(ctx, self._tables, position.state[S_KEY], depth, best, -INFINITE, INFINITE, move, 0)
        return best

    def _planned(self, side: int, depth: int, ply: int) -> bool:
        """Whether a node runs in Python: the guide may plan it, or (one of ours) one of its children."""
        guide = self.guide
        if guide is None or depth <= 0 or ply >= MAX_PLY:
            return False
        if side == self._his_side:
            return guide.may_plan(ply, depth)
        return guide.may_plan(ply + 1, depth - 1)

    def _node(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        """A main-search node: in Python where the guide may plan below it, else compiled."""
        if self._planned(position.side, depth, ply):
            return self._guided_node(position, depth, alpha, beta, ply)
        value = _negamax(position.state, self._ctx, self._buffers, self._tables, depth, alpha, beta, ply)
        if self._ctx[C_ABORT]:
            raise _Aborted
        return int(value)

    def _horizon(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        value = _horizon(position.state, self._ctx, self._buffers, self._tables, depth, alpha, beta, ply)
        if self._ctx[C_ABORT]:
            raise _Aborted
        return int(value)

    def _guided_node(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:  # noqa: C901
        """The compiled node's loop with the guide's plan at his nodes (its order, depths and pruning)."""
        ctx = self._ctx
        status, found, count, in_check = _enter(
            position.state, ctx, self._buffers, self._tables, depth, alpha, beta, ply
        )
        if status == 2:
            raise _Aborted
        if status == 1:
            return int(found)
        moves = self._buffers[ply, :count].tolist()
        original_alpha = alpha
        best, best_move = -INFINITE, 0
        legal = 0
        child = depth - 1
        # a horizon child goes straight to quiescence, which applies the draw rules itself
        search = self._horizon if child <= 0 and self.quiescence else self._node
        plan = None
        if position.side == self._his_side:
            assert self.guide is not None  # only a guided search runs nodes in Python
            plan = self.guide.plan(position, moves, ply, depth, in_check)
            if self._deadline is not None:  # a prediction may take longer than a thousand nodes
                self._check_budget()
            if plan is not None:
                moves, adjust, pruned = plan
        for move in moves:  # the stacks have room for the whole search (_start): the kernels make the moves
            if not _make(position.state, move, in_check):
                _unmake(position.state)
                continue
            if plan is not None:
                if legal and move in pruned:
                    _unmake(position.state)
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
            _unmake(position.state)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    _set_line(ctx, ply, move)
                    alpha = value
                    if alpha >= beta:
                        _cutoff(position.state, ctx, move, ply, depth)
                        break
        if not legal:
            return -(MATE - ply) if in_check else self._draw_values[position.side]
        if self.use_table:
            _store(ctx, self._tables, position.state[S_KEY], depth, best, original_alpha, beta, best_move, ply)
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
        search = self._horizon if depth <= 0 and self.quiescence else self._node
        if extra > 0:
            self.extended += 1
        elif extra < 0:
            self.reduced += 1
        if first:
            return -search(position, depth, -beta, -alpha, ply + 1)
        value = -search(position, depth, -alpha - 1, -alpha, ply + 1)
        if extra < 0 and value > alpha and settings.verify:  # it would be his best move so far: search it in full
            search = self._horizon if child <= 0 and self.quiescence else self._node
            value = -search(position, child, -alpha - 1, -alpha, ply + 1)
        if alpha < value < beta:
            value = -search(position, child if extra < 0 and settings.verify else depth, -beta, -alpha, ply + 1)
        return value
