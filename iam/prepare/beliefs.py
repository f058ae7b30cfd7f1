"""His beliefs in the dossier: the model alone, then the masters' book, then his own games, each counted once.

A move ranker already weighs his own lines (:mod:`iam.ranker.own_lines`): where his fitting games
have been, its beliefs are a Dirichlet posterior of his choices there with the model as a prior.
The dossier reads his games from its own repertoire (dated, recency-weighted, only the games it
is given), so it asks the ranker for the model alone (:class:`ModelAlone`: the ranker's beliefs
with ``own_lines=inf``) and counts his games once, after the population book
(:class:`~iam.prepare.population.BookBeliefs`):

    P(move) = (c(move) + A * q(move)) / (n + A)

with ``q`` the model's belief updated by the book, ``A`` the prior's strength in games
(:data:`~iam.prepare.tree.PRIOR_STRENGTH` by default, chosen on development games against the ranker's own
weight :data:`~iam.ranker.own_lines.OWN_LINES_STRENGTH`: "His games counted once" in docs/results/prepare.md)
and ``c`` his recency-weighted games with the move, scaled to the position's effective number of games ``n``
(as :class:`~iam.prepare.tree.RepertoireBeliefs` counts them). A move he chose in at least
:data:`~iam.ranker.own_lines.SIDELINE_SHARE` of his games at the position is then believed at least
:data:`~iam.ranker.own_lines.SIDELINE_FLOOR` of that share (his plain game frequency, recency aside): his
sidelines are what a preparation is about.
"""

from __future__ import annotations

import math

import chess
import numpy as np

from iam.prepare.tree import Predictor, RepertoireBeliefs
from iam.ranker import MoveRanker
from iam.ranker.own_lines import SIDELINE_FLOOR, SIDELINE_SHARE

__all__ = ["ModelAlone", "HisLineBeliefs", "model_alone", "floor_sidelines"]


class ModelAlone:
    """A move ranker's beliefs without its memory of his own lines (they are counted in the dossier's tree)."""

    def __init__(self, ranker: MoveRanker) -> None:
        self.ranker = ranker

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves, probs, _ = self.ranker.beliefs(board, own_lines=math.inf)
        order = np.argsort(-probs, kind="stable")
        return {moves[i]: float(probs[i]) for i in order.tolist()}


def model_alone(model: Predictor) -> Predictor:
    """``model`` without its own count of his games where it keeps one (a move ranker); any other model as it is."""
    return ModelAlone(model) if isinstance(model, MoveRanker) else model


def floor_sidelines(beliefs: dict[chess.Move, float], games: dict[str, int]) -> dict[chess.Move, float]:
    """``beliefs`` with each move of at least :data:`SIDELINE_SHARE` of his ``games`` (UCI -> games) lifted to
    :data:`SIDELINE_FLOOR` of its share, the other moves scaled down to pay for it (they still sum to one).

    >>> e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
    >>> lifted = floor_sidelines({e4: 0.95, d4: 0.05}, {"e2e4": 6, "d2d4": 4})
    >>> round(lifted[d4], 2), round(lifted[e4], 2)
    (0.2, 0.8)
    """
    total = sum(games.values())
    if total <= 0:
        return dict(beliefs)
    moves = list(beliefs)
    values = np.array([beliefs[move] for move in moves], dtype=np.float64)
    share = np.array([games.get(move.uci(), 0) / total for move in moves], dtype=np.float64)
    floor = np.where(share >= SIDELINE_SHARE, SIDELINE_FLOOR * share, 0.0)
    lifted = np.zeros(len(values), dtype=bool)
    out = values
    # A move scaled below its own floor is lifted in the next pass; the floors sum to at most SIDELINE_FLOOR.
    while (below := (out < floor) & ~lifted).any():
        lifted |= below
        room = 1.0 - floor[lifted].sum()
        rest = values[~lifted].sum()
        out = np.where(lifted, floor, values * (room / rest) if rest > 0 else 0.0)
    return {move: float(value) for move, value in zip(moves, out)}


class HisLineBeliefs(RepertoireBeliefs):
    """His beliefs where his games went: ``model``'s belief updated once by his games in ``repertoire``,
    his sidelines floored (see the module docstring). A predictor itself; each position is computed once.

    ``model`` is the belief before his games (the model alone, updated by the book): kept as ``model`` so a
    caller can rebuild the chain on another repertoire.
    """

    def _beliefs(self, board: chess.Board) -> dict[chess.Move, float]:
        posterior = super()._beliefs(board)
        node = self.repertoire.node(board)
        games = {} if node is None or not node.his_turn else {
            edge.uci: edge.played.games for edge in node.edges.values() if edge.played.games
        }
        if not games or not posterior:
            return posterior
        floored = floor_sidelines(posterior, games)
        return dict(sorted(floored.items(), key=lambda item: (-item[1], item[0].uci())))
