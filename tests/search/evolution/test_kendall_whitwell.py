"""search.evolution.kendall_whitwell: source note 001's mutation rule by hand, case by case, and a tiny
evolution of a tic-tac-toe evaluation (a game with no chess in it)."""

import numpy as np
import pytest

from search import LinearEvaluator, alphabeta
from search.evolution.kendall_whitwell import (
    Factors,
    apply_results,
    evolve,
    mutate,
    pair_outcome,
    random_pairs,
    spreads,
)
from search.games.tictactoe import TicTacToe


class FixedDraws:
    """A stand-in for numpy's generator whose uniform draws are given in advance (one array per call)."""

    def __init__(self, *draws):
        self.draws = [np.array(d, dtype=float) for d in draws]
        self.calls = []

    def uniform(self, low, high, size):
        self.calls.append((low, high, size))
        return self.draws.pop(0)


# A: (100, 300), B: (200, 500): s(y) = (50, 100), the population standard deviation.
POPULATION = np.array([[100.0, 300.0], [200.0, 500.0]])


def test_the_spread_is_the_population_standard_deviation():
    assert spreads(POPULATION).tolist() == [50.0, 100.0]


def test_a_floor_keeps_a_population_that_agrees_mutating():
    agreed = np.array([[100.0, -400.0], [100.0, -400.0]])
    assert spreads(agreed).tolist() == [0.0, 0.0]
    assert spreads(agreed, 0.1).tolist() == [10.0, 40.0]  # a share of each weight's mean, whatever its sign
    assert spreads(POPULATION, 0.1).tolist() == [50.0, 100.0]  # a spread above the floor is kept
    new, _ = apply_results(agreed, [(0, 1)], [(0.5, 0.5)], FixedDraws([0.5, -0.5], [-0.5, 0.5]), floor=0.1)
    assert new.tolist() == [[102.5, -410.0], [97.5, -390.0]]  # two draws: 0.5 * RAND * the floored spread
    with pytest.raises(ValueError):
        spreads(agreed, -0.1)


def test_won_both_leaves_the_winner_and_replaces_the_loser_by_a_mutant_with_factor_two():
    rng = FixedDraws([0.5, -0.25])
    new, (outcome,) = apply_results(POPULATION, [(0, 1)], [(1.0, 1.0)], rng)
    # winner A kept; B = A + (0.5 * 50 * 2, -0.25 * 100 * 2)
    assert new.tolist() == [[100.0, 300.0], [150.0, 250.0]]
    assert (outcome.case, outcome.winner, outcome.winner_factor, outcome.loser_factor) == ("won both", 0, 0.0, 2.0)
    assert rng.calls == [(-0.5, 0.5, (2,))]


def test_won_one_and_drew_one_mutates_the_winner_by_a_fifth_and_replaces_the_loser():
    rng = FixedDraws([0.5, 0.5], [-0.5, 0.1])
    new, (outcome,) = apply_results(POPULATION, [(0, 1)], [(0.5, 0.0)], rng)  # B won with White, drew with Black
    # winner B = B + (0.5 * 50 * 0.2, 0.5 * 100 * 0.2) = (205, 510); A = old B + (-0.5 * 50 * 1, 0.1 * 100 * 1)
    assert new.tolist() == [[175.0, 510.0], [205.0, 510.0]]
    assert (outcome.case, outcome.winner) == ("won and drew", 1)


def test_two_draws_mutate_both_in_place_by_a_half():
    rng = FixedDraws([0.2, -0.4], [-0.1, 0.3])
    new, (outcome,) = apply_results(POPULATION, [(0, 1)], [(0.5, 0.5)], rng)
    # A + (0.2 * 50 * 0.5, -0.4 * 100 * 0.5) = (105, 280); B + (-0.1 * 50 * 0.5, 0.3 * 100 * 0.5) = (197.5, 515)
    assert new.tolist() == [[105.0, 280.0], [197.5, 515.0]]
    assert (outcome.case, outcome.winner) == ("level", None)


