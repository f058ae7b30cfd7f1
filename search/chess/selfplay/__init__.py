"""Self-play between evaluations: two compiled searches with their own piece values play a
game, or a pair of games (each with White once), at a fixed node budget per move.

The games of :mod:`search.evolution`'s evolution: deterministic (a node budget, never a
clock, a fresh search per game), so a pair played on any worker gives the same scores.
A game ends by the rules (mate, stalemate, dead material, fifty moves, threefold
repetition, claimed at once) or, after ``max_plies`` plies from the opening, is scored a
draw. No adjudication by material: it would judge with the very values being evolved.

>>> import chess
>>> from search.chess.pst import PieceValues
>>> back_rank = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")  # White mates at once
>>> pair = play_pair(PieceValues.standard(), None, back_rank, nodes=500)
>>> pair.scores, pair.plies, pair.endings
((1.0, 0.0), (1, 1), ('checkmate', 'checkmate'))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

from search.chess.engine import ChessSearch
from search.chess.pst import PieceValues
from search.result import Limits

__all__ = ["PairGames", "play_game", "play_to_end", "play_pair", "piece_values"]

_TABLE_SIZE = 1 << 16


@dataclass(frozen=True)
class PairGames:
    """A pair's two games from one opening: A's score with White, then with Black, and their lengths in plies."""

    scores: tuple[float, float]
    plies: tuple[int, int]
    endings: tuple[str, str]


def piece_values(weights: Sequence[float]) -> PieceValues:
    """Five evolved weights (pawn, knight, bishop, rook, queen) as the piece values of both phases."""
    return PieceValues.uniform(weights)


def play_game(
    white: PieceValues | None, black: PieceValues | None, start: chess.Board, *, nodes: int, max_plies: int = 200,
) -> tuple[float, int, str]:
    """One game from ``start``: White's score (1, 0.5, 0), its length in plies, and how it ended."""
    score, plies, ending, _ = play_to_end(white, black, start, nodes=nodes, max_plies=max_plies)
    return score, plies, ending


def play_to_end(
    white: PieceValues | None, black: PieceValues | None, start: chess.Board, *, nodes: int, max_plies: int = 200,
) -> tuple[float, int, str, chess.Board]:
    """:func:`play_game`, with the game's last position."""
    if nodes < 1 or max_plies < 1:
        raise ValueError(f"nodes and max_plies must be positive, got {nodes} and {max_plies}")
    board = start.copy()
    searches = {chess.WHITE: _search(white), chess.BLACK: _search(black)}
    limits = Limits(nodes=nodes)
    for ply in range(max_plies):
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return _score(outcome.winner), ply, outcome.termination.name.lower(), board
        move = searches[board.turn].search(board, limits).move
        assert move is not None  # a game not over has a legal move, and the search returns one
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    if outcome is not None:
        return _score(outcome.winner), max_plies, outcome.termination.name.lower(), board
    return 0.5, max_plies, "move limit", board


def play_pair(
    a: PieceValues | None, b: PieceValues | None, start: chess.Board, *, nodes: int, max_plies: int = 200,
) -> PairGames:
    """A's games against B from ``start``: A with White first, then with Black."""
    first = play_game(a, b, start, nodes=nodes, max_plies=max_plies)
    second = play_game(b, a, start, nodes=nodes, max_plies=max_plies)
    return PairGames(
        scores=(first[0], 1.0 - second[0]), plies=(first[1], second[1]), endings=(first[2], second[2])
    )


def _search(values: PieceValues | None) -> ChessSearch:
    return ChessSearch(table_size=_TABLE_SIZE, values=values)


def _score(winner: bool | None) -> float:
    if winner is None:
        return 0.5
    return 1.0 if winner == chess.WHITE else 0.0
