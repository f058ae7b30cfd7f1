"""What the piece-value evolution's games can tell, and how far its rule wanders without them.

Two measurements behind the evolution's results (docs/results/evolution.md):

* :func:`value_match`: one set of piece values against another, from every opening twice
  (each side White once) at a node budget, as the evolution's pairs play
  (:mod:`search.chess.selfplay`: fresh searches, the rules' endings, a draw after
  ``max_plies``), with the Elo estimate and, for the games ended by checkmate, the
  winner's material lead at the mate (pawn 1, knight and bishop 3, rook 5, queen 9): how
  far ahead a side is when its attack lands.
* :func:`random_results_drift`: Kendall and Whitwell's rule
  (:mod:`search.evolution.kendall_whitwell`) applied to pairs whose results are drawn at
  random, so that nothing is selected: where the population's means go from a given start
  by the rule's mutations alone (the spread's floor, the copies of winners). One deme,
  the pawn (the first value) held at the start's.

>>> shares = {"level": 1.0, "won and drew": 0.0, "won both": 0.0}
>>> table = random_results_drift([100, 300], floor=0.1, generations=3, population=4, runs=2, shares=shares)
>>> list(table.columns), len(table)
(['run', 'ratio_1'], 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import chess
import numpy as np
import pandas as pd

from search.chess.match import elo_estimate
from search.chess.pst import PieceValues
from search.chess.selfplay import play_to_end
from search.evolution import apply_results, random_pairs

__all__ = ["CASES", "first_difference", "game_with_material", "random_results_drift", "value_match"]

CASES = ("level", "won and drew", "won both")
"""The rule's cases, as :func:`search.evolution.kendall_whitwell.pair_outcome` names them."""
_POINTS = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
_SCORES = {  # A's two scores for each case, either side the winner
    "level": ((0.5, 0.5),), "won and drew": ((1.0, 0.5), (0.5, 0.0)), "won both": ((1.0, 1.0), (0.0, 0.0)),
}


def game_with_material(
    white: PieceValues, black: PieceValues, start: chess.Board, *, nodes: int, max_plies: int,
) -> tuple[float, str, int]:
    """One game as the evolution's pairs play it (:func:`search.chess.selfplay.play_to_end`): White's score, how
    it ended, and White's material less Black's at the end (pawn 1, knight and bishop 3, rook 5, queen 9)."""
    score, _, ending, board = play_to_end(white, black, start, nodes=nodes, max_plies=max_plies)
    lead = sum(_POINTS.get(piece.piece_type, 0) * (1 if piece.color == chess.WHITE else -1)
               for piece in board.piece_map().values())
    return score, ending, lead


def first_difference(
    values: Sequence[float], against: Sequence[float], start: chess.Board, *, nodes: int, max_plies: int = 160,
) -> int | None:
    """The ply (from 0 at ``start``) at which the game of ``values`` with White against ``against`` first leaves
    the game of ``against`` against itself from ``start``; None when the two games are the same move for move
    (the values then change nothing the game can show)."""
    mine, theirs = PieceValues.uniform(values), PieceValues.uniform(against)
    own = play_to_end(theirs, theirs, start, nodes=nodes, max_plies=max_plies)[3].move_stack[len(start.move_stack):]
    other = play_to_end(mine, theirs, start, nodes=nodes, max_plies=max_plies)[3].move_stack[len(start.move_stack):]
    ply = next((i for i, (a, b) in enumerate(zip(own, other)) if a != b), None)
    if ply is None and len(own) != len(other):
        return min(len(own), len(other))
    return ply


def value_match(
    values: Sequence[float], against: Sequence[float], openings: Sequence[chess.Board], *, nodes: int,
    max_plies: int = 160,
) -> dict:
    """``values`` (five piece values, both phases) against ``against`` from every opening twice: wins, draws
    and losses of ``values``, the Elo estimate with its 95% interval, the endings, and the mates' material
    (``mates``, their winner's median lead, how many of them the winner was behind in material)."""
    mine, theirs = PieceValues.uniform(values), PieceValues.uniform(against)
    wins = draws = losses = 0
    endings: dict[str, int] = {}
    leads = []
    for start in openings:
        for white in (True, False):
            score, ending, lead = game_with_material(mine if white else theirs, theirs if white else mine, start,
                                                     nodes=nodes, max_plies=max_plies)
            score, lead = (score, lead) if white else (1.0 - score, -lead)
            wins, draws, losses = wins + (score == 1.0), draws + (score == 0.5), losses + (score == 0.0)
            endings[ending] = endings.get(ending, 0) + 1
            if ending == "checkmate":
                leads.append(lead if score == 1.0 else -lead)
    estimate = elo_estimate(wins, draws, losses)
    return {
        "wins": wins, "draws": draws, "losses": losses, "elo": estimate.elo, "low": estimate.low,
        "high": estimate.high, "endings": endings, "mates": len(leads),
        "mate_lead_median": float(np.median(leads)) if leads else float("nan"),
        "mates_behind": sum(lead < 0 for lead in leads),
    }


def random_results_drift(
    start: Sequence[float], *, floor: float, generations: int, population: int = 16, runs: int = 100,
    shares: Mapping[str, float], seed: int = 1, jitter: float = 0.05,
) -> pd.DataFrame:
    """Each run's population means after ``generations`` of the rule on random results, as ratios to ``start``.

    Every run starts from ``start`` with each value times ``1 + U(-jitter, jitter)`` (from
    ``default_rng(seed)``), the first value held at its start; generation ``g`` of run ``r`` draws its
    pairs, each pair's case (by ``shares``, a weight for each of :data:`CASES`; which side wins is even)
    and the mutations from ``default_rng([r, g])``. The values are kept within 1 to 3,000. One row a run:
    ``ratio_i`` for every value but the first.
    """
    weights = np.array([float(shares.get(case, 0.0)) for case in CASES])
    if set(shares) - set(CASES) or weights.min() < 0 or weights.sum() <= 0:
        raise ValueError(f"shares weigh the cases {', '.join(CASES)}, at least one above 0, got {dict(shares)!r}")
    if population < 2 or runs < 1 or generations < 0:
        raise ValueError(f"a population of 2 at least, a run at least, got {population} and {runs}")
    centre = np.asarray(start, dtype=float)
    outcomes = [(case, scores) for case in CASES for scores in _SCORES[case]]
    chances = np.array([weights[CASES.index(case)] / len(_SCORES[case]) for case, _ in outcomes])
    chances /= chances.sum()
    jitters = np.random.default_rng(seed)
    rows = []
    for run in range(runs):
        values = np.tile(centre, (population, 1)) * (1 + jitters.uniform(-jitter, jitter, (population, len(centre))))
        values[:, 0] = centre[0]
        for generation in range(generations):
            rng = np.random.default_rng([run, generation])
            pairs = random_pairs(range(population), rng)
            results = [outcomes[rng.choice(len(outcomes), p=chances)][1] for _ in pairs]
            values, _ = apply_results(values, pairs, results, rng, bounds=(1.0, 3000.0), floor=floor)
            values[:, 0] = centre[0]
        means = values.mean(axis=0) / centre
        rows.append({"run": run, **{f"ratio_{i}": float(means[i]) for i in range(1, len(centre))}})
    return pd.DataFrame(rows)
