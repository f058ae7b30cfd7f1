"""Identification: likelihoods under candidate models, shared work, probabilities, sides."""

from __future__ import annotations

import math

import chess.pgn
import numpy as np
import pytest

from iam.chunks.model import OpponentModel
from iam.errors import DataError
from iam.evidence.registry import family_columns
from iam.games.pgn import load_player_games
from iam.games.sides import common_player, side_games
from iam.measure.identify import (
    SHOWN_CANDIDATES,
    Identification,
    LikelihoodScorer,
    candidate_probabilities,
    check_candidates,
    fit_temperature,
    game_positions,
    identify,
    rank_credit,
)
from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights
from iam.priors.trees import ResidualTrees
from iam.ranker import MoveRanker
from iam.runtime import Runtime

NAMES = ("Alpha Ann", "Beta Bob")


@pytest.fixture(scope="module")
def synthetic_games(synthetic_players):
    """name -> (training games, test games)."""
    found = {}
    for name in NAMES:
        games, _ = load_player_games([synthetic_players[name]], player=name)
        found[name] = ([g for g in games if g.split == "train"], [g for g in games if g.split == "test"])
    return found


@pytest.fixture(scope="module")
def iam_models(synthetic_models):
    """IAM models of both players, fitted on their training games (shared by the tests, read-only)."""
    return [synthetic_models[name] for name in NAMES]


@pytest.fixture(scope="module")
def rankers(synthetic_games):
    """Rankers with their own columns (policy, habits) and shared ones (move), no population prior."""
    return [
        MoveRanker(families=("move", "policy", "habits"), prior="none", max_positions=100, folds=2).fit(
            synthetic_games[name][0], player=name
        )
        for name in NAMES
    ]


@pytest.mark.parametrize("kind", ["iam", "ranker"])
def test_two_players_with_distinct_styles_are_told_apart(kind, synthetic_games, iam_models, rankers):
    models = iam_models if kind == "iam" else rankers
    for truth, name in enumerate(NAMES):
        result = identify(synthetic_games[name][1], models, NAMES, repertoire=False)
        assert result.table()["candidate"].iloc[0] == name
        assert result.log_likelihood[truth] > result.log_likelihood[1 - truth] + 20
        assert result.probability[truth] > 0.99
        # the default: first moves by the repertoires, the models' evidence elsewhere at weight 0.05
        weighted = identify(synthetic_games[name][1], models, NAMES)
        assert weighted.table()["candidate"].iloc[0] == name
        assert set(np.round(weighted.weights, 9)) == {1.0, 0.05}
        assert abs(weighted.log_likelihood[truth] - weighted.log_likelihood[1 - truth]) < abs(
            result.log_likelihood[truth] - result.log_likelihood[1 - truth]
        )


def test_shared_scoring_equals_each_models_own_beliefs(synthetic_games, rankers, iam_models):
    """The scorer splits a ranker's columns into shared and own ones; the result must not change."""
    positions = [p for game in synthetic_games["Beta Bob"][1][:2] for p in game_positions(game)][:12]
    scores = LikelihoodScorer([*rankers, *iam_models]).positions(positions)
    for i, position in enumerate(positions):
        for j, ranker in enumerate(rankers):
            assert scores[i, j] == pytest.approx(
                math.log(ranker.predict_proba(position.board)[position.played_move]), abs=1e-9
            )
        for j, model in enumerate(iam_models, start=len(rankers)):
            beliefs = model.predict_proba(position.board)
            expected = (
                beliefs.get(position.played_move, 0.0) + max(0.0, 1 - sum(beliefs.values())) / len(position.moves)
            )
            assert scores[i, j] == pytest.approx(math.log(max(expected, 1e-4)))


def test_two_worker_processes_give_each_game_its_own_scores(synthetic_games, rankers):
    """Pieces are cut by positions across games; every game must get back its own rows."""
    games = synthetic_games["Alpha Ann"][1][:3]
    scorer = LikelihoodScorer(rankers)
    alone = scorer.games(games, cap=5)
    shared = LikelihoodScorer(rankers, runtime=Runtime(jobs=2)).games(games, cap=5)
    assert (
        [len(rows) for rows in shared]
        == [len(rows) for rows in alone]
        == [min(5, len(game_positions(g))) for g in games]
    )
    for a, b in zip(alone, shared):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert LikelihoodScorer(rankers, runtime=Runtime(jobs=2)).games([]) == []


def test_decisive_positions_favour_the_winner(synthetic_games, iam_models):
    result = identify(synthetic_games["Alpha Ann"][1], iam_models, NAMES)
    decisive = result.decisive_positions(3)
    assert len(decisive) == 3 and (decisive["margin"] > 0).all()
    assert decisive["margin"].is_monotonic_decreasing
    # probabilities are the candidates' own, not the weighted scores'
    assert (decisive["winner_probability"] > decisive["runner_up_probability"]).all()
    weight = result.weights[np.argsort(-(result.scores[:, 0] - result.scores[:, 1]), kind="stable")[:3]]
    assert np.allclose(
        np.log(decisive["winner_probability"]) * weight,
        result.scores[np.argsort(-(result.scores[:, 0] - result.scores[:, 1]), kind="stable")[:3], 0],
    )


