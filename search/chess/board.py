"""A fast chess position for search: a padded mailbox board changed in place.

python-chess is exact and general, and too slow to walk a search tree in CPython. This
module is the search's own board, with python-chess only at the boundary
(:meth:`Position.from_board` reads a ``chess.Board``, :func:`to_move` writes a
``chess.Move``) and as the oracle of its tests (perft, random playouts).

Representation (chosen for CPython speed: plain lists and small integers):

* Squares are indices into a 10x12 mailbox, ``21 + file + 10 * rank`` (a1 = 21,
  h8 = 98); the border holds :data:`OFF`, so a ray or a knight jump that leaves the
  board stops on it without any bounds test.
* A piece is ``+type`` for White and ``-type`` for Black (pawn 1 ... king 6, as in
  python-chess), 0 an empty square. Tables indexed by a piece are 16 long, so a
  black piece's negative index lands at the end of the same tuple.
* A move is one integer, ``from | to << 7 | promotion << 14``.

Moves are generated pseudo-legally; :meth:`Position.make` plays any of them and
returns whether the mover's king is safe afterwards (the cheap legality test: only a
king move, an en-passant capture, a move made in check or one from a square in line
with the king can expose the king, and only those pay for an attack test).

The position keeps, updated at every make and unmake: a 64-bit Zobrist key (its own
random numbers, fixed by a seed), the middlegame and endgame piece-square sums of the
tapered evaluation (:mod:`search.chess.pst`) and the game phase, and the keys of the
positions since the last capture or pawn move for repetitions. Two positions have the
same key when python-chess's ``is_repetition`` would count them as the same: the
en-passant square is part of the key only when an en-passant capture is legal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import chess

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
    promotion = move >> 14
    return chess.Move(to_square(move & 127), to_square(move >> 7 & 127), promotion or None)


def from_move(move: chess.Move) -> int:
    """The move integer of a ``chess.Move`` (no legality check)."""
    return encode(to_mailbox(move.from_square), to_mailbox(move.to_square), move.promotion or 0)


def _enemy_table(white: bool) -> tuple[bool, ...]:
    """``table[piece]`` says whether ``piece`` (index -6..7) belongs to the other side."""
    table = [False] * 16
    for piece in range(1, 7):
        table[-piece if white else piece] = True
    return tuple(table)


_ENEMY = (_enemy_table(True), _enemy_table(False))  # indexed by side: 0 White, 1 Black
_ORDER_VALUE = tuple(100 * (0, 1, 3, 3, 5, 9, 0, 0)[abs(p)] if -6 <= p <= 7 else 0 for p in (*range(8), *range(-8, 0)))
"""A captured (or promoted-to) piece's weight in the capture order, indexed by piece."""
_MOVE_MASK = (1 << 17) - 1


def _castle_masks() -> tuple[int, ...]:
    """Rights that survive a move touching each square (a king or rook leaving or taken)."""
    masks = [WK | WQ | BK | BQ] * 120
    masks[_E1] &= ~(WK | WQ)
    masks[_A1] &= ~WQ
    masks[_H1] &= ~WK
    masks[_E8] &= ~(BK | BQ)
    masks[_A8] &= ~BQ
    masks[_H8] &= ~BK
    return tuple(masks)


_CASTLE_MASK = _castle_masks()


def _aligned() -> tuple[frozenset[int], ...]:
    """For each square, the squares on a common rank, file or diagonal with it."""
    lines = []
    for origin in range(120):
        seen: set[int] = set()
        if origin in SQUARES:
            for step in ROOK_RAYS + BISHOP_RAYS:
                square = origin + step
                while square in SQUARES:
                    seen.add(square)
                    square += step
        lines.append(frozenset(seen))
    return tuple(lines)


