"""Demes: the population cut into local populations that pair within themselves, and across
their borders every few generations (EvoChess's server pairing mates between demes).

Individual ``i`` of a population of ``size`` belongs to deme ``i * demes // size``'s
contiguous block (:func:`deme_slices`). In an ordinary generation each deme pairs its own
members at random; in a migration generation each deme's shuffled first half meets the
next deme's shuffled second half (deme ``d`` with ``d + 1``, the last with the first),
so every individual still plays once. Kendall and Whitwell's rule then replaces a beaten
individual by a mutant of its winner in the loser's own deme: the winner's weights
migrate. Pairs come grouped by deme, one group a unit of work (one worker's games).

>>> deme_slices(8, 2)
[range(0, 4), range(4, 8)]
"""

from __future__ import annotations

import numpy as np

from search.evolution.kendall_whitwell import Pair, random_pairs

__all__ = ["deme_slices", "deme_pairs", "is_migration"]


def deme_slices(size: int, demes: int) -> list[range]:
    """Each deme's individuals (contiguous, as equal as they can be); ValueError unless each deme has two."""
    if demes < 1 or size < 2 * demes:
        raise ValueError(f"{size} individuals cannot make {demes} demes of at least two")
    bounds = [d * size // demes for d in range(demes + 1)]
    return [range(bounds[d], bounds[d + 1]) for d in range(demes)]


def is_migration(generation: int, demes: int, every: int) -> bool:
    """Whether ``generation`` (from 0) pairs across demes: every ``every``-th one (0: never), with two demes or more."""
    return demes > 1 and every > 0 and (generation + 1) % every == 0


def deme_pairs(size: int, demes: int, generation: int, rng: np.random.Generator, *, every: int = 0) -> list[list[Pair]]:
    """The generation's pairs, one list per deme (see the module docstring)."""
    slices = deme_slices(size, demes)
    if not is_migration(generation, demes, every):
        return [random_pairs(members, rng) for members in slices]
    shuffled = [[int(i) for i in rng.permutation(np.asarray(members))] for members in slices]
    groups = []
    for d in range(demes):
        home, away = shuffled[d], shuffled[(d + 1) % demes]
        mine, theirs = home[: len(home) // 2], away[len(away) // 2:]
        groups.append(list(zip(mine, theirs)))
    return groups
