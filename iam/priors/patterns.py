"""Move patterns: how often a player chooses a kind of move when it is legal.

A *move pattern* is the piece moved, the square it leaves and the square it reaches,
seen from the mover's side (ranks flipped for Black, so White's and Black's games
pool), in one of three phases of the game (the first 24 plies; a middlegame with at
least 12 units of non-pawn material, counting a minor piece 1, a rook 2 and a queen 4;
an endgame). Counting, over a player's positions, how often each pattern was legal and
how often it was chosen gives his *choice rate* of the pattern: masters develop the
king's knight to f3, put rooks on open central files and recapture towards the
centre at rates of their own. :class:`PatternCounts` holds those counts for one
player, :class:`MovePatterns` for several masters (so one can be left out).

Rates are smoothed (a pattern seen legal a few times says little): the population's
towards the mean rate of its piece and phase, a player's own towards the population's
rate of the same pattern. Two features come out of them, one per family:
``pattern_rate`` (population: the log rate at which masters choose this pattern) and
``pattern_lift`` (habits: how much more, in log terms, this player chooses it than the
population does).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

import chess
import numpy as np

from iam.games.pgn import PlayerGame, name_matches

__all__ = [
    "PATTERN_CELLS",
    "PatternCounts",
    "MovePatterns",
    "pattern_keys",
    "count_patterns",
    "population_rates",
    "pattern_lift",
]

PHASES = 3
OPENING_PLIES = 24
"""Plies from the start of the game that count as the opening phase."""
MIDDLEGAME_MATERIAL = 12
"""Non-pawn material (minor 1, rook 2, queen 4; both sides) from which a later position is a middlegame."""
PATTERN_CELLS = PHASES * 6 * 64 * 64
"""Number of move patterns (phase x piece x from x to)."""
POPULATION_SMOOTHING = 5.0
"""Pseudo-positions pulling a population rate towards its piece and phase's mean rate."""
OWN_SMOOTHING = 10.0
"""Pseudo-positions pulling a player's own rate towards the population's rate of the pattern."""

_MATERIAL = ((chess.KNIGHT, 1), (chess.BISHOP, 1), (chess.ROOK, 2), (chess.QUEEN, 4))


def _phase(board: chess.Board) -> int:
    """0 opening, 1 middlegame, 2 endgame (plies from the game's start from the move counter)."""
    ply = 2 * (board.fullmove_number - 1) + (board.turn == chess.BLACK)
    if ply < OPENING_PLIES:
        return 0
    material = sum(
        weight * chess.popcount(board.pieces_mask(piece, chess.WHITE) | board.pieces_mask(piece, chess.BLACK))
        for piece, weight in _MATERIAL
    )
    return 1 if material >= MIDDLEGAME_MATERIAL else 2


def pattern_keys(board: chess.Board, moves: Sequence[chess.Move]) -> np.ndarray:
    """The pattern (cell index) of each of ``moves`` on ``board`` (moves of the side to move).

    >>> board = chess.Board()
    >>> keys = pattern_keys(board, [chess.Move.from_uci("g1f3")])
    >>> board.turn = chess.BLACK
    >>> bool(keys[0] == pattern_keys(board, [chess.Move.from_uci("g8f6")])[0])
    True
    """
    phase = _phase(board)
    flip = 0 if board.turn == chess.WHITE else 56  # square ^ 56 mirrors the rank
    keys = [
        ((phase * 6 + cast(int, board.piece_type_at(move.from_square)) - 1) * 64 + (move.from_square ^ flip)) * 64
        + (move.to_square ^ flip)
        for move in moves
    ]
    return np.asarray(keys, dtype=np.int64)


