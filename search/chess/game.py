"""The chess adapter: python-chess rules behind the game protocol.

States are ``chess.Board`` objects whose ``move_stack`` holds the game so far; actions
are ``chess.Move`` objects, always legal. Player 0 is White. The game ends at
checkmate, stalemate, insufficient material, the fifty-move rule (a draw once the
halfmove clock reaches 100) or a threefold repetition.

UTILITY: 0 for a draw; for a checkmate ``MATE`` for the winner and ``-MATE`` for the
loser. Mates are scored by distance (``Capabilities.win_bound``): a cursor reads a
mate ``p`` plies below its root as ``MATE - p``, so a quicker mate is worth more and a
search prefers it, and every mate score a search returns counts plies from its root
(:func:`mate_in_plies`). The scale is the evaluation's (centipawns), far above any
material count.

Quiescence search may not stand pat in check: there every legal move is noisy.

The search walks through :class:`ChessCursor`, which pushes and pops moves on one
board instead of copying it, keeps polyglot Zobrist keys up to date incrementally and
scores a position below its root that repeats an earlier one (on the path or in the
game's history since the last capture or pawn move) as a draw, the usual engine
convention; at the root itself the game's threefold rule applies.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import chess
import chess.polyglot

from search.game import Capabilities, Game

__all__ = ["ChessGame", "ChessCursor", "MATE", "is_mate_score", "mate_in_plies"]

MATE = 100_000
"""Utility of a checkmate for the winner; a mate p plies below a search root is worth ``MATE - p``."""

_MATE_BOUND = MATE // 2
_HASHER = chess.polyglot.ZobristHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
_RANDOM = chess.polyglot.POLYGLOT_RANDOM_ARRAY
_VICTIM = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def is_mate_score(value: float) -> bool:
    """Whether a search value means a forced mate (for either side)."""
    return abs(value) >= _MATE_BOUND


def mate_in_plies(value: float) -> int:
    """Plies from the search root to the mate a mate score announces; sign: who mates.

    Positive: the side to move at the root mates; negative: it is mated.
    """
    plies = round(MATE - abs(value))
    return plies if value > 0 else -plies


def _outcome_over(board: chess.Board, has_moves: bool, repeated: bool) -> bool:
    return (
        not has_moves
        or board.halfmove_clock >= 100
        or repeated
        or board.is_insufficient_material()
    )


def _utility(board: chess.Board, has_moves: bool, player: int, plies: int) -> float:
    """0, or the mate score ``plies`` plies from where it is read, for ``player``."""
    if has_moves or not board.is_check():
        return 0.0
    loser = 0 if board.turn == chess.WHITE else 1
    value = MATE - plies
    return -value if player == loser else value


def _priority(board: chess.Board, move: chess.Move) -> int:
    """MVV-LVA: most valuable victim first, then least valuable attacker; promotions too."""
    score = 0
    to_bb = chess.BB_SQUARES[move.to_square]
    if board.occupied_co[not board.turn] & to_bb:
        victim = board.piece_type_at(move.to_square)
        attacker = board.piece_type_at(move.from_square)
        assert victim is not None and attacker is not None  # a capture: both squares are occupied
        score = 100 * _VICTIM[victim] + 10 - _VICTIM[attacker] + 1
    elif board.ep_square == move.to_square and board.pawns & chess.BB_SQUARES[move.from_square]:
        score = 100 + 10
    if move.promotion:
        score += 100 * _VICTIM[move.promotion]
    return score


def _noisy(board: chess.Board) -> list[chess.Move]:
    """Captures and promotions; in check, every legal move (each evasion matters)."""
    if board.is_check():
        return list(board.generate_legal_moves())
    moves = list(board.generate_legal_captures())
    back_rank = chess.BB_RANK_8 if board.turn == chess.WHITE else chess.BB_RANK_1
    pawns = board.pawns & board.occupied_co[board.turn]
    if pawns & (chess.BB_RANK_7 if board.turn == chess.WHITE else chess.BB_RANK_2):
        moves.extend(board.generate_legal_moves(pawns, back_rank & ~board.occupied))
    return moves


class ChessGame(Game):
    """Standard chess through python-chess; see the module docstring for the rules used."""

    capabilities = Capabilities(players=2, zero_sum=True, chance=False, win_bound=_MATE_BOUND)

    def __init__(self, fen: str = chess.STARTING_FEN) -> None:
        self.fen = fen
        chess.Board(fen)  # validate early

    def initial_state(self) -> chess.Board:
        return chess.Board(self.fen)

    def to_move(self, state: chess.Board) -> int:
        return 0 if state.turn == chess.WHITE else 1

    def actions(self, state: chess.Board) -> Sequence[chess.Move]:
        if self.is_terminal(state):
            return ()
        return list(state.generate_legal_moves())

    def result(self, state: chess.Board, action: chess.Move) -> chess.Board:
        if not state.is_legal(action):
            raise ValueError(f"illegal move {action} in {state.fen()}")
        if self.is_terminal(state):
            raise ValueError(f"the game is over in {state.fen()}")
        child = state.copy()
        child.push(action)
        return child

    def is_terminal(self, state: chess.Board) -> bool:
        has_moves = any(state.generate_legal_moves())
        return _outcome_over(state, has_moves, state.is_repetition(3))

    def utility(self, state: chess.Board, player: int) -> float:
        return _utility(state, any(state.generate_legal_moves()), player, 0)

    def key(self, state: chess.Board) -> Hashable:
        return chess.polyglot.zobrist_hash(state)

    def noisy_actions(self, state: chess.Board) -> Sequence[chess.Move]:
        return _noisy(state)

    def stand_pat_allowed(self, state: chess.Board) -> bool:
        return not state.is_check()

    def action_priority(self, state: chess.Board, action: chess.Move) -> int:
        return _priority(state, action)

    def cursor(self, state: chess.Board) -> ChessCursor:
        return ChessCursor(state)


class ChessCursor:
    """Walks the tree by push/pop on one private copy of the root board.

    ``state`` is that live board (with the whole game in its ``move_stack``); it
    changes with every push and pop, so copy it to keep it.
    """

    __slots__ = ("board", "_root_len", "_keys", "_pieces", "_moves")

    win_bound = _MATE_BOUND

    def __init__(self, board: chess.Board) -> None:
        self.board = board.copy()
        self._root_len = len(self.board.move_stack)
        history = self.board.copy()
        keys = [chess.polyglot.zobrist_hash(history)]
        reversible = history.halfmove_clock
        while history.move_stack and len(keys) <= reversible:
            history.pop()
            keys.append(chess.polyglot.zobrist_hash(history))
        self._keys = keys[::-1]
        self._pieces = [_HASHER.hash_board(self.board)]
        self._moves: list[list[chess.Move] | None] = [None]

    @property
    def state(self) -> chess.Board:
        return self.board

    @property
    def ply(self) -> int:
        return len(self.board.move_stack) - self._root_len

    def to_move(self) -> int:
        return 0 if self.board.turn == chess.WHITE else 1

    def actions(self) -> list[chess.Move]:
        moves = self._moves[-1]
        if moves is None:
            moves = self._moves[-1] = list(self.board.generate_legal_moves())
        return moves

    def _has_moves(self) -> bool:
        moves = self._moves[-1]
        if moves is not None:
            return bool(moves)
        return any(self.board.generate_legal_moves())

    def _repeated(self) -> bool:
        """Below the root a second occurrence is a draw; at the root, the game's threefold."""
        keys = self._keys
        key = keys[-1]
        window = min(self.board.halfmove_clock, len(keys) - 1)
        earlier = sum(1 for i in range(3, window + 2, 2) if keys[-i] == key)
        return earlier >= (1 if self.ply else 2)

    def is_terminal(self) -> bool:
        return _outcome_over(self.board, self._has_moves(), self._repeated())

    def utility(self, player: int) -> float:
        return _utility(self.board, self._has_moves(), player, self.ply)

    def utilities(self) -> tuple[float, ...]:
        return (self.utility(0), self.utility(1))

    def chance_outcomes(self):
        raise ValueError("chess has no chance nodes")

    def key(self) -> int:
        return self._keys[-1]

    def noisy_actions(self) -> list[chess.Move]:
        return _noisy(self.board)

    def stand_pat_allowed(self) -> bool:
        return not self.board.is_check()

    def action_priority(self, action: chess.Move) -> int:
        return _priority(self.board, action)

    def push(self, action: chess.Move) -> None:
        board = self.board
        pieces = self._pieces[-1] ^ self._piece_delta(action)
        board.push(action)
        self._pieces.append(pieces)
        key = pieces ^ _HASHER.hash_turn(board)
        if board.castling_rights:
            key ^= _HASHER.hash_castling(board)
        if board.ep_square is not None:
            key ^= _HASHER.hash_ep_square(board)
        self._keys.append(key)
        self._moves.append(None)

    def pop(self) -> None:
        if not self.ply:
            raise IndexError("pop from a cursor at its root")
        self.board.pop()
        self._pieces.pop()
        self._keys.pop()
        self._moves.pop()

    def _piece_delta(self, move: chess.Move) -> int:
        """XOR change of the polyglot piece hash caused by ``move`` (before it is pushed)."""
        board = self.board
        us = 1 if board.turn == chess.WHITE else 0
        them = 1 - us
        mover = board.piece_type_at(move.from_square)
        assert mover is not None  # a legal move starts on a piece
        placed = move.promotion or mover
        delta = (
            _RANDOM[64 * ((mover - 1) * 2 + us) + move.from_square]
            ^ _RANDOM[64 * ((placed - 1) * 2 + us) + move.to_square]
        )
        if mover == chess.KING and abs(move.to_square - move.from_square) == 2:
            rank = move.from_square & ~7
            if move.to_square > move.from_square:
                rook_from, rook_to = rank + 7, rank + 5
            else:
                rook_from, rook_to = rank, rank + 3
            rook = 64 * ((chess.ROOK - 1) * 2 + us)
            return delta ^ _RANDOM[rook + rook_from] ^ _RANDOM[rook + rook_to]
        victim = board.piece_type_at(move.to_square)
        if victim:
            delta ^= _RANDOM[64 * ((victim - 1) * 2 + them) + move.to_square]
        elif mover == chess.PAWN and move.to_square == board.ep_square:
            captured = move.to_square - 8 if us else move.to_square + 8
            delta ^= _RANDOM[64 * them + captured]
        return delta
