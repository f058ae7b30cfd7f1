"""Candidate models fitted from players' games: groups, splits, samples of games, the temperature."""

from __future__ import annotations

import numpy as np
import pytest

from iam.chunks.model import OpponentModel
from iam.games.pgn import load_player_games
from iam.measure.candidates import (
    CandidateScoring,
    CandidateSettings,
    deal_sums,
    decade_groups,
    fit_candidates,
    load_groups,
    sample_sums,
    trained_candidates,
)

NAMES = ("Alpha Ann", "Beta Bob")


def test_sample_sums_are_sums_of_k_distinct_rows_of_the_group():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(9, 3))
    owner = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2])
    sums, truth = sample_sums(matrix, owner, 3, 50, np.random.default_rng(1))
    assert sorted(set(truth.tolist())) == [0, 1]  # group 2 has fewer than 3 games
    replay = np.random.default_rng(1)
    for group in (0, 1):
        rows = np.flatnonzero(owner == group)
        chosen = np.argsort(replay.random((50, len(rows))), axis=1)[:, :3]
        assert np.allclose(sums[truth == group], matrix[rows[chosen]].sum(axis=1))
        assert all(len(set(c)) == 3 for c in chosen.tolist())


def test_every_deal_of_the_control_sees_the_same_samples():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(9, 6))  # two deals of three candidates
    owner = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2])
    sums, truth = deal_sums(matrix, owner, 2, 30, [7, 2], deals=2)
    first, first_truth = sample_sums(matrix[:, :3], owner, 2, 30, np.random.default_rng([7, 2]))
    second, _ = sample_sums(matrix[:, 3:], owner, 2, 30, np.random.default_rng([7, 2]))
    assert np.array_equal(sums, np.concatenate([first, second]))
    assert np.array_equal(truth, np.concatenate([first_truth, first_truth]))
    alone, _ = deal_sums(matrix[:, :3], owner, 2, 30, [7, 2])
    assert np.array_equal(alone, first)



def test_decades_with_enough_games_become_groups(synthetic_players):
    games, _ = load_player_games([synthetic_players["Beta Bob"]], player="Beta Bob")
    groups, notes = decade_groups("Beta Bob", games, 10)
    assert [g.label for g in groups] == ["Beta Bob 1940s", "Beta Bob 1950s"]
    assert [len(g.games) for g in groups] == [20, 10]
    groups, notes = decade_groups("Beta Bob", games, 15)
    assert len(groups) == 1 and "1950s: 10 games" in notes[0]
    players = tuple((name, str(synthetic_players[name])) for name in NAMES)
    found, _ = load_groups(players, by_decade=True, min_decade_games=10)
    assert len(found) == 4


def test_trained_candidates_read_fitting_and_development_games_only(synthetic_players):
    players = tuple((name, str(synthetic_players[name])) for name in NAMES)
    seen = []
    patch = pytest.MonkeyPatch()
    original = OpponentModel.fit

    def spy(self, games, *rest, **options):
        games = list(games)
        seen.extend(game.index for game in games)
        return original(self, games, *rest, **options)

    patch.setattr(OpponentModel, "fit", spy)
    try:
        names, models, temperature = trained_candidates(
            "iam", players, CandidateSettings(scoring=CandidateScoring(positions_per_game=8), ks=(1, 3))
        )
    finally:
        patch.undo()
    assert names == list(NAMES) and [m.player_ for m in models] == list(NAMES)
    assert seen and all(index % 5 not in (3, 4) for index in seen)  # 3: development, 4: test
    assert 0 < temperature < float("inf") and temperature != 1.0


def test_an_unknown_candidate_kind_or_a_missing_engine_is_refused():
    with pytest.raises(ValueError, match="candidate model is one of"):
        fit_candidates("population", [], [], CandidateSettings())
    with pytest.raises(ValueError, match="needs an engine"):
        fit_candidates("ranker+engine", [], [], CandidateSettings())
