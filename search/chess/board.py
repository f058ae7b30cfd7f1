"""A fast chess position for search: a padded mailbox board changed in place, compiled with numba.

python-chess is exact and general, and too slow to walk a search tree in CPython. This
module is the search's own board, with python-chess only at the boundary
(:meth:`Position.from_board` reads a ``chess.Board``, :func:`to_move` writes a
``chess.Move``) and as the oracle of its tests (perft, random playouts).

The board's work (move generation, make/unmake, legality, evaluation, draw rules) is
done by ``@njit(cache=True)`` functions over one ``int64`` array, the position's
*state*; :class:`Position` is a thin Python object around that array, and the compiled
search of :mod:`search.chess.engine` works on the same array directly. numba compiles
the functions on first use and keeps the machine code in ``__pycache__`` next to this
module, so later processes load it instead of compiling again.

Representation:

* Squares are indices into a 10x12 mailbox, ``21 + file + 10 * rank`` (a1 = 21,
  h8 = 98); the border holds :data:`OFF`, so a ray or a knight jump that leaves the
  board stops on it without any bounds test.
* A piece is ``+type`` for White and ``-type`` for Black (pawn 1 ... king 6, as in
  python-chess), 0 an empty square. Tables indexed by a piece are 16 long and read at
  ``piece & 15``, so a black piece lands at the end of the same table.
* A move is one integer, ``from | to << 7 | promotion << 14``.
* The state array holds the 120 mailbox squares, then the scalars (side to move,
  castling rights, en-passant square, clocks, key, kings, evaluation sums) at the
  offsets named ``S_*``, then a stack of undo records (:data:`UNDO_FIELDS` each) and
  the stack of position keys. :class:`Position` grows the array when a stack fills.

Moves are generated pseudo-legally; :func:`make` plays any of them and returns whether
the mover's king is safe afterwards (the cheap legality test: only a king move, an
en-passant capture, a move made in check or one from a square in line with the king
can expose the king, and only those pay for an attack test).

The position keeps, updated at every make and unmake: a 64-bit Zobrist key (its own
random numbers, fixed by a seed; stored as the signed 64-bit pattern, read as unsigned
by :attr:`Position.key`), the middlegame and endgame piece-square sums of the tapered
evaluation (:mod:`search.chess.pst`) and the game phase, and the keys of the positions
since the last capture or pawn move for repetitions. Two positions have the same key
when python-chess's ``is_repetition`` would count them as the same: the en-passant
square is part of the key only when an en-passant capture is legal.
"""

from __future__ import annotations

import functools
import hashlib
import random
from pathlib import Path

import chess
import numpy as np
from numba import njit
from numba.core.caching import CacheImpl, InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator
from numba.cpython.unsafe.numbers import trailing_zeros

from search.chess.pst import EG_TABLE, MG_TABLE, PHASE, PHASE_TOTAL

__all__ = [
    "Position",
    "OFF",
    "PAWN",
    "KNIGHT",
    "BISHOP",
    "ROOK",
    "QUEEN",
    "KING",
    "SQUARES",
    "MOVE_BUFFER",
    "to_mailbox",
    "to_square",
    "encode",
    "to_move",
    "from_move",
]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
OFF = 7
"""The value of the border squares around the board."""

SQUARES = tuple(21 + f + 10 * r for r in range(8) for f in range(8))
"""The 64 board squares as mailbox indices, a1 first (python-chess's order)."""

N, S, E, W = 10, -10, 1, -1
KNIGHT_STEPS = (21, 19, 12, 8, -8, -12, -19, -21)
KING_STEPS = (N, S, E, W, N + E, N + W, S + E, S + W)
ROOK_RAYS = (N, S, E, W)
BISHOP_RAYS = (N + E, N + W, S + E, S + W)

# Castling rights as bits: White king side, White queen side, Black king side, Black queen side.
WK, WQ, BK, BQ = 1, 2, 4, 8
_A1, _E1, _H1, _A8, _E8, _H8 = 21, 25, 28, 91, 95, 98

# ---- the compiled code's cache ------------------------------------------------------------

_CORE_FILES = tuple(
    str(path.resolve()) for path in (
        Path(__file__), Path(__file__).with_name("engine.py"), Path(__file__).with_name("pst.py"),
        Path(__file__).with_name("play.py"), Path(__file__).parents[1] / "result.py",
    )
)
"""The files the compiled core is made of or reads constants from (tables, layouts, ``MAX_PLY``)."""


@functools.cache
def _core_stamp() -> bytes:
    digest = hashlib.sha256()
    for name in _CORE_FILES:
        digest.update(Path(name).read_bytes())
    return digest.digest()


class _CoreStamp:
    """Stamps a compiled function of the core with the digest of all the core's files.

    numba's own locators stamp a function with its file alone; a kernel of the search
    compiles the board's functions into itself, so a change to the board must make it
    stale too. Mixed into numba's locators, in their order of preference: the cache
    directory the user named (``NUMBA_CACHE_DIR``), ``__pycache__`` next to the module,
    the user's own cache directory when the package's folder is read-only.
    """

    @classmethod
    def from_function(cls, py_func, py_file):
        if str(Path(py_file).resolve()) not in _CORE_FILES:
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self) -> bytes:
        return _core_stamp()


class _CoreUserProvidedLocator(_CoreStamp, UserProvidedCacheLocator):
    pass


class _CoreInTreeLocator(_CoreStamp, InTreeCacheLocator):
    pass


class _CoreUserWideLocator(_CoreStamp, UserWideCacheLocator):
    pass


_CORE_LOCATORS = [_CoreUserProvidedLocator, _CoreInTreeLocator, _CoreUserWideLocator]
if _CoreInTreeLocator not in CacheImpl._locator_classes:
    CacheImpl._locator_classes[:0] = _CORE_LOCATORS


# ---- the state array's layout ----------------------------------------------------------