def test_candidates_of_different_kinds_are_refused(iam_models, rankers):
    with pytest.raises(ValueError, match="different kinds"):
        check_candidates([iam_models[0], rankers[1]])
    with pytest.raises(ValueError, match="fitted"):
        check_candidates([OpponentModel(), iam_models[0]])
    deeper = MoveRanker(families=("move",), search_depth=rankers[0].search_depth + 1)
    deeper.__dict__.update({k: v for k, v in rankers[0].__dict__.items() if k.endswith("_")})
    with pytest.raises(ValueError, match="search or engine"):
        check_candidates([rankers[0], deeper])


def test_tied_candidates_share_the_credit():
    scores = np.array([[-5.0, -5.0, -5.0], [-1.0, -5.0, -5.0], [-9.0, -1.0, -1.0]])
    truth = np.array([0, 0, 0])
    assert rank_credit(scores, truth, 1) == pytest.approx([1 / 3, 1.0, 0.0])
    assert rank_credit(scores, truth, 2) == pytest.approx([2 / 3, 1.0, 0.0])


def test_temperature_recovers_the_one_that_generated_the_labels():
    rng = np.random.default_rng(0)
    scores = rng.normal(0, 10, size=(4000, 4))
    probabilities = candidate_probabilities(scores, temperature=5.0)
    truth = np.array([rng.choice(4, p=row) for row in probabilities])
    assert fit_temperature(scores, truth) == pytest.approx(5.0, rel=0.1)
    assert candidate_probabilities(scores[:3]).sum(axis=1) == pytest.approx(np.ones(3))


def test_the_side_is_the_name_common_to_every_game(synthetic_players):
    games, report, player = side_games([synthetic_players["Beta Bob"]], "auto")
    assert player == "Beta Bob" and len(games) == 30 == report.used
    assert {g.color for g in games} == {True, False}
    white, _, _ = side_games([synthetic_players["Beta Bob"]], "white")
    assert len(white) == 30 and all(g.color for g in white)
    assert sum(g.white == "Beta Bob" for g in white) == 15


def test_an_undeterminable_side_is_an_error():
    with pytest.raises(DataError, match="both play in every game"):
        common_player([("A", "B"), ("B", "A")])
    with pytest.raises(DataError, match="no player name is common"):
        common_player([("A", "B"), ("C", "D")])
    with pytest.raises(DataError, match="no player name is common"):
        common_player([("?", "?")])


def test_shared_scoring_adds_each_rankers_residual_trees(synthetic_games):
    """Trees split on shared columns (capture) and a model's own (iam_top); the scorer must add them as the ranker
    does."""
    families = ("move", "policy", "habits")
    columns = tuple(name for family in families for name in family_columns(family))
    split = {"threshold": [0.5, 0.0, 0.0] * 2, "left": [1, 0, 0, 4, 0, 0], "right": [2, 0, 0, 5, 0, 0]}
    trees = ResidualTrees.from_dict(
        {
            "columns": list(columns),
            "depth": 1,
            "roots": [0, 3],
            "nodes": {
                **split,
                "feature": [columns.index("capture"), -1, -1, columns.index("iam_top"), -1, -1],
                "value": [0, -0.5, 1.5, 0, 0, 2.0],
            },
        }
    )
    prior = PopulationPrior(
        book=PopulationBook(),
        rankers=(PriorWeights(families, None, dict.fromkeys(columns, 0.0), positions=1, trees=trees),),
    )
    ranker = MoveRanker(families=families, prior=prior, max_positions=100, folds=2).fit(
        synthetic_games[NAMES[1]][0], player=NAMES[1]
    )
    assert ranker.trees_ == trees
    positions = [p for game in synthetic_games[NAMES[1]][1][:2] for p in game_positions(game)][:12]
    scores = LikelihoodScorer([ranker]).positions(positions)
    for i, position in enumerate(positions):
        assert scores[i, 0] == pytest.approx(
            math.log(ranker.predict_proba(position.board)[position.played_move]), abs=1e-9
        )


def test_python_chess_games_are_refused_naming_player_games(iam_models):
    with pytest.raises(TypeError, match=r"identify expects PlayerGame records .*not chess\.pgn\.Game \(games\[0\]\)"):
        identify([chess.pgn.Game()], iam_models)


def _identification(count: int) -> Identification:
    total = -np.arange(10.0, 10.0 + count)
    probability = candidate_probabilities(total)
    return Identification(
        tuple(f"player {i}" for i in range(count)), total, 5, probability, 1.0, np.zeros((5, count)), (), (0,) * 5
    )


def test_a_printed_identification_ranks_the_candidates_per_move():
    printed = str(_identification(2))
    second = candidate_probabilities(np.array([-10.0, -11.0]))[1]
    assert printed.splitlines() == [
        "5 moves scored under 2 candidates (temperature 1)",
        " rank candidate  per_move  probability",
        f"    1  player 0    -2.000        {1 - second:.3f}",
        f"    2  player 1    -2.200        {second:.3f}",
    ]
    assert repr(_identification(2)) == printed


def test_a_printed_identification_of_many_candidates_shows_the_best_and_counts_the_rest():
    lines = str(_identification(SHOWN_CANDIDATES + 3)).splitlines()
    assert len(lines) == 2 + SHOWN_CANDIDATES + 1
    assert lines[-1] == "and 3 more (table() lists them all)"
    assert f"player {SHOWN_CANDIDATES}" not in "\n".join(lines)
