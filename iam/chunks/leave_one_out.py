"""Leave-one-game-out training: what a library built without one game would say.

The learned belief is fitted on sampled training positions, each of which must see
the chunk library as it would be *without its own game*, or the position's own move
would be echoed back by the chunks it formed. Rebuilding the library once per game
would cost a fit per game; instead each game's own contribution to every stored
chunk's counts (:class:`OwnCounts`) and to every chunk's completion record
(:class:`CompletionRecord`) is kept, and subtracted where a position asks.
Subtracting gives exactly the counts of the library without that game (a test
rebuilds it to check).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from iam.chunks.collector import ChunkOccurrences
from iam.chunks.features import COUNT_COLUMNS
from iam.chunks.library import ChunkLibrary
from iam.chunks.noise_filter import RESULT_CODES, move_bin
from iam.chunks.partial import Completions
from iam.chunks.replay import PlayerMoves
from iam.chunks.rote import RoteEntry

__all__ = ["SampledPosition", "CompletionRecord", "OwnCounts"]


@dataclass(frozen=True)
class SampledPosition:
    """A sampled training position: the finder's output, seen without its own game."""

    game: int
    move: chess.Move
    move_number: int
    completions: Completions
    rote: RoteEntry | None
    own_rote_move: str | None
    """The game's own move in ``rote`` (left out of its counts), if the game added it there."""
    own_counts: np.ndarray
    kept: np.ndarray
    """Which proposals a library without this game would make."""
    played: np.ndarray
    """Per proposal, whether its move was the move played."""


class CompletionRecord:
    """How often each chunk was completed when a move could complete it (sampled positions)."""

    def __init__(self, sample: Sequence[SampledPosition], chunks: int) -> None:
        chunk = np.concatenate([s.completions.chunk[s.kept] for s in sample] or [np.zeros(0, np.int64)])
        played = np.concatenate([s.played[s.kept] for s in sample] or [np.zeros(0, bool)])
        game = np.concatenate([np.full(int(s.kept.sum()), s.game) for s in sample] or [np.zeros(0, np.int64)])
        self.completed = np.bincount(chunk, weights=played, minlength=chunks).astype(np.int64)
        self.opportunities = np.bincount(chunk, minlength=chunks).astype(np.int64)
        self._stride = int(game.max(initial=0)) + 1
        self._keys, pair = np.unique(chunk * self._stride + game, return_inverse=True)
        self._completed = np.bincount(pair, weights=played, minlength=len(self._keys))
        self._opportunities = np.bincount(pair, minlength=len(self._keys)).astype(np.float64)

    def own(self, chunk_rows: np.ndarray, game: int) -> tuple[np.ndarray, np.ndarray]:
        """One game's own (completed, opportunities) for each proposal's chunk."""
        wanted = chunk_rows.astype(np.int64) * self._stride + game
        if len(self._keys) == 0 or not 0 <= game < self._stride:  # a game past the stride would alias another's
            return np.zeros(len(wanted)), np.zeros(len(wanted))
        spot = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
        found = self._keys[spot] == wanted
        return np.where(found, self._completed[spot], 0.0), np.where(found, self._opportunities[spot], 0.0)


class OwnCounts:
    """Each sampled game's own contribution to each stored chunk's counts.

    Subtracting it from the library's counts gives the counts a library built
    without that game would hold (leave-one-game-out training rows).
    """

    def __init__(
        self, library: ChunkLibrary, occurrences: ChunkOccurrences, moves: PlayerMoves, *, games_in: np.ndarray
    ) -> None:
        row = library.rows_of(occurrences.code)
        game = moves.game[occurrences.position]
        chosen = (row >= 0) & np.isin(game, games_in)
        row, game = row[chosen], game[chosen]
        formed, position = occurrences.formed[chosen], occurrences.position[chosen]
        self._stride = int(moves.game.max(initial=0)) + 1
        self._keys, pair = np.unique(row * self._stride + game, return_inverse=True)

        n = len(self._keys)
        column = {name: i for i, name in enumerate(COUNT_COLUMNS)}
        counts = np.zeros((n, len(COUNT_COLUMNS)), dtype=np.int64)
        counts[:, column["occurrences"]] = np.bincount(pair, minlength=n)
        counts[:, column["games"]] = 1
        counts[:, column["formed"]] = np.bincount(pair, weights=formed, minlength=n)
        counts[:, column["formed_games"]] = counts[:, column["formed"]] > 0
        a_position = np.zeros(n, dtype=np.int64)
        a_position[pair] = position  # any board of the game: colour and result are per game
        white, result = moves.info.white[a_position], moves.info.result[a_position]
        counts[:, column["white_games"]] = white
        counts[:, column["black_games"]] = ~white
        for name, code in (("won_games", "win"), ("drawn_games", "draw"), ("lost_games", "loss")):
            counts[:, column[name]] = result == RESULT_CODES[code]
        stage = move_bin(moves.info.move_number[position])
        for b, name in enumerate(name for name in COUNT_COLUMNS if name.startswith("moves_")):
            counts[:, column[name]] = np.bincount(pair, weights=stage == b, minlength=n)
        self._counts = counts

    def lookup(self, chunk_rows: np.ndarray, game: int) -> np.ndarray:
        """Count rows for proposals in ``game`` (zeros where the game does not hold the chunk)."""
        wanted = chunk_rows.astype(np.int64) * self._stride + game
        if len(self._keys) == 0 or not 0 <= game < self._stride:  # a game past the stride would alias another's
            return np.zeros((len(wanted), len(COUNT_COLUMNS)), dtype=np.int64)
        spot = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
        return np.where((self._keys[spot] == wanted)[:, None], self._counts[spot], 0)