S_SIDE, S_CASTLING, S_EP, S_HALFMOVE, S_FULLMOVE, S_KEY = 120, 121, 122, 123, 124, 125
S_KINGS, S_MG, S_EG, S_PHASE, S_HEAVY = 126, 128, 129, 130, 131  # kings: White's at 126, Black's at 127
S_UNDO_COUNT, S_UNDO_CAP, S_KEY_START, S_KEY_TOP, S_KEY_CAP = 132, 133, 134, 135, 136
S_OCCUPIED = 137  # bit i (a1 = 0, python-chess's order) set where a piece stands: White's at 137, Black's at 138
HEADER = 140
"""Where the undo stack starts; the key stack follows the undo stack's capacity."""
UNDO_FIELDS = 14
"""An undo record: move, piece, victim, castling, ep, halfmove, key, mg, eg, phase, heavy, key start (or -1),
and the two sides' occupied squares."""
MOVE_BUFFER = 768
"""Length of a move buffer: pseudo-legal moves in its first half, quiet moves gathered in its second."""
_QUIET_AT = MOVE_BUFFER // 2


def to_mailbox(square: int) -> int:
    """python-chess square (0..63) -> mailbox index."""
    return 21 + (square & 7) + 10 * (square >> 3)


def to_square(index: int) -> int:
    """Mailbox index -> python-chess square (0..63)."""
    return (index // 10 - 2) * 8 + index % 10 - 1


def encode(frm: int, to: int, promotion: int = 0) -> int:
    """The integer of a move from mailbox ``frm`` to ``to`` (promotion: a piece type or 0)."""
    return frm | to << 7 | promotion << 14


def to_move(move: int) -> chess.Move:
    """The ``chess.Move`` of a move integer."""
    move = int(move)
    promotion = move >> 14
    return chess.Move(to_square(move & 127), to_square(move >> 7 & 127), promotion or None)


def from_move(move: chess.Move) -> int:
    """The move integer of a ``chess.Move`` (no legality check)."""
    return encode(to_mailbox(move.from_square), to_mailbox(move.to_square), move.promotion or 0)


# ---- tables (numpy arrays: numba compiles them in as constants) ---------------------------


def _piece_table(values) -> np.ndarray:
    """A 16-long table indexed by ``piece & 15`` from a function of the piece (-8..7)."""
    return np.array([values(p if p < 8 else p - 16) for p in range(16)], dtype=np.int64)


_SQ = np.array(SQUARES, dtype=np.int64)
_KNIGHT_STEPS = np.array(KNIGHT_STEPS, dtype=np.int64)
_KING_STEPS = np.array(KING_STEPS, dtype=np.int64)
_ROOK_RAYS = np.array(ROOK_RAYS, dtype=np.int64)
_BISHOP_RAYS = np.array(BISHOP_RAYS, dtype=np.int64)
_PROMOTIONS = np.array((QUEEN, KNIGHT, ROOK, BISHOP), dtype=np.int64)
_ENEMY = np.array(
    [[int(-7 < p < 0) for p in (*range(8), *range(-8, 0))], [int(0 < p < 7) for p in (*range(8), *range(-8, 0))]],
    dtype=np.int64,
)
"""``_ENEMY[side, piece & 15]``: whether ``piece`` belongs to the side not ``side``."""
_ORDER_VALUE = _piece_table(lambda p: 100 * (0, 1, 3, 3, 5, 9, 0, 0)[abs(p)] if -6 <= p <= 7 else 0)
"""A captured (or promoted-to) piece's weight in the capture order, indexed by ``piece & 15``."""
_MG = np.array([MG_TABLE[p if p < 8 else p - 16] for p in range(16)], dtype=np.int64)
_EG = np.array([EG_TABLE[p if p < 8 else p - 16] for p in range(16)], dtype=np.int64)
_PHASE = _piece_table(lambda p: PHASE[p])
_MOVE_MASK = (1 << 17) - 1


def _castle_masks() -> np.ndarray:
    """Rights that survive a move touching each square (a king or rook leaving or taken)."""
    masks = [WK | WQ | BK | BQ] * 120
    masks[_E1] &= ~(WK | WQ)
    masks[_A1] &= ~WQ
    masks[_H1] &= ~WK
    masks[_E8] &= ~(BK | BQ)
    masks[_A8] &= ~BQ
    masks[_H8] &= ~BK
    return np.array(masks, dtype=np.int64)


def _ray_steps() -> np.ndarray:
    """``steps[a, b]``: the step from ``a`` towards ``b`` on a common line, else 0."""
    steps = np.zeros((120, 120), dtype=np.int64)
    for origin in SQUARES:
        for step in ROOK_RAYS + BISHOP_RAYS:
            square = origin + step
            while square in SQUARES:
                steps[origin, square] = step
                square += step
    return steps


def _knight_offsets() -> np.ndarray:
    """``table[d + 21]``: whether ``d`` is a knight's jump."""
    table = np.zeros(43, dtype=np.int64)
    for step in KNIGHT_STEPS:
        table[step + 21] = 1
    return table


def _bits() -> np.ndarray:
    """``bits[mailbox]``: the square's bit in an occupancy (0 off the board)."""
    bits = np.zeros(120, dtype=np.int64)
    for index, square in enumerate(SQUARES):
        bits[square] = np.int64(1 << index if index < 63 else -(1 << 63))
    return bits


_BIT = _bits()
_CASTLE_MASK = _castle_masks()
_RAY_STEP = _ray_steps()
_KNIGHT_OFFSET = _knight_offsets()


def _zobrist() -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """Fixed random numbers: per (piece, square), side to move, castling rights, en-passant file."""
    rng = random.Random(0x1A2B3C4D)
    pieces = np.zeros((16, 120), dtype=np.uint64)
    for piece in (*range(1, 7), *range(-6, 0)):
        pieces[piece & 15] = [rng.getrandbits(64) for _ in range(120)]
    side = rng.getrandbits(64)
    rights = [rng.getrandbits(64) for _ in range(4)]
    castling = np.zeros(16, dtype=np.uint64)
    for mask in range(16):
        value = 0
        for bit in range(4):
            if mask >> bit & 1:
                value ^= rights[bit]
        castling[mask] = value
    files = np.array([rng.getrandbits(64) for _ in range(10)], dtype=np.uint64)  # by mailbox column
    signed = (side ^ (1 << 63)) - (1 << 63)
    return pieces.view(np.int64), signed, castling.view(np.int64), files.view(np.int64)


_Z_PIECE, _Z_SIDE, _Z_CASTLE, _Z_EP = _zobrist()
_MASK64 = (1 << 64) - 1


def _signed(key: int) -> int:
    """An unsigned 64-bit key as the state array stores it."""
    return (key ^ (1 << 63)) - (1 << 63)


# ---- the compiled board -------------------------------------------------------------------


@njit(cache=True)
def _attacked(s, square, by):  # noqa: C901
    """Whether side ``by`` (0 White, 1 Black) attacks ``square``."""
    sign = -1 if by else 1
    if s[square - 9 * sign] == sign or s[square - 11 * sign] == sign:
        return True
    knight = 2 * sign
    for step in _KNIGHT_STEPS:
        if s[square + step] == knight:
            return True
    king = 6 * sign
    for step in _KING_STEPS:
        if s[square + step] == king:
            return True
    rook, queen = 4 * sign, 5 * sign
    for step in _ROOK_RAYS:
        target = square + step
        piece = s[target]
        while not piece:
            target += step
            piece = s[target]
        if piece == rook or piece == queen:
            return True
    bishop = 3 * sign
    for step in _BISHOP_RAYS:
        target = square + step
        piece = s[target]
        while not piece:
            target += step
            piece = s[target]
        if piece == bishop or piece == queen:
            return True
    return False


@njit(cache=True)
def _is_rook_step(step):
    return step == 10 or step == -10 or step == 1 or step == -1


@njit(cache=True)
def _in_check(s):  # noqa: C901
    """Whether the side to move is in check.

    After an ordinary move only two things can check: the moved piece itself, or a
    slider behind the square it left; both are a lookup and at most two short walks.
    At the root, and after king moves (castling too), promotions and en-passant
    captures, the full attack test decides.
    """
    side = s[S_SIDE]
    king = s[S_KINGS + side]
    count = s[S_UNDO_COUNT]
    if count == 0:
        return _attacked(s, king, 1 - side)
    last = HEADER + (count - 1) * UNDO_FIELDS
    move, piece = s[last], s[last + 1]
    to = move >> 7 & 127
    kind = piece if piece > 0 else -piece
    if kind == KING or move >> 14 or (kind == PAWN and to == s[last + 4]):
        return _attacked(s, king, 1 - side)
    if kind == PAWN:
        if side:
            if king - to == 9 or king - to == 11:
                return True
        elif to - king == 9 or to - king == 11:
            return True
    elif kind == KNIGHT:
        offset = king - to + 21
        if 0 <= offset < 43 and _KNIGHT_OFFSET[offset]:
            return True
    else:
        step = _RAY_STEP[to, king]
        if step and (kind == QUEEN or (kind == ROOK) == _is_rook_step(step)):
            square = to + step
            while not s[square]:
                square += step
            if square == king:
                return True
    step = _RAY_STEP[king, move & 127]
    if step:  # a discovered check through the square the piece left
        square = king + step
        found = s[square]
        while not found:
            square += step
            found = s[square]
        sign = 1 if side else -1  # the side that just moved
        if found == 5 * sign or found == (4 * sign if _is_rook_step(step) else 3 * sign):
            return True
    return False


@njit(cache=True)
def _sort_descending(moves, count):
    """Insertion sort of ``moves[:count]``, largest first (the keys are distinct)."""
    for i in range(1, count):
        value = moves[i]
        j = i - 1
        while j >= 0 and moves[j] < value:
            moves[j + 1] = moves[j]
            j -= 1
        moves[j + 1] = value


@njit(cache=True)
def _pick(moves, i, count):
    """The move with the largest key among ``moves[i:count]``, swapped to ``i`` (a sort done lazily)."""
    best = i
    for j in range(i + 1, count):
        if moves[j] > moves[best]:
            best = j
    key = moves[best]
    moves[best] = moves[i]
    moves[i] = key
    return key & _MOVE_MASK


@njit(cache=True)
def _captures(s, out):
    """Pseudo-legal captures, en passant and promotions into ``out``, most valuable victim first; their number.

    Ties go to the least valuable attacker (MVV-LVA), promotions by the piece made;
    the order is the one quiescence search tries them in.
    """
    n = _capture_keys(s, out)
    _sort_descending(out, n)
    for i in range(n):
        out[i] &= _MOVE_MASK
    return n


@njit(cache=True)
def _capture_keys(s, out):  # noqa: C901
    """The moves of :func:`_captures`, unsorted, each with its order above its 17 move bits; their number."""
    side = s[S_SIDE]
    white = side == 0
    sign = 1 if white else -1
    ep = s[S_EP]
    n = 0
    forward = 10 * sign
    occupied = s[S_OCCUPIED + side]
    while occupied:
        frm = _SQ[trailing_zeros(occupied)]
        occupied &= occupied - 1
        piece = s[frm] * sign
        if piece == PAWN:
            to = frm + forward
            if (91 <= to <= 98) if white else (21 <= to <= 28):
                if not s[to]:
                    for promotion in _PROMOTIONS:
                        out[n] = (_ORDER_VALUE[promotion] + 9) << 17 | frm | to << 7 | promotion << 14
                        n += 1
                for target in (to - 1, to + 1):
                    victim = s[target]
                    if _ENEMY[side, victim & 15]:
                        for promotion in _PROMOTIONS:
                            out[n] = ((_ORDER_VALUE[promotion] + _ORDER_VALUE[victim & 15] + 9) << 17
                                      | frm | target << 7 | promotion << 14)
                            n += 1
            else:
                for target in (to - 1, to + 1):
                    victim = s[target]
                    if _ENEMY[side, victim & 15] or target == ep:
                        out[n] = (_ORDER_VALUE[victim & 15] + 9) << 17 | frm | target << 7
                        n += 1
        elif piece == KNIGHT:
            for step in _KNIGHT_STEPS:
                victim = s[frm + step]
                if _ENEMY[side, victim & 15]:
                    out[n] = (_ORDER_VALUE[victim & 15] + 7) << 17 | frm | (frm + step) << 7
                    n += 1
        elif piece == KING:
            for step in _KING_STEPS:
                victim = s[frm + step]
                if _ENEMY[side, victim & 15]:
                    out[n] = (_ORDER_VALUE[victim & 15] + 10) << 17 | frm | (frm + step) << 7
                    n += 1
        else:
            bonus = 5 if piece == ROOK else 7 if piece == BISHOP else 1
            rays = _ROOK_RAYS if piece == ROOK else _BISHOP_RAYS if piece == BISHOP else _KING_STEPS
            for step in rays:
                target = frm + step
                victim = s[target]
                while not victim:
                    target += step
                    victim = s[target]
                if _ENEMY[side, victim & 15]:
                    out[n] = (_ORDER_VALUE[victim & 15] + bonus) << 17 | frm | target << 7
                    n += 1
    return n


@njit(cache=True)
def _pseudo_moves(s, out):  # noqa: C901
    """Every pseudo-legal move into ``out``: captures and promotions first, then quiet moves; their number."""
    side = s[S_SIDE]
    white = side == 0
    sign = 1 if white else -1
    ep = s[S_EP]
    n = 0
    q = _QUIET_AT
    forward = 10 * sign
    occupied = s[S_OCCUPIED + side]
    while occupied:
        frm = _SQ[trailing_zeros(occupied)]
        occupied &= occupied - 1
        piece = s[frm] * sign
        if piece == PAWN:
            to = frm + forward
            last_rank = (91 <= to <= 98) if white else (21 <= to <= 28)
            for target in (to - 1, to + 1):
                if _ENEMY[side, s[target] & 15]:
                    if last_rank:
                        for promotion in _PROMOTIONS:
                            out[n] = frm | target << 7 | promotion << 14
                            n += 1
                    else:
                        out[n] = frm | target << 7
                        n += 1
                elif target == ep:
                    out[n] = frm | target << 7
                    n += 1
            if not s[to]:
                if last_rank:
                    for promotion in _PROMOTIONS:
                        out[n] = frm | to << 7 | promotion << 14
                        n += 1
                else:
                    out[q] = frm | to << 7
                    q += 1
                    if ((31 <= frm <= 38) if white else (81 <= frm <= 88)) and not s[to + forward]:
                        out[q] = frm | (to + forward) << 7
                        q += 1
        elif piece == KNIGHT or piece == KING:
            for step in _KNIGHT_STEPS if piece == KNIGHT else _KING_STEPS:
                target = frm + step
                victim = s[target]
                if not victim:
                    out[q] = frm | target << 7
                    q += 1
                elif _ENEMY[side, victim & 15]:
                    out[n] = frm | target << 7
                    n += 1
        else:
            rays = _ROOK_RAYS if piece == ROOK else _BISHOP_RAYS if piece == BISHOP else _KING_STEPS
            for step in rays:
                target = frm + step
                victim = s[target]
                while not victim:
                    out[q] = frm | target << 7
                    q += 1
                    target += step
                    victim = s[target]
                if _ENEMY[side, victim & 15]:
                    out[n] = frm | target << 7
                    n += 1
    if s[S_CASTLING]:
        q = _castles(s, out, q)
    for i in range(_QUIET_AT, q):
        out[n] = out[i]
        n += 1
    return n


@njit(cache=True)
def _castles(s, out, q):
    """Castling moves (rights, empty squares, no square the king crosses attacked) from ``out[q]``; the new end."""
    rights = s[S_CASTLING]
    if s[S_SIDE] == 0:
        if (rights & WK and not s[26] and not s[27]
                and not (_attacked(s, 25, 1) or _attacked(s, 26, 1) or _attacked(s, 27, 1))):
            out[q] = 25 | 27 << 7
            q += 1
        if (rights & WQ and not s[24] and not s[23] and not s[22]
                and not (_attacked(s, 25, 1) or _attacked(s, 24, 1) or _attacked(s, 23, 1))):
            out[q] = 25 | 23 << 7
            q += 1
    else:
        if (rights & BK and not s[96] and not s[97]
                and not (_attacked(s, 95, 0) or _attacked(s, 96, 0) or _attacked(s, 97, 0))):
            out[q] = 95 | 97 << 7
            q += 1
        if (rights & BQ and not s[94] and not s[93] and not s[92]
                and not (_attacked(s, 95, 0) or _attacked(s, 94, 0) or _attacked(s, 93, 0))):
            out[q] = 95 | 93 << 7
            q += 1
    return q


@njit(cache=True)
def _has_legal_move(s, in_check, buffer):
    """Whether the side to move has any legal move (stops at the first); ``buffer`` is scratch.

    Out of check, a piece off every line through its king cannot expose the king,
    so any pseudo-legal step of such a piece settles it without playing a move;
    otherwise every pseudo-legal move is tried in turn.
    """
    if not in_check and _free_piece_can_move(s):
        return True
    count = _pseudo_moves(s, buffer)
    for i in range(count):
        safe = _make(s, buffer[i], in_check)
        _unmake(s)
        if safe:
            return True
    return False


@njit(cache=True)
def _free_piece_can_move(s):
    """A non-king piece that shares no line with its king has a pseudo-legal move."""
    side = s[S_SIDE]
    sign = 1 if side == 0 else -1
    king = s[S_KINGS + side]
    forward = 10 * sign
    occupied = s[S_OCCUPIED + side]
    while occupied:
        frm = _SQ[trailing_zeros(occupied)]
        occupied &= occupied - 1
        piece = s[frm] * sign
        if piece == KING or _RAY_STEP[king, frm]:
            continue
        if piece == PAWN:
            to = frm + forward
            if not s[to] or _ENEMY[side, s[to - 1] & 15] or _ENEMY[side, s[to + 1] & 15]:
                return True
            continue
        steps = _KNIGHT_STEPS if piece == KNIGHT else _ROOK_RAYS if piece == ROOK else (
            _BISHOP_RAYS if piece == BISHOP else _KING_STEPS)
        for step in steps:
            target = s[frm + step]
            if not target or _ENEMY[side, target & 15]:
                return True
    return False


@njit(cache=True)
def _is_heavy(piece):
    return piece == 1 or piece == -1 or piece == 4 or piece == -4 or piece == 5 or piece == -5


@njit(cache=True)
def _make(s, move, in_check):  # noqa: C901
    """Play a pseudo-legal ``move``; ``False`` if it leaves the mover's king attacked.

    Always follow with :func:`_unmake`, legal or not; the undo and key stacks must have
    room for one more entry. ``in_check=False`` only when the mover is known not to be
    in check: the king test is then skipped for moves that cannot expose the king.
    """
    side = s[S_SIDE]
    frm = move & 127
    to = move >> 7 & 127
    promotion = move >> 14
    piece = s[frm]
    victim = s[to]
    record = HEADER + s[S_UNDO_COUNT] * UNDO_FIELDS
    s[S_UNDO_COUNT] += 1
    s[record] = move
    s[record + 1] = piece
    s[record + 2] = victim
    s[record + 3] = s[S_CASTLING]
    s[record + 4] = s[S_EP]
    s[record + 5] = s[S_HALFMOVE]
    s[record + 6] = s[S_KEY]
    s[record + 7] = s[S_MG]
    s[record + 8] = s[S_EG]
    s[record + 9] = s[S_PHASE]
    s[record + 10] = s[S_HEAVY]
    s[record + 11] = -1
    ours, theirs = s[S_OCCUPIED + side], s[S_OCCUPIED + 1 - side]
    s[record + 12] = ours
    s[record + 13] = theirs
    ours ^= _BIT[frm] | _BIT[to]
    key = s[S_KEY] ^ _Z_SIDE ^ _Z_CASTLE[s[S_CASTLING]]
    if s[S_EP]:
        key ^= _Z_EP[s[S_EP] % 10]
    mg, eg = s[S_MG], s[S_EG]
    key ^= _Z_PIECE[piece & 15, frm]
    mg -= _MG[piece & 15, frm]
    eg -= _EG[piece & 15, frm]
    s[frm] = 0
    placed = piece
    halfmove = s[S_HALFMOVE] + 1
    kind = piece if piece > 0 else -piece
    check_needed = in_check or kind == KING
    pin_step = 0 if check_needed else _RAY_STEP[s[S_KINGS + side], frm]
    new_ep = 0
    if victim:
        key ^= _Z_PIECE[victim & 15, to]
        mg -= _MG[victim & 15, to]
        eg -= _EG[victim & 15, to]
        s[S_PHASE] -= _PHASE[victim & 15]
        if _is_heavy(victim):
            s[S_HEAVY] -= 1
        theirs ^= _BIT[to]
        halfmove = 0
    if kind == PAWN:
        halfmove = 0
        if to == s[S_EP]:
            taken = to - 10 if side == 0 else to + 10
            pawn = s[taken]
            key ^= _Z_PIECE[pawn & 15, taken]
            mg -= _MG[pawn & 15, taken]
            eg -= _EG[pawn & 15, taken]
            s[taken] = 0
            theirs ^= _BIT[taken]
            s[S_HEAVY] -= 1
            check_needed = True
        elif promotion:
            placed = promotion if side == 0 else -promotion
            s[S_PHASE] += _PHASE[placed & 15]
            if promotion == KNIGHT or promotion == BISHOP:
                s[S_HEAVY] -= 1
        elif to - frm == 20 or frm - to == 20:
            new_ep = (frm + to) >> 1
    elif kind == KING:
        s[S_KINGS + side] = to
        if to - frm == 2 or frm - to == 2:
            if to > frm:
                rook_from, rook_to = frm + 3, frm + 1
            else:
                rook_from, rook_to = frm - 4, frm - 1
            rook = s[rook_from]
            key ^= _Z_PIECE[rook & 15, rook_from] ^ _Z_PIECE[rook & 15, rook_to]
            mg += _MG[rook & 15, rook_to] - _MG[rook & 15, rook_from]
            eg += _EG[rook & 15, rook_to] - _EG[rook & 15, rook_from]
            s[rook_from] = 0
            s[rook_to] = rook
            ours ^= _BIT[rook_from] | _BIT[rook_to]
    s[S_OCCUPIED + side] = ours
    s[S_OCCUPIED + 1 - side] = theirs
    s[to] = placed
    key ^= _Z_PIECE[placed & 15, to]
    mg += _MG[placed & 15, to]
    eg += _EG[placed & 15, to]
    castling = s[S_CASTLING] & _CASTLE_MASK[frm] & _CASTLE_MASK[to]
    s[S_CASTLING] = castling
    key ^= _Z_CASTLE[castling]
    s[S_SIDE] = 1 - side
    s[S_HALFMOVE] = halfmove
    if side == 1:
        s[S_FULLMOVE] += 1
    s[S_MG] = mg
    s[S_EG] = eg
    if new_ep and _ep_capturable(s, new_ep, to):
        key ^= _Z_EP[new_ep % 10]
    else:
        new_ep = 0
    s[S_EP] = new_ep
    s[S_KEY] = key
    keys = HEADER + s[S_UNDO_CAP] * UNDO_FIELDS
    s[keys + s[S_KEY_TOP]] = key
    s[S_KEY_TOP] += 1
    if not halfmove:
        s[record + 11] = s[S_KEY_START]
        s[S_KEY_START] = s[S_KEY_TOP] - 1
    king = s[S_KINGS + side]
    if check_needed:
        return not _attacked(s, king, 1 - side)
    if pin_step:  # was the piece pinned? the first piece on the king's line through ``frm``
        target = king + pin_step
        found = s[target]
        while not found:
            target += pin_step
            found = s[target]
        sign = 1 if side else -1  # the enemy's sign
        if found == 5 * sign:
            return False
        if _is_rook_step(pin_step):
            return found != 4 * sign
        return found != 3 * sign
    return True


@njit(cache=True)
def _ep_capturable(s, target, pawn_square):
    """Whether the side now to move can legally take en passant on ``target``."""
    side = s[S_SIDE]
    capturer = 1 if side == 0 else -1
    for square in (pawn_square - 1, pawn_square + 1):
        if s[square] != capturer:
            continue
        pushed = s[pawn_square]
        s[square] = 0
        s[pawn_square] = 0
        s[target] = capturer
        safe = not _attacked(s, s[S_KINGS + side], 1 - side)
        s[target] = 0
        s[pawn_square] = pushed
        s[square] = capturer
        if safe:
            return True
    return False


@njit(cache=True)
def _unmake(s):
    """Take back the last :func:`_make`."""
    s[S_UNDO_COUNT] -= 1
    record = HEADER + s[S_UNDO_COUNT] * UNDO_FIELDS
    move, piece, victim = s[record], s[record + 1], s[record + 2]
    s[S_CASTLING] = s[record + 3]
    s[S_EP] = s[record + 4]
    s[S_HALFMOVE] = s[record + 5]
    s[S_KEY] = s[record + 6]
    s[S_MG] = s[record + 7]
    s[S_EG] = s[record + 8]
    s[S_PHASE] = s[record + 9]
    s[S_HEAVY] = s[record + 10]
    side = 1 - s[S_SIDE]
    s[S_OCCUPIED + side] = s[record + 12]
    s[S_OCCUPIED + 1 - side] = s[record + 13]
    s[S_KEY_TOP] -= 1
    if s[record + 11] >= 0:
        s[S_KEY_START] = s[record + 11]
    s[S_SIDE] = side
    if side == 1:
        s[S_FULLMOVE] -= 1
    frm = move & 127
    to = move >> 7 & 127
    s[frm] = piece
    s[to] = victim
    kind = piece if piece > 0 else -piece
    if kind == PAWN:
        if to == s[S_EP] and not victim:
            if side == 0:
                s[to - 10] = -1
            else:
                s[to + 10] = 1
    elif kind == KING:
        s[S_KINGS + side] = frm
        if to - frm == 2 or frm - to == 2:
            if to > frm:
                rook_from, rook_to = frm + 3, frm + 1
            else:
                rook_from, rook_to = frm - 4, frm - 1
            s[rook_from] = s[rook_to]
            s[rook_to] = 0


@njit(cache=True)
def _evaluate(s):
    """Tapered piece-square evaluation in centipawns, from the side to move's view."""
    phase = s[S_PHASE] if s[S_PHASE] < PHASE_TOTAL else PHASE_TOTAL
    value = (s[S_MG] * phase + s[S_EG] * (PHASE_TOTAL - phase)) // PHASE_TOTAL
    return -value if s[S_SIDE] else value


@njit(cache=True)
def _repetitions(s):
    """How often the current position occurred before (since the last irreversible move)."""
    keys = HEADER + s[S_UNDO_CAP] * UNDO_FIELDS + s[S_KEY_START]
    count = s[S_KEY_TOP] - s[S_KEY_START]
    key = s[keys + count - 1]
    found = 0
    for i in range(count - 3, -1, -2):
        if s[keys + i] == key:
            found += 1
    return found


@njit(cache=True)
def _repeated(s):
    """Whether the current position occurred before (the search's draw by repetition)."""
    count = s[S_KEY_TOP] - s[S_KEY_START]
    if count < 5:
        return False
    keys = HEADER + s[S_UNDO_CAP] * UNDO_FIELDS + s[S_KEY_START]
    key = s[keys + count - 1]
    for i in range(count - 5, -1, -2):
        if s[keys + i] == key:
            return True
    return False


@njit(cache=True)
def _insufficient_material(s):
    """Neither side can mate (python-chess's rule: K v K, K+minor v K, bishops of one colour)."""
    if s[S_HEAVY]:
        return False
    minors = 0
    colours = 0  # bit 1: a minor on a dark square, bit 2: on a light one
    knight = False
    for square in _SQ:
        piece = s[square]
        kind = piece if piece > 0 else -piece
        if kind == KNIGHT or kind == BISHOP:
            minors += 1
            knight = knight or kind == KNIGHT
            colours |= 1 << ((square % 10 + square // 10) % 2)
    if minors <= 1:
        return True
    if knight:
        return False
    return colours != 3


@njit(cache=True)
def _drawn_by_rule(s):
    """Fifty moves, a repetition, or dead material: the search's draw rules."""
    return s[S_HALFMOVE] >= 100 or _repeated(s) or (not s[S_HEAVY] and _insufficient_material(s))


@njit(cache=True)
def _recompute(s):
    """Key and evaluation sums from the squares (the incremental ones must equal these)."""
    key, mg, eg, phase, heavy = 0, 0, 0, 0, 0
    s[S_OCCUPIED] = s[S_OCCUPIED + 1] = 0
    for square in _SQ:
        piece = s[square]
        if piece:
            s[S_OCCUPIED + (0 if piece > 0 else 1)] |= _BIT[square]
            key ^= _Z_PIECE[piece & 15, square]
            mg += _MG[piece & 15, square]
            eg += _EG[piece & 15, square]
            phase += _PHASE[piece & 15]
            kind = piece if piece > 0 else -piece
            if kind == PAWN or kind == ROOK or kind == QUEEN:
                heavy += 1
    key ^= _Z_CASTLE[s[S_CASTLING]]
    if s[S_EP]:
        key ^= _Z_EP[s[S_EP] % 10]
    if s[S_SIDE]:
        key ^= _Z_SIDE
    s[S_KEY] = key
    s[S_MG] = mg
    s[S_EG] = eg
    s[S_PHASE] = phase
    s[S_HEAVY] = heavy


@njit(cache=True)
def _legal_moves(s, out):
    """The legal moves into ``out``, in generation order; their number."""
    in_check = _in_check(s)
    count = _pseudo_moves(s, out)
    legal = 0
    for i in range(count):
        move = out[i]
        if _make(s, move, in_check):
            out[legal] = move
            legal += 1
        _unmake(s)
    return legal


# ---- the Python face ---------------------------------------------------------------------


def _new_state(undo_capacity: int, key_capacity: int) -> np.ndarray:
    state = np.zeros(HEADER + undo_capacity * UNDO_FIELDS + key_capacity, dtype=np.int64)
    state[:120] = OFF
    state[_SQ] = 0
    state[S_FULLMOVE] = 1
    state[S_UNDO_CAP] = undo_capacity
    state[S_KEY_CAP] = key_capacity
    return state


class Position:
    """A chess position that a search changes in place (:meth:`make` / :meth:`unmake`).

    A view of one state array (:attr:`state`, laid out as the module docstring says),
    which the compiled search works on directly. ``side`` is 0 when White is to move,
    1 for Black; ``ep`` the en-passant target square (mailbox) when an en-passant capture
    is legal, else 0; ``castling`` the rights as bits; ``halfmove`` the fifty-move clock;
    ``keys`` the Zobrist keys of the positions since the last irreversible move (the
    current one last); ``mg``, ``eg`` and ``phase`` the evaluation's running sums
    (White's point of view).
    """

    __slots__ = ("state",)

    def __init__(self, undo_capacity: int = 256, key_capacity: int = 512) -> None:
        self.state = _new_state(undo_capacity, key_capacity)

    # ---- the state's fields --------------------------------------------------------------

    @property
    def board(self) -> np.ndarray:
        """The 120 mailbox squares (a view: it changes with the position)."""
        return self.state[:120]

    @property
    def side(self) -> int:
        return int(self.state[S_SIDE])

    @property
    def castling(self) -> int:
        return int(self.state[S_CASTLING])

    @property
    def ep(self) -> int:
        return int(self.state[S_EP])

    @property
    def halfmove(self) -> int:
        return int(self.state[S_HALFMOVE])

    @property
    def fullmove(self) -> int:
        return int(self.state[S_FULLMOVE])

    @property
    def key(self) -> int:
        return int(self.state[S_KEY]) & _MASK64

    @property
    def keys(self) -> list[int]:
        state = self.state
        base = HEADER + int(state[S_UNDO_CAP]) * UNDO_FIELDS
        return [int(key) & _MASK64 for key in state[base + state[S_KEY_START]: base + state[S_KEY_TOP]]]

    @property
    def kings(self) -> list[int]:
        return [int(self.state[S_KINGS]), int(self.state[S_KINGS + 1])]

    @property
    def mg(self) -> int:
        return int(self.state[S_MG])

    @property
    def eg(self) -> int:
        return int(self.state[S_EG])

    @property
    def phase(self) -> int:
        return int(self.state[S_PHASE])

    @property
    def heavy(self) -> int:
        """Pawns, rooks and queens on the board: none left -> check the material draw."""
        return int(self.state[S_HEAVY])

    def reserve(self, moves: int) -> None:
        """Make room for ``moves`` more moves on the undo and key stacks."""
        state = self.state
        undo_cap, key_cap = int(state[S_UNDO_CAP]), int(state[S_KEY_CAP])
        need_undo = int(state[S_UNDO_COUNT]) + moves
        need_keys = int(state[S_KEY_TOP]) + moves
        if need_undo <= undo_cap and need_keys <= key_cap:
            return
        undo_cap, key_cap = max(undo_cap, 2 * need_undo), max(key_cap, 2 * need_keys)
        grown = _new_state(undo_cap, key_cap)
        grown[:HEADER] = state[:HEADER]
        grown[S_UNDO_CAP], grown[S_KEY_CAP] = undo_cap, key_cap
        used = int(state[S_UNDO_COUNT]) * UNDO_FIELDS
        grown[HEADER: HEADER + used] = state[HEADER: HEADER + used]
        old_keys = HEADER + int(state[S_UNDO_CAP]) * UNDO_FIELDS
        new_keys = HEADER + undo_cap * UNDO_FIELDS
        top = int(state[S_KEY_TOP])
        grown[new_keys: new_keys + top] = state[old_keys: old_keys + top]
        self.state = grown

    # ---- the boundary with python-chess -------------------------------------------------

    @classmethod
    def from_board(cls, board: chess.Board) -> Position:
        """The position of ``board``, with the repetition history its move stack holds.

        Only standard chess; the board must have one king per side.

        >>> position = Position.from_board(chess.Board())
        >>> len(position.legal_moves()), position.in_check(), position.evaluate()
        (20, False, 0)
        >>> move = from_move(chess.Move.from_uci("e2e4"))
        >>> position.make(move), to_move(move), position.side
        (True, Move.from_uci('e2e4'), 1)
        >>> position.unmake(); position.to_board().fen() == chess.STARTING_FEN
        True
        """
        if board.chess960 or type(board) is not chess.Board:
            raise ValueError("only standard chess is supported")
        start = board.copy()
        replay: list[chess.Move] = []
        while start.move_stack and len(replay) < board.halfmove_clock:
            replay.append(start.pop())
        position = cls._from_placement(start, len(replay))
        state = position.state
        for move in reversed(replay):
            _make(state, from_move(move), True)
        # forget the replayed moves: only the keys since the last irreversible move stay
        base = HEADER + int(state[S_UNDO_CAP]) * UNDO_FIELDS
        first, top = int(state[S_KEY_START]), int(state[S_KEY_TOP])
        state[base: base + top - first] = state[base + first: base + top].copy()
        state[S_KEY_START], state[S_KEY_TOP] = 0, top - first
        state[S_UNDO_COUNT] = 0
        return position

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """The position of a FEN (no history)."""
        return cls.from_board(chess.Board(fen))

    @classmethod
    def _from_placement(cls, board: chess.Board, history: int) -> Position:
        position = cls(max(256, 2 * history), max(512, 2 * history + 256))
        state = position.state
        for square, piece in board.piece_map().items():
            value = piece.piece_type if piece.color == chess.WHITE else -piece.piece_type
            state[to_mailbox(square)] = value
        white_king, black_king = board.king(chess.WHITE), board.king(chess.BLACK)
        kings = board.pieces(chess.KING, chess.WHITE) | board.pieces(chess.KING, chess.BLACK)
        if white_king is None or black_king is None or len(kings) != 2:
            raise ValueError(f"need exactly one king per side: {board.fen()}")
        state[S_KINGS], state[S_KINGS + 1] = to_mailbox(white_king), to_mailbox(black_king)
        state[S_SIDE] = 0 if board.turn == chess.WHITE else 1
        rights = board.clean_castling_rights()
        state[S_CASTLING] = (
            (WK if rights & chess.BB_H1 else 0) | (WQ if rights & chess.BB_A1 else 0)
            | (BK if rights & chess.BB_H8 else 0) | (BQ if rights & chess.BB_A8 else 0)
        )
        state[S_HALFMOVE] = board.halfmove_clock
        state[S_FULLMOVE] = board.fullmove_number
        state[S_EP] = 0
        if board.ep_square is not None and board.has_legal_en_passant():
            state[S_EP] = to_mailbox(board.ep_square)
        _recompute(state)
        base = HEADER + int(state[S_UNDO_CAP]) * UNDO_FIELDS
        state[base] = state[S_KEY]
        state[S_KEY_START], state[S_KEY_TOP] = 0, 1
        return position

    def to_board(self) -> chess.Board:
        """A ``chess.Board`` of this position (without move history)."""
        board = chess.Board(None)
        squares = self.state
        for square in SQUARES:
            piece = int(squares[square])
            if piece:
                board.set_piece_at(to_square(square), chess.Piece(abs(piece), piece > 0))
        board.turn = self.side == 0
        rights = 0
        for bit, square in ((WK, chess.H1), (WQ, chess.A1), (BK, chess.H8), (BQ, chess.A8)):
            if self.castling & bit:
                rights |= chess.BB_SQUARES[square]
        board.castling_rights = rights
        board.ep_square = to_square(self.ep) if self.ep else None
        board.halfmove_clock = self.halfmove
        board.fullmove_number = self.fullmove
        return board

    # ---- attacks, moves and the game state -------------------------------------------------

    def attacked(self, square: int, by: int) -> bool:
        """Whether side ``by`` (0 White, 1 Black) attacks ``square``."""
        return bool(_attacked(self.state, square, by))

    def in_check(self) -> bool:
        """Whether the side to move is in check."""
        return bool(_in_check(self.state))

    def captures(self) -> list[int]:
        """Pseudo-legal captures, en passant and promotions, most valuable victim first (MVV-LVA)."""
        buffer = np.empty(MOVE_BUFFER, dtype=np.int64)
        return buffer[: _captures(self.state, buffer)].tolist()

    def pseudo_moves(self) -> list[int]:
        """Every pseudo-legal move: captures and promotions first, then quiet moves."""
        buffer = np.empty(MOVE_BUFFER, dtype=np.int64)
        return buffer[: _pseudo_moves(self.state, buffer)].tolist()

    def legal_moves(self) -> list[int]:
        """The legal moves, in generation order."""
        self.reserve(1)
        buffer = np.empty(MOVE_BUFFER, dtype=np.int64)
        return buffer[: _legal_moves(self.state, buffer)].tolist()

    def has_legal_move(self, in_check: bool | None = None) -> bool:
        """Whether the side to move has any legal move (stops at the first).

        ``in_check``: pass it when known, to save a test.
        """
        self.reserve(1)
        if in_check is None:
            in_check = self.in_check()
        return bool(_has_legal_move(self.state, in_check, np.empty(MOVE_BUFFER, dtype=np.int64)))

    def make(self, move: int, in_check: bool = True) -> bool:
        """Play a pseudo-legal ``move``; ``False`` if it leaves the mover's king attacked.

        Always follow with :meth:`unmake`, legal or not. The caller vouches that the
        move is pseudo-legal here (as generated); nothing else is checked. Pass
        ``in_check=False`` only when the mover is known not to be in check: the king
        test is then skipped for moves that cannot expose the king.
        """
        self.reserve(1)
        return bool(_make(self.state, move, in_check))

    def unmake(self) -> None:
        """Take back the last :meth:`make`."""
        if not self.state[S_UNDO_COUNT]:
            raise IndexError("no move to take back")
        _unmake(self.state)

    def moves_made(self) -> list[int]:
        """The moves made since this position was built (from its board), oldest first."""
        count = int(self.state[S_UNDO_COUNT])
        return self.state[HEADER: HEADER + count * UNDO_FIELDS: UNDO_FIELDS].tolist()

    def evaluate(self) -> int:
        """Tapered piece-square evaluation in centipawns, from the side to move's view."""
        return int(_evaluate(self.state))

    def repetitions(self) -> int:
        """How often the current position occurred before (since the last irreversible move)."""
        return int(_repetitions(self.state))

    def repeated(self) -> bool:
        """Whether the current position occurred before (the search's draw by repetition)."""
        return bool(_repeated(self.state))

    def insufficient_material(self) -> bool:
        """Neither side can mate (python-chess's rule: K v K, K+minor v K, bishops of one colour)."""
        return bool(_insufficient_material(self.state))