def _ray_steps() -> tuple[int, ...]:
    """``steps[a * 120 + b]``: the step from ``a`` towards ``b`` on a common line, else 0."""
    steps = [0] * (120 * 120)
    for origin in SQUARES:
        for step in ROOK_RAYS + BISHOP_RAYS:
            square = origin + step
            while square in SQUARES:
                steps[origin * 120 + square] = step
                square += step
    return tuple(steps)


_ALIGNED = _aligned()
_RAY_STEP = _ray_steps()
_KNIGHT_OFFSETS = frozenset(KNIGHT_STEPS)
_ROOK_STEPS = frozenset(ROOK_RAYS)
_SQUARES_FROM_H8 = SQUARES[::-1]


def _zobrist() -> tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...], tuple[int, ...]]:
    """Fixed random numbers: per (piece, square), side to move, castling rights, en-passant file."""
    rng = random.Random(0x1A2B3C4D)
    pieces: list[tuple[int, ...]] = [(0,) * 120] * 16
    for piece in (*range(1, 7), *range(-6, 0)):
        pieces[piece] = tuple(rng.getrandbits(64) for _ in range(120))
    side = rng.getrandbits(64)
    rights = [rng.getrandbits(64) for _ in range(4)]
    castling = tuple(
        _xor_all(rights[bit] for bit in range(4) if mask >> bit & 1) for mask in range(16)
    )
    files = tuple(rng.getrandbits(64) for _ in range(10))  # indexed by mailbox column
    return tuple(pieces), side, castling, files


def _xor_all(values: Iterable[int]) -> int:
    result = 0
    for value in values:
        result ^= value
    return result


_Z_PIECE, _Z_SIDE, _Z_CASTLE, _Z_EP = _zobrist()


