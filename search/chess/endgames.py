"""Pawnless chess endgames as a small game, for the retrograde solver (source note 004, "DP for
chess endgames").

A state is a position of a material signature (say KQ vs K) reduced by the board's
eight symmetries: without pawns or castling rights a position's value does not change
when the board is mirrored or rotated, so the eight images are one state. Legal moves,
checkmate and stalemate come from python-chess; a move is applied by moving the piece
(and removing a captured one) on the compact state, since no pawn, castling or en
passant rule can apply. Captures lead to smaller signatures (bare kings: a draw). As in
endgame tablebases, the fifty-move rule and repetitions are ignored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import permutations
from typing import cast

import chess

from search.game import Capabilities, Game

__all__ = ["ChessEndgame", "EndgameState", "symmetry_key"]

EndgameState = tuple[bool, tuple[int, ...]]
"""(White to move, sorted piece codes): code = kind << 6 | square, kind = piece type for
White, piece type + 8 for Black; the lexicographically least of the eight images."""

_LETTERS = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT}


def _transform(index: int, square: int) -> int:
    file, rank = chess.square_file(square), chess.square_rank(square)
    if index & 1:
        file = 7 - file
    if index & 2:
        rank = 7 - rank
    if index & 4:
        file, rank = rank, file
    return chess.square(file, rank)


_SYMMETRIES = tuple(tuple(_transform(i, sq) for sq in chess.SQUARES) for i in range(8))
_TRIANGLE = tuple(sq for sq in chess.SQUARES if chess.square_rank(sq) <= chess.square_file(sq) <= 3)


def _canonical(turn: bool, codes: Sequence[int]) -> EndgameState:
    codes = sorted(codes)
    kinds = [c >> 6 for c in codes]
    if len(set(kinds)) == len(kinds):  # no two pieces alike: the sorted order never changes
        return (turn, min(tuple(c & ~63 | table[c & 63] for c in codes) for table in _SYMMETRIES))
    return (
        turn,
        min(tuple(sorted(c & ~63 | table[c & 63] for c in codes)) for table in _SYMMETRIES),
    )


def symmetry_key(board: chess.Board) -> EndgameState:
    """The endgame state of a pawnless, castling-free ``board`` (shared by its mirror images)."""
    if board.pawns or board.castling_rights:
        raise ValueError("endgame states are for positions without pawns or castling rights")
    white = board.occupied_co[chess.WHITE]
    codes = [
        (cast(chess.PieceType, board.piece_type_at(sq)) + (0 if white >> sq & 1 else 8)) << 6 | sq
        for sq in chess.scan_forward(board.occupied)
    ]
    return _canonical(board.turn, codes)


class ChessEndgame(Game):
    """All positions with ``white``'s and ``black``'s pieces (e.g. "KQ" and "K").

    Player 0 is White. Utility: +1 for the side that mates, -1 for the mated side, 0
    for stalemate and for positions without mating material.
    """

    capabilities = Capabilities(players=2, zero_sum=True, chance=False)

    def __init__(self, white: str = "KQ", black: str = "K") -> None:
        if white.count("K") != 1 or black.count("K") != 1 or set(white + black) - set(_LETTERS):
            raise ValueError("one king per side and only K, Q, R, B, N (no pawns): e.g. 'KQ', 'K'")
        self.white, self.black = white, black
        self._cache: tuple[EndgameState, chess.Board, list[chess.Move], set] | None = None

    def states(self) -> Iterator[EndgameState]:
        """Every legal state of the signature, each once, both sides to move."""
        kinds = [_LETTERS[c] for c in self.white.replace("K", "")]
        kinds += [_LETTERS[c] + 8 for c in self.black.replace("K", "")]
        seen = set()
        for wk in _TRIANGLE:
            others = [sq for sq in chess.SQUARES if sq != wk]
            for squares in permutations(others, len(kinds) + 1):
                codes = [chess.KING << 6 | wk, (chess.KING + 8) << 6 | squares[0]]
                codes += [kind << 6 | sq for kind, sq in zip(kinds, squares[1:])]
                for turn in (chess.WHITE, chess.BLACK):
                    state = _canonical(turn, codes)
                    if state not in seen and self.board(state).is_valid():
                        seen.add(state)
                        yield state

    def board(self, state: EndgameState) -> chess.Board:
        """The position of ``state`` as a python-chess board."""
        turn, codes = state
        board = chess.Board(None)
        for code in codes:
            kind = code >> 6
            board.set_piece_at(code & 63, chess.Piece(kind & 7, chess.WHITE if kind < 8 else chess.BLACK))
        board.turn = turn
        return board

    def _position(self, state: EndgameState) -> tuple[chess.Board, list[chess.Move]]:
        if self._cache is None or self._cache[0] != state:
            board = self.board(state)
            moves = list(board.generate_legal_moves())
            self._cache = (state, board, moves, set(moves))
        return self._cache[1], self._cache[2]

    def initial_state(self) -> EndgameState:
        return next(self.states())

    def to_move(self, state: EndgameState) -> int:
        return 0 if state[0] else 1

    def actions(self, state: EndgameState) -> Sequence[chess.Move]:
        return () if self.is_terminal(state) else self._position(state)[1]

    def result(self, state: EndgameState, action: chess.Move) -> EndgameState:
        self._position(state)
        assert self._cache is not None  # filled by _position
        if action not in self._cache[3]:
            raise ValueError(f"illegal move {action} in {self.board(state).fen()}")
        turn, codes = state
        moved = []
        for code in codes:
            square = code & 63
            if square == action.to_square:
                continue  # captured
            moved.append(code & ~63 | action.to_square if square == action.from_square else code)
        return _canonical(not turn, moved)

    def is_terminal(self, state: EndgameState) -> bool:
        board, moves = self._position(state)
        return not moves or board.is_insufficient_material()

    def utility(self, state: EndgameState, player: int) -> float:
        board, moves = self._position(state)
        if moves or not board.is_check():
            return 0.0
        return -1.0 if player == self.to_move(state) else 1.0
