"""The noise filter: keep only chunks the player showed in several games, with their statistics.

Chess is noise-intolerant (source note 001): a pattern seen once may be an accident of one
game. A chunk is kept when it occurs in at least ``min_games`` different games.
For every kept chunk the filter records what the belief heuristics need: how
often and in how many games it occurred, how often the player's move formed it,
the player's colour, when in the game (move-number bins) and how those games
ended for the player. All counting is done with numpy over every occurrence at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iam.chunks.chunk import BOX, decode
from iam.chunks.collector import ChunkOccurrences

__all__ = [
    "MOVE_BINS",
    "STAT_COLUMNS",
    "PositionInfo",
    "chunk_statistics",
    "noise_filter",
    "passes_filters",
    "move_bin",
]

MOVE_BINS = (1, 11, 21, 31, 41, 61)
"""Lower edges of the move-number bins: moves 1-10, 11-20, 21-30, 31-40, 41-60, 61+."""
_BIN_COLUMNS = tuple(f"moves_{lo}_{hi - 1}" for lo, hi in zip(MOVE_BINS, MOVE_BINS[1:])) + (
    f"moves_{MOVE_BINS[-1]}_up",
)

STAT_COLUMNS = (
    "size",
    "occurrences",
    "games",
    "formed",
    "formed_games",
    "white_games",
    "black_games",
    "won_games",
    "drawn_games",
    "lost_games",
) + _BIN_COLUMNS
"""Columns of a chunk statistics table (index: the canonical chunk code)."""

RESULT_CODES = {"win": 0, "draw": 1, "loss": 2, "unknown": 3}


def move_bin(move_number: np.ndarray | int) -> np.ndarray:
    """Index of the move-number bin of each move number."""
    return np.searchsorted(MOVE_BINS, move_number, side="right") - 1


@dataclass(frozen=True)
class PositionInfo:
    """Per-board facts the statistics need (parallel arrays, one entry per board)."""

    game: np.ndarray
    """Game number of the board (any integer id)."""
    white: np.ndarray
    """Whether the player had White in that game."""
    move_number: np.ndarray
    """Full-move number of the player's move that led to the board."""
    result: np.ndarray
    """Result for the player, coded by :data:`RESULT_CODES`."""


def chunk_statistics(occurrences: ChunkOccurrences, positions: PositionInfo) -> pd.DataFrame:
    """One row per distinct chunk code with all :data:`STAT_COLUMNS`."""
    codes, chunk = np.unique(occurrences.code, return_inverse=True)
    n = len(codes)
    game = np.asarray(positions.game)[occurrences.position]
    formed = occurrences.formed

    def per_chunk(weights: np.ndarray | None = None, of: np.ndarray = chunk) -> np.ndarray:
        return np.bincount(of, weights=weights, minlength=n).astype(np.int64)

    # Distinct (chunk, game) pairs carry the per-game facts.
    stride = int(game.max(initial=0)) + 1
    _, first = np.unique(chunk.astype(np.int64) * stride + game, return_index=True)
    pair_chunk = chunk[first]
    pair_board = occurrences.position[first]
    formed_pair_chunk = np.unique(chunk[formed].astype(np.int64) * stride + game[formed]) // stride
    result = np.asarray(positions.result)[pair_board]
    white = np.asarray(positions.white, dtype=bool)[pair_board]

    table = {
        "size": np.count_nonzero(decode(codes).reshape(n, BOX * BOX), axis=1),
        "occurrences": per_chunk(),
        "games": per_chunk(of=pair_chunk),
        "formed": per_chunk(formed.astype(float)),
        "formed_games": per_chunk(of=formed_pair_chunk),
        "white_games": per_chunk(white.astype(float), of=pair_chunk),
        "black_games": per_chunk((~white).astype(float), of=pair_chunk),
        "won_games": per_chunk((result == RESULT_CODES["win"]).astype(float), of=pair_chunk),
        "drawn_games": per_chunk((result == RESULT_CODES["draw"]).astype(float), of=pair_chunk),
        "lost_games": per_chunk((result == RESULT_CODES["loss"]).astype(float), of=pair_chunk),
    }
    bins = move_bin(np.asarray(positions.move_number)[occurrences.position])
    for b, column in enumerate(_BIN_COLUMNS):
        table[column] = per_chunk((bins == b).astype(float))
    return pd.DataFrame(table, index=pd.Index(codes, name="code"))


def passes_filters(games, formed_games, *, min_games: int, min_formed_games: int) -> np.ndarray:
    """The chunk filter rule, for arrays of counts: seen in at least ``min_games`` different
    games, and formed by one of the player's moves in at least ``min_formed_games`` games.

    The noise filter is the first half (``min_formed_games=0``); a stored chunk proposes
    moves when it passes both, with the library's counts or with those of a library
    built without one game (leave-one-game-out).

    >>> passes_filters(np.array([1, 2, 3]), np.array([1, 0, 2]), min_games=2, min_formed_games=1).tolist()
    [False, False, True]
    """
    return (np.asarray(games) >= min_games) & (np.asarray(formed_games) >= min_formed_games)


def noise_filter(statistics: pd.DataFrame, *, min_games: int = 2) -> pd.DataFrame:
    """The chunks seen in at least ``min_games`` different games, most frequent first."""
    if min_games < 1:
        raise ValueError("min_games must be at least 1")
    kept = statistics[
        passes_filters(statistics["games"], statistics["formed_games"], min_games=min_games, min_formed_games=0)
    ]
    return kept.sort_values(["occurrences", "games"], ascending=False, kind="stable")
