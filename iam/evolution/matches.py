"""Matches between piece values: the compiled search with one set of values against the same search with
another, in-process, at a fixed node budget per move, each opening played twice (each side White once).

The games are those of the evolution (:func:`search.chess.selfplay.play_pair`): deterministic, so a match
is a function of its values, openings, node budget and move limit, wherever it runs, and however loaded
the machine is. The score becomes W/D/L, an Elo difference with its 95% interval and the likelihood of
superiority by the match code of :mod:`search.chess.match`. ``None`` for a side's values is the
evaluation's own material (the hand-set middlegame and endgame values of :mod:`search.chess.pst`); a
:class:`~search.chess.pst.PieceValues` sets the material and the square bonuses' scales.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import pandas as pd

from iam.runtime import Runtime, map_in_order
from search.chess.match import EloEstimate, elo_estimate, likelihood_of_superiority
from search.chess.pst import PieceValues
from search.chess.selfplay import PairGames, play_pair

__all__ = ["ValuesMatch", "values_match"]


@dataclass(frozen=True)
class ValuesMatch:
    """A match's result for side A: the estimate (W/D/L, score, Elo and its interval), the LOS, the games."""

    estimate: EloEstimate
    los: float
    games: pd.DataFrame
    """One row per game: opening, whether A had White, A's score, plies, how it ended."""


def values_match(
    a: Sequence[float] | PieceValues | None, b: Sequence[float] | PieceValues | None, openings: Sequence[str], *,
    nodes: int, max_plies: int = 300, runtime: Runtime = Runtime(),
) -> ValuesMatch:
    """A (five values, pawn to queen, both phases; or PieceValues; None: the hand-set ones) against B, two games
    an opening."""
    if not openings:
        raise ValueError("a match needs at least one opening")
    tasks = [(_plain(a), _plain(b), fen, nodes, max_plies) for fen in openings]
    rows = []
    for fen, pair in zip(openings, map_in_order(_pair, tasks, runtime)):
        for white, score, plies, ending in zip((True, False), pair.scores, pair.plies, pair.endings):
            rows.append({"opening": fen, "a_white": white, "a_score": score, "plies": plies, "ending": ending})
    games = pd.DataFrame(rows)
    wins, losses = int((games["a_score"] == 1.0).sum()), int((games["a_score"] == 0.0).sum())
    draws = len(games) - wins - losses
    return ValuesMatch(elo_estimate(wins, draws, losses), likelihood_of_superiority(wins, losses), games)


def _plain(values: Sequence[float] | PieceValues | None) -> list[float] | PieceValues | None:
    return values if values is None or isinstance(values, PieceValues) else list(values)


def _pair(a: list[float] | PieceValues | None, b: list[float] | PieceValues | None, fen: str, nodes: int,
          max_plies: int) -> PairGames:
    """One opening's two games (a task of the runtime's: plain values in and out)."""
    return play_pair(_values(a), _values(b), chess.Board(fen), nodes=nodes, max_plies=max_plies)


def _values(values: list[float] | PieceValues | None) -> PieceValues | None:
    return values if values is None or isinstance(values, PieceValues) else PieceValues.uniform(values)
