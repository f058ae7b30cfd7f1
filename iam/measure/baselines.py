"""Baseline predictors the models are compared with, on the same held-out positions.

Each has ``predict_proba(board) -> {move: belief}`` like the models:

* :class:`SearchBest`: this project's search, its best move at a fixed depth (ties share);
* :class:`EngineBest`: a UCI engine's best move at a fixed depth (ties share);
* :class:`OpeningMemory`: the player's remembered openings alone (IAM's rote memory);
* :class:`UniformRandom`: every legal move equally likely.
"""

from __future__ import annotations

from collections.abc import Iterable

import chess

from iam.chunks.rote import RoteMemory
from iam.engines.analysis import EngineAnalyser
from iam.games.pgn import PlayerGame
from search.chess.scoring import score_root_moves
from search.opponent.predictor import Closeable

__all__ = ["SearchBest", "EngineBest", "OpeningMemory", "UniformRandom"]


def _best_moves(scores: dict[chess.Move, int]) -> dict[chess.Move, float]:
    """Belief 1 shared among the best-scored moves."""
    if not scores:
        return {}
    top = max(scores.values())
    best = sorted((move for move, value in scores.items() if value == top), key=chess.Move.uci)
    return {move: 1.0 / len(best) for move in best}


class SearchBest:
    """This project's alpha-beta (with quiescence) at ``depth``: its best move gets belief 1."""

    def __init__(self, depth: int = 1) -> None:
        self.depth = depth

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        return _best_moves(score_root_moves(board, self.depth))


class EngineBest(Closeable):
    """A UCI engine's best move at a fixed depth (belief 1), its analyses cached on disk."""

    def __init__(self, path: str, *, depth: int = 8, cache: str | None = None, timeout: float | None = None) -> None:
        self.path, self.depth, self.cache, self.timeout = path, depth, cache, timeout
        self._analyser: EngineAnalyser | None = None

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        if self._analyser is None:
            self._analyser = EngineAnalyser(
                self.path, depth=self.depth, cache=self.cache, analysis_timeout=self.timeout
            )
        return _best_moves(self._analyser.analyse(board).scores)

    def close(self) -> None:
        if self._analyser is not None:
            self._analyser.close()
            self._analyser = None


class OpeningMemory:
    """The player's remembered openings alone: his past choices' shares where he has been."""

    def __init__(self, *, max_ply: int = 30, min_games: int = 2) -> None:
        self.max_ply, self.min_games = max_ply, min_games

    def fit(self, games: Iterable[PlayerGame]) -> OpeningMemory:
        self.rote_ = RoteMemory.learn(list(games), max_ply=self.max_ply, min_games=self.min_games)
        return self

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        entry = self.rote_.lookup(board)
        if entry is None:
            return {}
        shares = sorted(entry.shares().items(), key=lambda item: (-item[1], item[0]))
        return {chess.Move.from_uci(uci): share for uci, share in shares}


class UniformRandom:
    """Every legal move with the same belief: the floor any predictor must clear."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = sorted(board.legal_moves, key=chess.Move.uci)
        return {move: 1.0 / len(moves) for move in moves}
