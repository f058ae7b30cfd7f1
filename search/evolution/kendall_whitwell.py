"""Kendall and Whitwell's evolution of evaluation weights by mutation and self-competition.

Source note 001 ("Evolution Example", Kendall/Whitwell) gives the rule. A population of
weight vectors is paired off; each pair plays two games, each side having White once;
then the weights are changed by

    ``w(y) = w(y) + RAND[-0.5, 0.5] * s(y) * winloss_factor``

where ``w(y)`` is a function's weight for piece ``y`` and ``s(y)`` the standard deviation
of weight ``y`` in the population. The factor depends on the pair's two results:

* one side won both games: the winner is left alone (factor 0) and the loser is replaced
  by a mutant of the winner with factor 2 (the note's "0 and 2");
* one side won one game and drew the other: the winner is mutated with 0.2 and the loser
  replaced by a mutant of the winner with 1 (".2 and 1");
* both games drawn: both are mutated in place with 0.5 (".5 and .5").

The note leaves out a pair that won one game each; this module treats it as level, like
two draws (both mutated in place with 0.5). :class:`Factors` holds the three cases'
factors, the note's by default.

Choices the note leaves open, fixed here: ``RAND`` is drawn afresh for every weight of
every mutation (uniform on [-0.5, 0.5]); ``s(y)`` is the population standard deviation
(``ddof=0``) of the generation's population before any of its pairs is applied, so the
pairs of a generation can be played in any order or in parallel; a loser's replacement
mutates the winner as he was before his own mutation; weights may be clipped to bounds
after a mutation (none by default; one range for all, or one per weight).

A floor on ``s(y)`` (``floor``, none by default) keeps the rule alive once the population
agrees: the rule multiplies every change by ``s(y)``, so a population whose members all
hold the same weight never changes it again, whatever the games say. With a floor ``f``
the spread used is ``max(s(y), f * |mean(y)|)``, a share of the weight's own size, so the
smallest step is the same share of every weight whatever its scale.

Randomness comes only from a ``numpy.random.Generator`` the caller passes, so a run is a
function of its seed.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> population = np.array([[1.0, 10.0], [3.0, 30.0]])
>>> new, outcomes = apply_results(population, [(0, 1)], [(1.0, 1.0)], rng)
>>> new[0].tolist(), outcomes[0].case, outcomes[0].winner
([1.0, 10.0], 'won both', 0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Factors",
    "PairOutcome",
    "apply_results",
    "evolve",
    "mutate",
    "pair_outcome",
    "random_pairs",
    "spreads",
]

Pair = tuple[int, int]
"""Two individuals' indices in the population; the first is called A."""
Scores = tuple[float, float]
"""A's scores in the pair's two games (A with White, then with Black): 1 win, 0.5 draw, 0 loss."""
Bounds = tuple[float | np.ndarray, float | np.ndarray]
"""The low and high ends weights are clipped to: one number for every weight, or one per weight (arrays)."""
_SCORES = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Factors:
    """The ``winloss_factor`` of each case (source note 001's by default)."""

    sweep_winner: float = 0.0
    sweep_replacement: float = 2.0
    win_draw_winner: float = 0.2
    win_draw_replacement: float = 1.0
    level: float = 0.5


@dataclass(frozen=True)
class PairOutcome:
    """What one pairing did: the case, who won (None: level), and the factors applied."""

    a: int
    b: int
    scores: Scores
    case: str
    """'won both', 'won and drew', or 'level' (two draws, or a win each)."""
    winner: int | None
    winner_factor: float
    loser_factor: float


