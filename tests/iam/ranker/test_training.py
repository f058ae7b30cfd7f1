"""From a player's games to the ranker's training table: the folds, the out-of-fold habits, the sampled positions
and the table stacked from their rows."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from iam.evidence.evidence import Evidence
from iam.evidence.sources import EvidenceSources
from iam.priors.patterns import count_patterns
from iam.priors.population import PopulationBook
from iam.priors.positions import player_positions
from iam.ranker.training import deal_folds, move_table, out_of_fold_evidence, stack_table
from iam.runtime import Runtime

FAST = ("move", "habits", "population")


def test_habits_of_a_training_position_come_from_a_model_without_its_game(training):
    games = training[:15]
    positions = player_positions(games, sample=60, random_state=0)
    pairs = out_of_fold_evidence(games, positions, Evidence(families=FAST), folds=5, iam_params={})
    assert sum(len(mine) for _, mine in pairs) == 60
    fold_of = {game.index: number % 5 for number, game in enumerate(games)}
    for evidence, mine in pairs:
        assert evidence.sources.iam.n_games_ == 12  # 15 games, 5 folds: each model sees the other 12
        assert len({fold_of[p.game] for p in mine}) == 1  # one fold's positions, one model


def test_the_folds_models_fitted_in_two_processes_are_those_of_one(training):
    games = training[:8]
    positions = player_positions(games, sample=20, random_state=0)
    params = {"belief_positions": 80, "random_state": 3}
    serial = out_of_fold_evidence(games, positions, Evidence(families=FAST), folds=4, iam_params=params)
    parallel = out_of_fold_evidence(
        games, positions, Evidence(families=FAST), folds=4, iam_params=params, runtime=Runtime(jobs=2)
    )
    assert [mine for _, mine in parallel] == [mine for _, mine in serial] and len(serial) == 4
    models = [(one.sources.iam, two.sources.iam) for (one, _), (two, _) in zip(serial, parallel, strict=True)]
    assert all(one.belief_ is not None and one.to_dict() == two.to_dict() for one, two in models)
    assert len({json.dumps(one.to_dict(), sort_keys=True) for one, _ in models}) == 4  # four folds, four models


def test_folds_follow_the_games_indices_not_their_order():
    assert deal_folds([7, 3, 11, 5, 3], 3) == {3: 0, 5: 1, 7: 2, 11: 0}
    assert deal_folds([11, 7, 5, 3], 3) == deal_folds([3, 5, 7, 11], 3)
    assert deal_folds([4, 9], 5) == {4: 0, 9: 1}  # fewer games than folds: one fold a game
    assert deal_folds([], 5) == {}


def test_each_folds_move_patterns_are_counted_in_the_other_folds_games(training):
    games = training[:6]
    positions = player_positions(games, sample=30, random_state=1)
    pairs = out_of_fold_evidence(games, positions, Evidence(families=FAST), folds=3, iam_params={})
    fold_of = deal_folds((game.index for game in games), 3)
    assert len(pairs) == 3
    for evidence, mine in pairs:
        fold = fold_of[mine[0].game]
        others = [game for game in games if fold_of[game.index] != fold]
        assert evidence.sources.iam.n_games_ == len(others) == 4
        np.testing.assert_array_equal(evidence.sources.own_patterns.played, count_patterns(others).played)
        np.testing.assert_array_equal(evidence.sources.own_patterns.legal, count_patterns(others).legal)
    assert sorted(p.board.fen() for _, mine in pairs for p in mine) == sorted(p.board.fen() for p in positions)


def test_a_fold_without_positions_gets_no_model(training):
    """Positions from one game only: one fold has them, so one IAM model is fitted."""
    games = training[:6]
    positions = [p for p in player_positions(games) if p.game == games[0].index][:5]
    pairs = out_of_fold_evidence(games, positions, Evidence(families=FAST), folds=3, iam_params={})
    assert len(pairs) == 1 and pairs[0][1] == positions and pairs[0][0].sources.iam.n_games_ == 4


def test_without_the_habits_family_or_with_one_game_no_player_source_is_kept(training):
    """The other families never read the player's own games: one evidence for every position, without them."""
    book = PopulationBook({"Other": {}})
    positions = player_positions(training[:4], sample=10, random_state=0)
    sources = EvidenceSources(book=book, iam=object(), own_patterns=object())
    for families, games in ((("move", "population"), training[:4]), (FAST, training[:1])):
        pairs = out_of_fold_evidence(
            games, positions, Evidence(families=families, sources=sources), folds=5, iam_params={}
        )
        assert len(pairs) == 1
        evidence, mine = pairs[0]
        assert mine == positions and evidence.families == families
        assert evidence.sources == replace(sources, iam=None, own_patterns=None) and evidence.sources.book is book


