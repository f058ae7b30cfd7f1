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

Read from the standard start, the remembered positions are also his repertoire as a
chess player reads it (:func:`opening_repertoire`): his first moves as White, and his
replies as Black to each first move, with the games he chose each in.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import chess

from iam.games.pgn import PlayerGame

__all__ = ["OpeningChoices", "Repertoire", "RoteEntry", "RoteMemory", "opening_repertoire", "sequence_key"]

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


# -- his repertoire -----------------------------------------------------------


@dataclass(frozen=True)
class OpeningChoices:
    """His moves in one early position, most played first, with the games each was chosen in."""

    after: str
    """The opponent's move before his (``1. e4``), or empty at the start."""
    moves: tuple[tuple[str, int], ...]
    """(his move in SAN with its number, games), most played first."""
    games: int
    """The games in which he was to move in this position (all his moves there, listed or not)."""

    def __str__(self) -> str:
        return ", ".join(f"{move} ({count} games)" for move, count in self.moves)


@dataclass(frozen=True)
class Repertoire:
    """His first moves as White and his replies as Black to each first move, as far as his memory holds them."""

    white: OpeningChoices | None
    black: tuple[OpeningChoices, ...]
    """His replies to each of White's first moves, the most met first."""

    def lines(self) -> list[str]:
        """One line a colour and first move: ``as White: 1. e4 (12 games), 1. d4 (3 games)``."""
        found = [f"as White: {self.white}"] if self.white is not None else []
        found.extend(f"as Black after {choices.after}: {choices}" for choices in self.black)
        return found or ["none: no opening position of his was reached in enough games to be remembered"]

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def to_dict(self) -> dict[str, Any]:
        def listed(choices: OpeningChoices) -> list[dict[str, Any]]:
            return [{"move": move, "games": count} for move, count in choices.moves]

        return {
            "white": None if self.white is None else listed(self.white),
            "black": [{"after": choices.after, "replies": listed(choices)} for choices in self.black],
        }


def opening_repertoire(memory: RoteMemory, *, top: int = 3) -> Repertoire:
    """His ``top`` most played first moves as White, and his ``top`` replies to each first move as Black."""
    start = chess.Board()
    white = _choices(memory, start, "", top)
    black = []
    for first in start.legal_moves:
        after = f"1. {start.san(first)}"
        start.push(first)
        choices = _choices(memory, start, after, top)
        start.pop()
        if choices is not None:
            black.append(choices)
    black.sort(key=lambda choices: (-choices.games, choices.after))
    return Repertoire(white, tuple(black))


def _choices(memory: RoteMemory, board: chess.Board, after: str, top: int) -> OpeningChoices | None:
    """His remembered choices in ``board``'s position, None when it is not remembered."""
    entry = memory.lookup_position(board)
    if entry is None:
        return None
    number = f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}"
    ranked = sorted(entry.counts.items(), key=lambda item: (-item[1], item[0]))[:top]
    moves = tuple((f"{number} {board.san(chess.Move.from_uci(uci))}", count) for uci, count in ranked)
    return OpeningChoices(after, moves, entry.games)
