"""The moves of many games judged by a UCI engine: one row per move, its score against the best.

:func:`analyse_games` collects the positions before the moves asked for (the player's
moves, or every move), analyses each distinct position once with
:class:`~iam.engines.analysis.EngineAnalyser` (a score for every legal move at a fixed
depth) and returns a table of the played moves: the played move's score, the best move
and its score, the loss in centipawns and the played move's rank.

The work goes where the :class:`~iam.runtime.Runtime` says: in this process, in
local processes or on the workers of a Dask scheduler. It is cut into tasks of a few
positions (a top-level function, so it pickles); each task opens its own analyser and
the results come back in the order of the tasks. Scores do not depend on which worker
computed them (fixed depth, one engine thread, a fresh hash table for every position),
so the table is identical whichever runs it.

The cache is one SQLite file that every worker opens by the path in
:class:`AnalysisSettings`: all workers on machines that share a filesystem read and write
the same file, and each finished position is committed at once in its own transaction.
A worker that dies loses only the position it was analysing: the task is run again on
another worker (the runtime's map retries it) and finds the rest in the cache. The
driver sends positions and receives scores and never opens the file itself when the
work runs on a cluster.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import chess
import pandas as pd

from iam.engines.analysis import EngineAnalyser
from iam.games.pgn import PlayerGame
from iam.runtime import Runtime, map_in_order

__all__ = ["AnalysisSettings", "GameAnalysis", "COLUMNS", "LOSS_CAP", "PlayedMove", "analyse_games", "played_moves"]

COLUMNS = (
    "game", "ply", "move_number", "side", "fen", "played", "played_san", "played_score",
    "best", "best_san", "best_score", "loss", "rank", "legal_moves",
)
"""The columns of :attr:`GameAnalysis.moves`, in order."""

LOSS_CAP = 1_000
"""Centipawns a move's loss counts for at most in :attr:`GameAnalysis.mean_loss` (a missed mate among them)."""

Progress = Callable[[Iterable, int], Iterable]
"""``progress(items, total)``: wraps the finished tasks, e.g. in a progress bar."""