def test_a_table_stacks_the_rows_of_positions_with_moves_and_a_known_choice():
    rows = [np.arange(6.0).reshape(2, 3), np.zeros((0, 3)), np.ones((3, 3)), np.full((1, 3), 7.0)]

    class Position:
        def __init__(self, played):
            self.played = played

    table = stack_table(rows, [Position(1), Position(0), Position(2), Position(-1)])
    assert table.positions == 2  # no legal moves, and no known choice, are dropped
    np.testing.assert_array_equal(table.starts, [0, 2, 5])
    np.testing.assert_array_equal(table.played, [1, 4])
    np.testing.assert_array_equal(table.features, np.vstack([rows[0], rows[2]]))
    empty = stack_table([], [])
    assert empty.features.shape == (0, 0) and empty.positions == 0 and list(empty.starts) == [0]


def test_the_table_is_a_seeded_sample_of_positions_each_row_its_moves_features(training):
    evidence = Evidence(families=("move",))
    table, positions = move_table(training, evidence, max_positions=20, random_state=3)
    assert len(positions) == table.positions == 20
    expected = player_positions(training, sample=20, random_state=3)
    assert [(p.game, p.ply) for p in positions] == [(p.game, p.ply) for p in expected]
    for number, position in enumerate(positions):
        start, end = table.starts[number], table.starts[number + 1]
        matrix = evidence.matrix(position)
        np.testing.assert_array_equal(table.features[start:end], matrix)
        assert table.played[number] == start + position.played
    again, _ = move_table(training, evidence, max_positions=20, random_state=3)
    np.testing.assert_array_equal(again.features, table.features)
    other, other_positions = move_table(training, evidence, max_positions=20, random_state=4)
    assert [(p.game, p.ply) for p in other_positions] != [(p.game, p.ply) for p in positions]


def test_the_table_is_computed_in_pieces_through_the_progress_wrapper(training):
    """One process cuts each evidence's positions into four pieces, which the progress wrapper counts."""
    seen = []

    def progress(items, total):
        seen.append(total)
        return items

    table, positions = move_table(training[:3], Evidence(families=("move",)), max_positions=10, progress=progress)
    assert seen == [4] and table.positions == len(positions) == 10  # one process: pieces of ceil(10 / 4) = 3 rows


def test_habits_rows_come_from_their_folds_evidence(training):
    games = training[:6]
    table, positions = move_table(games, Evidence(families=FAST), max_positions=12, folds=3, random_state=0)
    pairs = out_of_fold_evidence(
        games, player_positions(games, sample=12, random_state=0), Evidence(families=FAST), folds=3, iam_params={}
    )
    expected = np.vstack([evidence.matrix(position) for evidence, mine in pairs for position in mine])
    assert [p.board.fen() for p in positions] == [p.board.fen() for _, mine in pairs for p in mine]
    np.testing.assert_allclose(table.features, expected)
    assert table.features.shape[1] == len(Evidence(families=FAST).columns)


@pytest.mark.parametrize("folds", [1, 2])
def test_few_folds_still_hold_each_position_out_of_its_model(training, folds):
    games = training[:4]
    positions = player_positions(games, sample=8, random_state=0)
    pairs = out_of_fold_evidence(games, positions, Evidence(families=FAST), folds=folds, iam_params={})
    if folds == 1:  # one fold: the model would see every game; no games are left, so no model
        assert len(pairs) == 1 and pairs[0][0].sources.iam is None
    else:
        assert [evidence.sources.iam.n_games_ for evidence, _ in pairs] == [2, 2]