@dataclass(frozen=True)
class PatternCounts:
    """For every move pattern: how often one player had it legal and how often he chose it."""

    played: np.ndarray = field(default_factory=lambda: np.zeros(PATTERN_CELLS, dtype=np.int64))
    legal: np.ndarray = field(default_factory=lambda: np.zeros(PATTERN_CELLS, dtype=np.int64))

    def __add__(self, other: PatternCounts) -> PatternCounts:
        return PatternCounts(self.played + other.played, self.legal + other.legal)

    def __sub__(self, other: PatternCounts) -> PatternCounts:
        return PatternCounts(self.played - other.played, self.legal - other.legal)

    @property
    def positions(self) -> int:
        """Positions counted (each chose exactly one pattern)."""
        return int(self.played.sum())

    def to_dict(self) -> dict:
        """JSON-ready: the cells ever legal, as parallel lists."""
        cells = np.flatnonzero(self.legal)
        return {"cells": cells.tolist(), "played": self.played[cells].tolist(), "legal": self.legal[cells].tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> PatternCounts:
        """Counts from :meth:`to_dict`; ValueError when they are not counts of valid cells."""
        cells = np.asarray(data["cells"], dtype=np.int64)
        played = np.asarray(data["played"], dtype=np.int64)
        legal = np.asarray(data["legal"], dtype=np.int64)
        if not (cells.ndim == played.ndim == legal.ndim == 1 and len(cells) == len(played) == len(legal)):
            raise ValueError("pattern counts need equal lists of cells, played and legal counts")
        if len(cells) and (cells.min() < 0 or cells.max() >= PATTERN_CELLS or len(np.unique(cells)) != len(cells)):
            raise ValueError("pattern cells must be distinct indices below the number of patterns")
        if np.any(played < 0) or np.any(played > legal):
            raise ValueError("a pattern's chosen count must lie between 0 and its legal count")
        counts = cls()
        counts.played[cells] = played
        counts.legal[cells] = legal
        return counts


def count_patterns(games: Iterable[PlayerGame]) -> PatternCounts:
    """The player's pattern counts over every position of ``games`` where he was to move."""
    counts = PatternCounts()
    legal_keys: list[np.ndarray] = []
    played_keys: list[int] = []
    for game in games:
        board = game.board()
        for move in game.moves:
            if board.turn == game.color:
                keys = pattern_keys(board, [move, *board.legal_moves])
                played_keys.append(int(keys[0]))
                legal_keys.append(keys[1:])
            board.push(move)
    if played_keys:
        counts.played[:] = np.bincount(played_keys, minlength=PATTERN_CELLS)
        counts.legal[:] = np.bincount(np.concatenate(legal_keys), minlength=PATTERN_CELLS)
    return counts


@dataclass(frozen=True)
class MovePatterns:
    """Pattern counts per master of a population (each from his own training games)."""

    masters: dict[str, PatternCounts] = field(default_factory=dict)

    def without(self, player: str | None) -> MovePatterns:
        """The population without any master whose name matches ``player`` (either way round)."""
        if not player:
            return self
        kept = {
            name: counts
            for name, counts in self.masters.items()
            if not (name_matches(player, name) or name_matches(name, player))
        }
        return MovePatterns(kept)

    @cached_property
    def pooled(self) -> PatternCounts:
        """All masters' counts summed."""
        total = PatternCounts()
        for counts in self.masters.values():
            total = total + counts
        return total

    @cached_property
    def log_rates(self) -> np.ndarray:
        """Log of the smoothed population choice rate of every pattern."""
        return np.log(population_rates(self.pooled))


def population_rates(counts: PatternCounts) -> np.ndarray:
    """Choice rate per pattern, smoothed towards its piece and phase's mean rate (never 0)."""
    groups = PATTERN_CELLS // 4096
    played = counts.played.reshape(groups, 4096).sum(axis=1)
    legal = counts.legal.reshape(groups, 4096).sum(axis=1)
    base = np.repeat((played + 1.0) / (legal + 1.0), 4096)
    return (counts.played + POPULATION_SMOOTHING * base) / (counts.legal + POPULATION_SMOOTHING)


def pattern_lift(own: PatternCounts, population_log_rates: np.ndarray) -> np.ndarray:
    """Per pattern, log of the player's own smoothed rate minus the population's log rate.

    The own rate is pulled towards the population's rate by :data:`OWN_SMOOTHING`
    pseudo-positions, so a pattern he rarely had says little and the lift stays near 0.
    """
    population = np.exp(population_log_rates)
    own_rate = (own.played + OWN_SMOOTHING * population) / (own.legal + OWN_SMOOTHING)
    return np.log(own_rate) - population_log_rates