def spreads(population: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """``s(y)``: each weight's standard deviation over the population (rows are individuals).

    With ``floor`` > 0, at least ``floor`` times the magnitude of the weight's population mean.
    """
    population = np.asarray(population, dtype=float)
    if floor < 0:
        raise ValueError(f"the spread's floor is a share at least 0, got {floor!r}")
    spread = population.std(axis=0)
    return np.maximum(spread, floor * np.abs(population.mean(axis=0))) if floor > 0 else spread


def mutate(
    weights: np.ndarray, spread: np.ndarray, factor: float, rng: np.random.Generator,
    bounds: Bounds | None = None,
) -> np.ndarray:
    """``w + RAND[-0.5, 0.5] * s * factor`` for every weight, clipped to ``bounds`` (a new array).

    A factor of 0 leaves the weights as they are and draws no random numbers.
    """
    weights = np.asarray(weights, dtype=float)
    if factor == 0:
        return weights.copy()
    mutated = weights + rng.uniform(-0.5, 0.5, size=weights.shape) * np.asarray(spread, dtype=float) * factor
    return mutated if bounds is None else np.clip(mutated, *bounds)


def pair_outcome(pair: Pair, scores: Scores, factors: Factors = Factors()) -> PairOutcome:
    """The rule's case for a pair whose A scored ``scores`` (ValueError for a score not 0, 0.5 or 1)."""
    if len(scores) != 2 or any(float(s) not in _SCORES for s in scores):
        raise ValueError(f"a pair's scores are two of 0, 0.5 and 1, got {scores!r}")
    a, b = pair
    total = float(scores[0]) + float(scores[1])
    scores = (float(scores[0]), float(scores[1]))
    if total == 1.0:
        return PairOutcome(a, b, scores, "level", None, factors.level, factors.level)
    winner = a if total > 1.0 else b
    if total in (0.0, 2.0):
        return PairOutcome(a, b, scores, "won both", winner, factors.sweep_winner, factors.sweep_replacement)
    return PairOutcome(a, b, scores, "won and drew", winner, factors.win_draw_winner, factors.win_draw_replacement)


def apply_results(
    population: np.ndarray, pairs: Sequence[Pair], results: Sequence[Scores], rng: np.random.Generator,
    *, factors: Factors = Factors(), bounds: Bounds | None = None, floor: float = 0.0,
) -> tuple[np.ndarray, list[PairOutcome]]:
    """The next population after the pairs played: the rule applied pair by pair, in order.

    ``s(y)`` is taken from ``population`` once, before any pair (floored by ``floor``,
    see :func:`spreads`); each individual should be in at most one pair (ValueError
    otherwise). Individuals in no pair are kept.
    """
    population = np.asarray(population, dtype=float)
    if len(pairs) != len(results):
        raise ValueError(f"{len(pairs)} pairs but {len(results)} results")
    seen = [i for pair in pairs for i in pair]
    if len(set(seen)) != len(seen) or not all(0 <= i < len(population) for i in seen):
        raise ValueError("each individual plays in one pair at most, and pairs name individuals of the population")
    spread = spreads(population, floor)
    new = population.copy()
    outcomes = []
    for pair, scores in zip(pairs, results):
        outcome = pair_outcome(pair, scores, factors)
        if outcome.winner is None:
            for i in pair:
                new[i] = mutate(population[i], spread, outcome.winner_factor, rng, bounds)
        else:
            loser = pair[1] if outcome.winner == pair[0] else pair[0]
            winner = population[outcome.winner]
            new[outcome.winner] = mutate(winner, spread, outcome.winner_factor, rng, bounds)
            new[loser] = mutate(winner, spread, outcome.loser_factor, rng, bounds)
        outcomes.append(outcome)
    return new, outcomes


def random_pairs(indices: Sequence[int], rng: np.random.Generator) -> list[Pair]:
    """The individuals shuffled and paired off in order (one left over when their number is odd sits out)."""
    order = [int(i) for i in rng.permutation(np.asarray(indices, dtype=int))]
    return [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]


def evolve(
    population: np.ndarray, play: Callable[[np.ndarray, np.ndarray, int], Scores], generations: int,
    *, seed: int, factors: Factors = Factors(), bounds: Bounds | None = None, floor: float = 0.0,
) -> Iterator[tuple[np.ndarray, list[PairOutcome]]]:
    """One population per generation, serially: random pairs, ``play(a, b, index)`` for each, the rule.

    Generation ``g``'s randomness is ``default_rng([seed, g])``, so a run resumed from the
    population of generation ``g`` continues as it would have. ``index`` numbers the
    generation's pairs (a caller may choose an opening by it).
    """
    population = np.asarray(population, dtype=float)
    for generation in range(generations):
        rng = np.random.default_rng([seed, generation])
        pairs = random_pairs(range(len(population)), rng)
        results = [play(population[a], population[b], i) for i, (a, b) in enumerate(pairs)]
        population, outcomes = apply_results(
            population, pairs, results, rng, factors=factors, bounds=bounds, floor=floor
        )
        yield population, outcomes
