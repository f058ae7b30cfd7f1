"""Evolving a player's weights by self-play: Kendall and Whitwell's mutation rule over a
population (:mod:`search.evolution.kendall_whitwell`), split into demes that meet across
their borders now and then, as EvoChess's server paired mates (:mod:`search.evolution.demes`).

The algorithms see an individual as a vector of numbers and a pairing's result as two
game scores; what the numbers mean and how the games are played is the caller's (for
chess: :mod:`search.chess.selfplay`), so nothing here knows a game.
"""

from search.evolution.demes import deme_pairs, deme_slices, is_migration
from search.evolution.kendall_whitwell import (
    Factors,
    PairOutcome,
    apply_results,
    evolve,
    mutate,
    pair_outcome,
    random_pairs,
    spreads,
)

__all__ = [
    "Factors",
    "PairOutcome",
    "apply_results",
    "deme_pairs",
    "deme_slices",
    "evolve",
    "is_migration",
    "mutate",
    "pair_outcome",
    "random_pairs",
    "spreads",
]