@dataclass(frozen=True)
class AnalysisSettings:
    """How the moves are analysed: the engine, its depth, the shared cache, which moves, task size."""

    engine: str
    """Path or command name of the UCI engine, as every worker finds it."""
    depth: int = 8
    """Fixed search depth of every analysis."""
    cache: str | None = None
    """The SQLite cache file every worker shares (None: each task keeps its analyses in memory)."""
    all_moves: bool = False
    """Analyse both sides' moves (default: the modelled player's only)."""
    positions_per_task: int = 16
    """Distinct positions analysed by one task."""
    analysis_timeout: float | None = None
    """Seconds one position may take (None: the analyser's default for the depth)."""

    def __post_init__(self) -> None:
        for name in ("depth", "positions_per_task"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if self.cache is not None:
            object.__setattr__(self, "cache", os.fspath(self.cache))

    def analyser(self) -> EngineAnalyser:
        """An analyser with these settings (the caller closes it)."""
        return EngineAnalyser(self.engine, depth=self.depth, cache=self.cache, analysis_timeout=self.analysis_timeout)


@dataclass(frozen=True)
class GameAnalysis:
    """The analysed moves and where their analyses came from."""

    moves: pd.DataFrame
    """One row per analysed move (:data:`COLUMNS`); scores in centipawns from the mover's point of view, mates
    coded as in :mod:`iam.engines.analysis`; ``loss`` is ``best_score - played_score`` (never negative) and ``rank``
    is 1 plus the number of moves scored higher than the played one (1: a best move)."""
    positions: int
    """Distinct positions analysed (a position met in several games or moves is analysed once)."""
    fresh: int
    """Positions the engine scored during this run; the others came from the cache."""

    @property
    def cached(self) -> int:
        """Positions served by the cache."""
        return self.positions - self.fresh

    @property
    def mean_loss(self) -> float:
        """Mean loss per move in centipawns, each loss capped at :data:`LOSS_CAP` (NaN without moves)."""
        return float(self.moves["loss"].clip(upper=LOSS_CAP).mean()) if len(self.moves) else float("nan")

    @property
    def best_share(self) -> float:
        """Share of the moves that were a best move (rank 1; NaN without moves)."""
        return float((self.moves["rank"] == 1).mean()) if len(self.moves) else float("nan")


@dataclass(frozen=True)
class PlayedMove:
    """One move to judge: where it was played and the position before it."""

    game: int
    """The game's index among the player's games (:attr:`iam.games.pgn.PlayerGame.index`)."""
    ply: int
    """Moves played before this one in the game, from 0."""
    board: chess.Board
    """The position before the move (without the moves that led to it)."""
    move: chess.Move


def played_moves(games: Sequence[PlayerGame], *, all_moves: bool = False) -> Iterator[PlayedMove]:
    """The player's moves (or every move) of each game, in order."""
    for game in games:
        board = game.board()
        for ply, move in enumerate(game.moves):
            if all_moves or board.turn == game.color:
                yield PlayedMove(game.index, ply, board.copy(stack=False), move)
            board.push(move)


def analyse_games(
    games: Sequence[PlayerGame], settings: AnalysisSettings, runtime: Runtime, *, progress: Progress | None = None
) -> GameAnalysis:
    """Every move asked for in ``games`` judged by the engine, run where ``runtime`` says.

    The table is the same whichever runs it and however the cache was filled.
    EngineError (from the workers) when the engine is missing or fails; locally the
    engine and the cache are checked before any task starts.
    """
    moves = list(played_moves(games, all_moves=settings.all_moves))
    # distinct positions (the cache's key), first seen first
    epds = list(dict.fromkeys(move.board.epd() for move in moves))
    if moves and not runtime.distributed:
        _engine_name(settings)
    size = settings.positions_per_task
    tasks = [(tuple(epds[start : start + size]), settings) for start in range(0, len(epds), size)]
    finished: Iterable[tuple[list[dict[str, int]], int]] = map_in_order(_analyse_task, tasks, runtime)
    if progress is not None:
        finished = progress(finished, len(tasks))
    scores: dict[str, dict[str, int]] = {}
    fresh = 0
    for (chunk, _), (found, engine_scored) in zip(tasks, finished):
        scores.update(zip(chunk, found))
        fresh += engine_scored
    table = pd.DataFrame([_row(move, scores[move.board.epd()]) for move in moves], columns=list(COLUMNS))
    return GameAnalysis(moves=table.astype(_DTYPES), positions=len(epds), fresh=min(fresh, len(epds)))


def _analyse_task(epds: tuple[str, ...], settings: AnalysisSettings) -> tuple[list[dict[str, int]], int]:
    """One task: the scores of each position (UCI move -> centipawns, best first) and how many the engine computed.

    Opens its own analyser on the shared cache, so it runs the same in any process.
    """
    boards = [chess.Board(f"{epd} 0 1") for epd in epds]
    with settings.analyser() as analyser:
        found = analyser.analyse_many(boards)
        return [{move.uci(): score for move, score in result.scores.items()} for result in found], analyser.fresh


def _engine_name(settings: AnalysisSettings) -> str:
    """The engine's name, from the cache or by starting it: a missing engine or a bad cache fails here, at once."""
    with settings.analyser() as analyser:
        return analyser.engine_id


_DTYPES = {
    "game": "int64", "ply": "int64", "move_number": "int64", "played_score": "int64", "best_score": "int64",
    "loss": "int64", "rank": "int64", "legal_moves": "int64",
}


def _row(move: PlayedMove, scores: dict[str, int]) -> tuple:
    """The table row of one move from its position's scores (best first)."""
    board, played = move.board, move.move.uci()
    best = next(iter(scores))
    played_score, best_score = scores[played], scores[best]
    rank = 1 + sum(score > played_score for score in scores.values())
    return (
        move.game, move.ply, board.fullmove_number, "white" if board.turn == chess.WHITE else "black", board.fen(),
        played, board.san(move.move), played_score, best, board.san(chess.Move.from_uci(best)), best_score,
        best_score - played_score, rank, len(scores),
    )
