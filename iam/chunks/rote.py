"""Text (rote) memory: the move sequences the player repeats verbatim, mostly openings.

Source note 001's IAM keeps, beside its visual chunks, a textual memory: a human player
memorises move sequences. For every position in the first ``max_ply`` plies of a
game where the player was to move, the memory counts which move the player chose
after exactly that sequence of moves from exactly that start. When a live game
follows a remembered sequence, the player's past choices there predict the
continuation, with belief = how often each move was chosen. Like chunks, a
sequence is remembered only if it occurred in at least ``min_games`` games.

The same choices are also counted by *position* (the EPD: placement, side to move,
castling rights, en passant square). When the live game's sequence is not
remembered, the position is looked up instead: a transposition into a known
opening position, or a position given without its history (``iam predict --fen``),
still finds what the player chose there.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import chess

from iam.games.pgn import PlayerGame

__all__ = ["RoteMemory", "RoteEntry", "sequence_key"]

_STANDARD_START = chess.Board().epd()


def sequence_key(start_epd: str, moves: Iterable[chess.Move | str]) -> str:
    """The memory key of a move sequence from a start position."""
    start = "startpos" if start_epd == _STANDARD_START else start_epd
    return start + "|" + " ".join(move if isinstance(move, str) else move.uci() for move in moves)


@dataclass(frozen=True)
class RoteEntry:
    """What the player chose after one remembered sequence."""

    key: str
    counts: dict[str, int]
    """UCI move -> number of games in which the player chose it here."""

    @property
    def games(self) -> int:
        return sum(self.counts.values())

    def shares(self) -> dict[str, float]:
        total = self.games
        return {move: count / total for move, count in self.counts.items()}


@dataclass(frozen=True)
class RoteMemory:
    """Remembered sequences and positions (key -> entry) and the parameters they were learned with."""

    entries: dict[str, RoteEntry] = field(default_factory=dict)
    max_ply: int = 30
    min_games: int = 2
    positions: dict[str, RoteEntry] = field(default_factory=dict)
    """Position (EPD) -> the player's choices there, in the first ``max_ply`` plies of the games."""
    _by_moves: dict[tuple[str, tuple[chess.Move, ...]], RoteEntry] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    _occupied: set[int] = field(init=False, repr=False, compare=False, default_factory=set)

    def __post_init__(self) -> None:
        # Lookups by (start, moves) avoid building a text key for every live position,
        # and the occupied squares of the remembered positions turn most misses away
        # before an EPD is built.
        for key, entry in self.entries.items():
            start, _, played = key.partition("|")
            moves = tuple(chess.Move.from_uci(uci) for uci in played.split())
            self._by_moves[start, moves] = entry
        self._occupied.update(chess.BaseBoard(epd.split()[0]).occupied for epd in self.positions)

    @classmethod
    def learn(cls, games: Iterable[PlayerGame], *, max_ply: int = 30, min_games: int = 2) -> RoteMemory:
        """Count the player's choices after every sequence of at most ``max_ply`` plies, and per position."""
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        by_position: dict[tuple, Counter[str]] = defaultdict(Counter)
        first_seen: dict[tuple, chess.Board] = {}
        for game in games:
            board = game.board()
            key = sequence_key(_STANDARD_START if game.start_fen == chess.STARTING_FEN else board.epd(), [])
            chosen: set[tuple[tuple, str]] = set()  # a game counts once per (position, move)
            for ply, move in enumerate(game.moves[:max_ply]):
                uci = move.uci()
                if board.turn == game.color:
                    counts[key][uci] += 1
                    position = _position_key(board)
                    if (position, uci) not in chosen:
                        chosen.add((position, uci))
                        by_position[position][uci] += 1
                        if position not in first_seen:
                            first_seen[position] = board.copy(stack=False)
                key += (" " if ply else "") + uci  # the key of the sequence one move longer
                board.push(move)
        entries = {
            key: RoteEntry(key, dict(counter.most_common()))
            for key, counter in counts.items()
            if sum(counter.values()) >= min_games
        }
        positions = {}
        for position, counter in by_position.items():
            if sum(counter.values()) >= min_games:
                epd = first_seen[position].epd()
                positions[epd] = RoteEntry(epd, dict(counter.most_common()))
        return cls(entries, max_ply=max_ply, min_games=min_games, positions=positions)

    def __len__(self) -> int:
        """Number of remembered sequences."""
        return len(self.entries)

    def lookup(self, board: chess.Board) -> RoteEntry | None:
        """The entry for the sequence that led to ``board`` (its move stack), else for its position."""
        by_moves = None
        if len(board.move_stack) < self.max_ply and self.entries:
            start = board.root().epd() if board.move_stack else board.epd()
            by_moves = self.lookup_moves(start, board.move_stack)
        return _legal_on(by_moves or self.lookup_position(board), board)

    def lookup_moves(self, start_epd: str, moves: Sequence[chess.Move]) -> RoteEntry | None:
        """The entry for ``moves`` played from the position ``start_epd``, if remembered."""
        if len(moves) >= self.max_ply or not self.entries:
            return None
        return self._by_moves.get(("startpos" if start_epd == _STANDARD_START else start_epd, tuple(moves)))

    def lookup_position(self, board: chess.Board) -> RoteEntry | None:
        """The player's choices in ``board``'s position (however it was reached), if remembered."""
        return self.positions.get(board.epd()) if board.occupied in self._occupied else None


def _legal_on(entry: RoteEntry | None, board: chess.Board) -> RoteEntry | None:
    """``entry`` without moves that are illegal on ``board`` (only a tampered model file has them)."""
    if entry is None:
        return None
    legal = {uci: count for uci, count in entry.counts.items() if board.is_legal(chess.Move.from_uci(uci))}
    if len(legal) == len(entry.counts):
        return entry
    return RoteEntry(entry.key, legal) if legal else None


def _position_key(board: chess.Board) -> tuple:
    """A cheap key equal for equal EPDs (placement, side to move, castling rights, legal en passant)."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.turn,
        board.clean_castling_rights(),
        board.ep_square if board.has_legal_en_passant() else None,
    )