class Position:
    """A chess position that a search changes in place (:meth:`make` / :meth:`unmake`).

    ``side`` is 0 when White is to move, 1 for Black; ``ep`` the en-passant target
    square (mailbox) when an en-passant capture is legal, else 0; ``castling`` the
    rights as bits; ``halfmove`` the fifty-move clock; ``keys`` the Zobrist keys of the
    positions since the last irreversible move (the current one last); ``mg``, ``eg``
    and ``phase`` the evaluation's running sums (White's point of view).
    """

    __slots__ = (
        "board", "side", "castling", "ep", "halfmove", "fullmove", "key", "keys",
        "kings", "mg", "eg", "phase", "heavy", "_undo",
    )

    def __init__(self) -> None:
        self.board = [OFF] * 120
        for square in SQUARES:
            self.board[square] = 0
        self.side = 0
        self.castling = 0
        self.ep = 0
        self.halfmove = 0
        self.fullmove = 1
        self.key = 0
        self.keys: list[int] = []
        self.kings = [0, 0]
        self.mg = self.eg = self.phase = 0
        self.heavy = 0  # pawns, rooks and queens on the board: none left -> check the material draw
        self._undo: list[tuple] = []

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
        position = cls._from_placement(start)
        for move in reversed(replay):
            position.make(from_move(move))
        position._undo.clear()
        return position

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """The position of a FEN (no history)."""
        return cls.from_board(chess.Board(fen))

    @classmethod
    def _from_placement(cls, board: chess.Board) -> Position:
        position = cls()
        squares = position.board
        for square, piece in board.piece_map().items():
            value = piece.piece_type if piece.color == chess.WHITE else -piece.piece_type
            squares[to_mailbox(square)] = value
        white_king, black_king = board.king(chess.WHITE), board.king(chess.BLACK)
        kings = board.pieces(chess.KING, chess.WHITE) | board.pieces(chess.KING, chess.BLACK)
        if white_king is None or black_king is None or len(kings) != 2:
            raise ValueError(f"need exactly one king per side: {board.fen()}")
        position.kings = [to_mailbox(white_king), to_mailbox(black_king)]
        position.side = 0 if board.turn == chess.WHITE else 1
        rights = board.clean_castling_rights()
        position.castling = (
            (WK if rights & chess.BB_H1 else 0) | (WQ if rights & chess.BB_A1 else 0)
            | (BK if rights & chess.BB_H8 else 0) | (BQ if rights & chess.BB_A8 else 0)
        )
        position.halfmove = board.halfmove_clock
        position.fullmove = board.fullmove_number
        position.ep = 0
        if board.ep_square is not None and board.has_legal_en_passant():
            position.ep = to_mailbox(board.ep_square)
        position._recompute()
        position.keys = [position.key]
        return position

    def _recompute(self) -> None:
        """Key and evaluation sums from scratch (the incremental ones must equal these)."""
        key, mg, eg, phase, heavy = 0, 0, 0, 0, 0
        for square in SQUARES:
            piece = self.board[square]
            if piece:
                key ^= _Z_PIECE[piece][square]
                mg += MG_TABLE[piece][square]
                eg += EG_TABLE[piece][square]
                phase += PHASE[piece]
                heavy += abs(piece) in (PAWN, ROOK, QUEEN)
        key ^= _Z_CASTLE[self.castling]
        if self.ep:
            key ^= _Z_EP[self.ep % 10]
        if self.side:
            key ^= _Z_SIDE
        self.key, self.mg, self.eg, self.phase, self.heavy = key, mg, eg, phase, heavy

    def to_board(self) -> chess.Board:
        """A ``chess.Board`` of this position (without move history)."""
        board = chess.Board(None)
        for square in SQUARES:
            piece = self.board[square]
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

    # ---- attacks and checks --------------------------------------------------------------

    def attacked(self, square: int, by: int) -> bool:  # noqa: C901
        """Whether side ``by`` (0 White, 1 Black) attacks ``square``."""
        board = self.board
        sign = -1 if by else 1
        pawn = sign
        if board[square - 9 * sign] == pawn or board[square - 11 * sign] == pawn:
            return True
        knight = 2 * sign
        for step in KNIGHT_STEPS:
            if board[square + step] == knight:
                return True
        king = 6 * sign
        for step in KING_STEPS:
            if board[square + step] == king:
                return True
        rook, queen = 4 * sign, 5 * sign
        for step in ROOK_RAYS:
            target = square + step
            piece = board[target]
            while not piece:
                target += step
                piece = board[target]
            if piece == rook or piece == queen:
                return True
        bishop = 3 * sign
        for step in BISHOP_RAYS:
            target = square + step
            piece = board[target]
            while not piece:
                target += step
                piece = board[target]
            if piece == bishop or piece == queen:
                return True
        return False

    def in_check(self) -> bool:  # noqa: C901
        """Whether the side to move is in check.

        After an ordinary move only two things can check: the moved piece itself, or a
        slider behind the square it left; both are a lookup and at most two short walks.
        At the root, and after king moves (castling too), promotions and en-passant
        captures, the full attack test decides.
        """
        side = self.side
        king = self.kings[side]
        undo = self._undo
        if not undo:
            return self.attacked(king, 1 - side)
        last = undo[-1]
        move, piece = last[0], last[1]
        to = move >> 7 & 127
        kind = piece if piece > 0 else -piece
        if kind == KING or move >> 14 or (kind == PAWN and to == last[4]):
            return self.attacked(king, 1 - side)
        board = self.board
        if kind == PAWN:
            if (king - to == 9 or king - to == 11) if side else (to - king == 9 or to - king == 11):
                return True
        elif kind == KNIGHT:
            if king - to in _KNIGHT_OFFSETS:
                return True
        else:
            step = _RAY_STEP[to * 120 + king]
            if step and (kind == QUEEN or (kind == ROOK) == (step in _ROOK_STEPS)):
                square = to + step
                while not board[square]:
                    square += step
                if square == king:
                    return True
        step = _RAY_STEP[king * 120 + (move & 127)]
        if step:  # a discovered check through the square the piece left
            square = king + step
            found = board[square]
            while not found:
                square += step
                found = board[square]
            sign = 1 if side else -1  # the side that just moved
            if found == 5 * sign or found == (4 * sign if step in _ROOK_STEPS else 3 * sign):
                return True
        return False

    # ---- move generation -----------------------------------------------------------------

    def captures(self) -> list[int]:  # noqa: C901
        """Pseudo-legal captures, en passant and promotions, most valuable victim first.

        Ties go to the least valuable attacker (MVV-LVA), promotions by the piece made;
        the order is the one quiescence search tries them in.
        """
        board = self.board
        white = self.side == 0
        enemy = _ENEMY[self.side]
        sign = 1 if white else -1
        ep = self.ep
        moves: list[int] = []
        add = moves.append
        forward = 10 * sign
        for frm in SQUARES:
            piece = board[frm] * sign
            if piece <= 0:
                continue
            if piece == PAWN:
                to = frm + forward
                if 91 <= to <= 98 if white else 21 <= to <= 28:
                    if not board[to]:
                        for promotion in (QUEEN, KNIGHT, ROOK, BISHOP):
                            add((_ORDER_VALUE[promotion] + 9) << 17 | frm | to << 7 | promotion << 14)
                    for target in (to - 1, to + 1):
                        victim = board[target]
                        if enemy[victim]:
                            for promotion in (QUEEN, KNIGHT, ROOK, BISHOP):
                                add((_ORDER_VALUE[promotion] + _ORDER_VALUE[victim] + 9) << 17
                                    | frm | target << 7 | promotion << 14)
                else:
                    victim = board[to - 1]
                    if enemy[victim] or to - 1 == ep:
                        add((_ORDER_VALUE[victim] + 9) << 17 | frm | (to - 1) << 7)
                    victim = board[to + 1]
                    if enemy[victim] or to + 1 == ep:
                        add((_ORDER_VALUE[victim] + 9) << 17 | frm | (to + 1) << 7)
            elif piece == KNIGHT:
                for step in KNIGHT_STEPS:
                    victim = board[frm + step]
                    if enemy[victim]:
                        add((_ORDER_VALUE[victim] + 7) << 17 | frm | (frm + step) << 7)
            elif piece == KING:
                for step in KING_STEPS:
                    victim = board[frm + step]
                    if enemy[victim]:
                        add((_ORDER_VALUE[victim] + 10) << 17 | frm | (frm + step) << 7)
            else:
                bonus = 5 if piece == ROOK else 7 if piece == BISHOP else 1
                for step in ROOK_RAYS if piece == ROOK else BISHOP_RAYS if piece == BISHOP else KING_STEPS:
                    target = frm + step
                    victim = board[target]
                    while not victim:
                        target += step
                        victim = board[target]
                    if enemy[victim]:
                        add((_ORDER_VALUE[victim] + bonus) << 17 | frm | target << 7)
        if len(moves) > 1:
            moves.sort(reverse=True)
        return [move & _MOVE_MASK for move in moves]

    def pseudo_moves(self) -> list[int]:  # noqa: C901
        """Every pseudo-legal move: captures and promotions first, then quiet moves."""
        board = self.board
        white = self.side == 0
        enemy = _ENEMY[self.side]
        sign = 1 if white else -1
        ep = self.ep
        noisy: list[int] = []
        quiet: list[int] = []
        add_noisy, add_quiet = noisy.append, quiet.append
        forward = 10 * sign
        for frm in SQUARES:
            piece = board[frm] * sign
            if piece <= 0:
                continue
            if piece == PAWN:
                to = frm + forward
                last_rank = 91 <= to <= 98 if white else 21 <= to <= 28
                for target in (to - 1, to + 1):
                    if enemy[board[target]]:
                        if last_rank:
                            for promotion in (QUEEN, KNIGHT, ROOK, BISHOP):
                                add_noisy(frm | target << 7 | promotion << 14)
                        else:
                            add_noisy(frm | target << 7)
                    elif target == ep:
                        add_noisy(frm | target << 7)
                if not board[to]:
                    if last_rank:
                        for promotion in (QUEEN, KNIGHT, ROOK, BISHOP):
                            add_noisy(frm | to << 7 | promotion << 14)
                    else:
                        add_quiet(frm | to << 7)
                        if (31 <= frm <= 38 if white else 81 <= frm <= 88) and not board[to + forward]:
                            add_quiet(frm | (to + forward) << 7)
            elif piece == KNIGHT or piece == KING:
                for step in KNIGHT_STEPS if piece == KNIGHT else KING_STEPS:
                    target = frm + step
                    victim = board[target]
                    if not victim:
                        add_quiet(frm | target << 7)
                    elif enemy[victim]:
                        add_noisy(frm | target << 7)
            else:
                rays = ROOK_RAYS if piece == ROOK else BISHOP_RAYS if piece == BISHOP else KING_STEPS
                for step in rays:
                    target = frm + step
                    victim = board[target]
                    while not victim:
                        add_quiet(frm | target << 7)
                        target += step
                        victim = board[target]
                    if enemy[victim]:
                        add_noisy(frm | target << 7)
        if self.castling:
            self._castles(add_quiet)
        noisy.extend(quiet)
        return noisy

    def _castles(self, add: Callable[[int], None]) -> None:
        """Castling moves (rights, empty squares, no square the king crosses attacked)."""
        board, rights = self.board, self.castling
        if self.side == 0:
            if rights & WK and not board[26] and not board[27] and not self._any_attacked((25, 26, 27), 1):
                add(25 | 27 << 7)
            if (rights & WQ and not board[24] and not board[23] and not board[22]
                    and not self._any_attacked((25, 24, 23), 1)):
                add(25 | 23 << 7)
        else:
            if rights & BK and not board[96] and not board[97] and not self._any_attacked((95, 96, 97), 0):
                add(95 | 97 << 7)
            if (rights & BQ and not board[94] and not board[93] and not board[92]
                    and not self._any_attacked((95, 94, 93), 0)):
                add(95 | 93 << 7)

    def _any_attacked(self, squares: tuple[int, ...], by: int) -> bool:
        return any(self.attacked(square, by) for square in squares)

    def legal_moves(self) -> list[int]:
        """The legal moves, in generation order."""
        legal = []
        in_check = self.in_check()
        for move in self.pseudo_moves():
            if self.make(move, in_check):
                legal.append(move)
            self.unmake()
        return legal

    def has_legal_move(self, in_check: bool | None = None) -> bool:
        """Whether the side to move has any legal move (stops at the first).

        Out of check, a piece off every line through its king cannot expose the king,
        so any pseudo-legal step of such a piece settles it without playing a move;
        otherwise every pseudo-legal move is tried in turn. ``in_check``: pass it when
        known, to save a test.
        """
        if in_check is None:
            in_check = self.in_check()
        if not in_check and self._free_piece_can_move():
            return True
        for move in self.pseudo_moves():
            safe = self.make(move, in_check)
            self.unmake()
            if safe:
                return True
        return False

    def _free_piece_can_move(self) -> bool:
        """A non-king piece that shares no line with its king has a pseudo-legal move."""
        board = self.board
        white = self.side == 0
        enemy = _ENEMY[self.side]
        sign = 1 if white else -1
        aligned = _ALIGNED[self.kings[self.side]]
        forward = 10 * sign
        for frm in SQUARES if white else _SQUARES_FROM_H8:
            piece = board[frm] * sign
            if piece <= 0 or piece == KING or frm in aligned:
                continue
            if piece == PAWN:
                to = frm + forward
                if not board[to] or enemy[board[to - 1]] or enemy[board[to + 1]]:
                    return True
                continue
            for step in (
                KNIGHT_STEPS if piece == KNIGHT else ROOK_RAYS if piece == ROOK
                else BISHOP_RAYS if piece == BISHOP else KING_STEPS
            ):
                target = board[frm + step]
                if not target or enemy[target]:
                    return True
        return False

    # ---- making and unmaking moves -------------------------------------------------------

    def make(self, move: int, in_check: bool = True) -> bool:  # noqa: C901
        """Play a pseudo-legal ``move``; ``False`` if it leaves the mover's king attacked.

        Always follow with :meth:`unmake`, legal or not. The caller vouches that the
        move is pseudo-legal here (as generated); nothing else is checked. Pass
        ``in_check=False`` only when the mover is known not to be in check: the king
        test is then skipped for moves that cannot expose the king.
        """
        board = self.board
        side = self.side
        frm = move & 127
        to = move >> 7 & 127
        promotion = move >> 14
        piece = board[frm]
        victim = board[to]
        self._undo.append(
            (move, piece, victim, self.castling, self.ep, self.halfmove, self.key, self.mg, self.eg,
             self.phase, self.heavy)
        )
        key = self.key ^ _Z_SIDE ^ _Z_CASTLE[self.castling]
        if self.ep:
            key ^= _Z_EP[self.ep % 10]
        mg_table, eg_table = MG_TABLE, EG_TABLE
        mg, eg = self.mg, self.eg
        pieces = _Z_PIECE[piece]
        key ^= pieces[frm]
        mg -= mg_table[piece][frm]
        eg -= eg_table[piece][frm]
        board[frm] = 0
        placed = piece
        halfmove = self.halfmove + 1
        kind = piece if piece > 0 else -piece
        check_needed = in_check or kind == KING
        pin_step = 0 if check_needed else _RAY_STEP[self.kings[side] * 120 + frm]
        new_ep = 0
        if victim:
            key ^= _Z_PIECE[victim][to]
            mg -= mg_table[victim][to]
            eg -= eg_table[victim][to]
            self.phase -= PHASE[victim]
            if victim in (1, -1, 4, -4, 5, -5):
                self.heavy -= 1
            halfmove = 0
        if kind == PAWN:
            halfmove = 0
            if to == self.ep:
                taken = to - 10 if side == 0 else to + 10
                pawn = board[taken]
                key ^= _Z_PIECE[pawn][taken]
                mg -= mg_table[pawn][taken]
                eg -= eg_table[pawn][taken]
                board[taken] = 0
                self.heavy -= 1
                check_needed = True
            elif promotion:
                placed = promotion if side == 0 else -promotion
                self.phase += PHASE[placed]
                if promotion == KNIGHT or promotion == BISHOP:
                    self.heavy -= 1
            elif to - frm == 20 or frm - to == 20:
                new_ep = (frm + to) >> 1
        elif kind == KING:
            self.kings[side] = to
            if to - frm == 2 or frm - to == 2:
                rook_from, rook_to = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
                rook = board[rook_from]
                rooks = _Z_PIECE[rook]
                key ^= rooks[rook_from] ^ rooks[rook_to]
                mg += mg_table[rook][rook_to] - mg_table[rook][rook_from]
                eg += eg_table[rook][rook_to] - eg_table[rook][rook_from]
                board[rook_from] = 0
                board[rook_to] = rook
        board[to] = placed
        key ^= _Z_PIECE[placed][to]
        mg += mg_table[placed][to]
        eg += eg_table[placed][to]
        castling = self.castling & _CASTLE_MASK[frm] & _CASTLE_MASK[to]
        self.castling = castling
        key ^= _Z_CASTLE[castling]
        self.side = 1 - side
        self.halfmove = halfmove
        if side == 1:
            self.fullmove += 1
        self.mg, self.eg = mg, eg
        if new_ep and self._ep_capturable(new_ep, to):
            key ^= _Z_EP[new_ep % 10]
        else:
            new_ep = 0
        self.ep = new_ep
        self.key = key
        if halfmove:
            self.keys.append(key)
        else:
            self._undo[-1] += (self.keys,)
            self.keys = [key]
        if check_needed:
            return not self.attacked(self.kings[side], 1 - side)
        if pin_step:  # was the piece pinned? the first piece on the king's line through ``frm``
            target = self.kings[side] + pin_step
            piece = board[target]
            while not piece:
                target += pin_step
                piece = board[target]
            sign = 1 if side else -1  # the enemy's sign
            if piece == 5 * sign:
                return False
            if pin_step in (10, -10, 1, -1):
                return piece != 4 * sign
            return piece != 3 * sign
        return True

    def _ep_capturable(self, target: int, pawn_square: int) -> bool:
        """Whether the side now to move can legally take en passant on ``target``."""
        board = self.board
        side = self.side
        capturer = 1 if side == 0 else -1
        found = False
        for square in (pawn_square - 1, pawn_square + 1):
            if board[square] != capturer:
                continue
            pushed = board[pawn_square]
            board[square] = 0
            board[pawn_square] = 0
            board[target] = capturer
            safe = not self.attacked(self.kings[side], 1 - side)
            board[target] = 0
            board[pawn_square] = pushed
            board[square] = capturer
            if safe:
                found = True
                break
        return found

    def moves_made(self) -> list[int]:
        """The moves made since this position was built (from its board), oldest first."""
        return [undo[0] for undo in self._undo]

    def unmake(self) -> None:
        """Take back the last :meth:`make`."""
        undo = self._undo.pop()
        move, piece, victim = undo[0], undo[1], undo[2]
        (self.castling, self.ep, self.halfmove, self.key, self.mg, self.eg, self.phase,
         self.heavy) = undo[3:11]
        if len(undo) > 11:
            self.keys = undo[11]
        else:
            self.keys.pop()
        board = self.board
        self.side = side = 1 - self.side
        if side == 1:
            self.fullmove -= 1
        frm = move & 127
        to = move >> 7 & 127
        board[frm] = piece
        board[to] = victim
        kind = piece if piece > 0 else -piece
        if kind == PAWN:
            if to == self.ep and not victim:
                board[to - 10 if side == 0 else to + 10] = -1 if side == 0 else 1
        elif kind == KING:
            self.kings[side] = frm
            if to - frm == 2 or frm - to == 2:
                rook_from, rook_to = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
                board[rook_from] = board[rook_to]
                board[rook_to] = 0

    # ---- game state ----------------------------------------------------------------------

    def evaluate(self) -> int:
        """Tapered piece-square evaluation in centipawns, from the side to move's view."""
        phase = self.phase if self.phase < PHASE_TOTAL else PHASE_TOTAL
        value = (self.mg * phase + self.eg * (PHASE_TOTAL - phase)) // PHASE_TOTAL
        return -value if self.side else value

    def repetitions(self) -> int:
        """How often the current position occurred before (since the last irreversible move)."""
        keys = self.keys
        key = keys[-1]
        return sum(1 for i in range(len(keys) - 3, -1, -2) if keys[i] == key)

    def repeated(self) -> bool:
        """Whether the current position occurred before (the search's draw by repetition)."""
        keys = self.keys
        if len(keys) < 5:
            return False
        key = keys[-1]
        for i in range(len(keys) - 5, -1, -2):
            if keys[i] == key:
                return True
        return False

    def insufficient_material(self) -> bool:
        """Neither side can mate (python-chess's rule: K v K, K+minor v K, bishops of one colour)."""
        if self.heavy:
            return False
        minors = [
            (square, piece) for square in SQUARES if (piece := self.board[square]) and abs(piece) in (KNIGHT, BISHOP)
        ]
        if len(minors) <= 1:
            return True
        if any(abs(piece) == KNIGHT for _, piece in minors):
            return False
        colours = {(square % 10 + square // 10) % 2 for square, _ in minors}
        return len(colours) == 1