def test_a_win_each_is_level_like_two_draws():
    assert pair_outcome((0, 1), (1.0, 0.0)).case == "level"
    assert pair_outcome((0, 1), (0.0, 1.0)).winner is None


def test_the_factors_can_be_set():
    rng = FixedDraws([0.5, 0.5])
    new, _ = apply_results(POPULATION, [(0, 1)], [(0.0, 0.0)], rng, factors=Factors(sweep_replacement=1.0))
    assert new.tolist() == [[225.0, 550.0], [200.0, 500.0]]  # B won both: A = B + (0.5 * 50, 0.5 * 100)


def test_mutations_are_clipped_to_bounds_and_factor_zero_draws_nothing():
    rng = FixedDraws([0.5, 0.5])
    assert mutate(np.array([100.0, 300.0]), np.array([50.0, 100.0]), 10.0, rng, (0.0, 400.0)).tolist() == [
        350.0, 400.0]
    assert mutate(np.array([1.0]), np.array([5.0]), 0.0, FixedDraws()).tolist() == [1.0]


@pytest.mark.parametrize("scores", [(1.0, 2.0), (0.3, 0.5), (1.0,)])
def test_scores_other_than_win_draw_loss_are_refused(scores):
    with pytest.raises(ValueError, match="two of 0, 0.5 and 1"):
        pair_outcome((0, 1), scores)


def test_an_individual_in_two_pairs_is_refused():
    with pytest.raises(ValueError, match="one pair at most"):
        apply_results(np.zeros((3, 2)), [(0, 1), (1, 2)], [(0.5, 0.5), (0.5, 0.5)], np.random.default_rng(0))


def test_random_pairs_cover_everyone_once_and_leave_one_out_when_odd():
    pairs = random_pairs(range(7), np.random.default_rng(3))
    members = [i for pair in pairs for i in pair]
    assert len(pairs) == 3 and len(set(members)) == 6 and set(members) <= set(range(7))


# ---- a tiny evolution on tic-tac-toe: nine square weights, a one-ply search ------------------------


GAME = TicTacToe()


def _features(state):
    return [(cell == 1) - (cell == 2) for cell in state]  # X's marks minus O's, from player 0's side


def _play(x_weights, o_weights):
    """X's score of one game, X searching with ``x_weights`` and O with ``o_weights``, one ply deep."""
    state = GAME.initial_state()
    evaluators = (LinearEvaluator(_features, x_weights), LinearEvaluator(_features, o_weights))
    while not GAME.is_terminal(state):
        result = alphabeta(GAME, state, depth=1, evaluator=evaluators[GAME.to_move(state)])
        state = GAME.result(state, result.move)
    return (GAME.utility(state, 0) + 1) / 2


def _pair(a, b, index):
    return _play(a, b), 1.0 - _play(b, a)


def test_a_tiny_tictactoe_evolution_is_reproducible_and_follows_the_rule():
    start = np.random.default_rng(1).uniform(0, 10, size=(6, 9))
    runs = [list(evolve(start, _pair, 4, seed=7)) for _ in range(2)]
    for (first, outcomes), (again, _) in zip(*runs):
        assert np.array_equal(first, again)
        assert len(outcomes) == 3
    for before, (after, outcomes) in zip([start] + [p for p, _ in runs[0][:-1]], runs[0]):
        for outcome in outcomes:
            if outcome.case == "won both":  # the winner untouched, the loser gone
                assert np.array_equal(after[outcome.winner], before[outcome.winner])
            if outcome.case != "level":
                loser = outcome.b if outcome.winner == outcome.a else outcome.a
                spread = spreads(before)
                bound = 0.5 * spread * outcome.loser_factor + 1e-9
                assert np.all(np.abs(after[loser] - before[outcome.winner]) <= bound)
    assert any(o.case != "level" for _, outcomes in runs[0] for o in outcomes)
