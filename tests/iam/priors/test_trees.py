"""Residual trees: numpy scoring equal to LightGBM's, sound files, and a ranker that adds them to its score."""

from __future__ import annotations

import chess
import lightgbm
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.measure.evaluation import first_training_games
from iam.priors.logit import MoveTable, fit_conditional_logit, position_log_likelihood
from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights
from iam.priors.trees import ResidualTrees, RoundChoice, TreeSettings, _from_lightgbm, fit_residual_trees
from iam.ranker import MoveRanker


def _one_split(
    column: str = "capture", columns: tuple[str, ...] = ("capture", "check"), bonus: float = 2.0
) -> ResidualTrees:
    """One tree: ``column <= 0.5`` scores 0, above it ``bonus``."""
    return ResidualTrees.from_dict(
        {
            "columns": list(columns),
            "depth": 1,
            "roots": [0],
            "nodes": {
                "feature": [columns.index(column), -1, -1],
                "threshold": [0.5, 0.0, 0.0],
                "left": [1, 0, 0],
                "right": [2, 0, 0],
                "value": [0.0, 0.0, bonus],
            },
        }
    )


def _interaction_table(positions: int, seed: int) -> MoveTable:
    """Positions of 8 moves whose player picks the move with the largest ``x0 * x1``: no linear score sees it."""
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(positions * 8, 3))
    starts = np.arange(0, positions * 8 + 1, 8)
    product = (features[:, 0] * features[:, 1]).reshape(positions, 8)
    return MoveTable(features, starts, starts[:-1] + product.argmax(axis=1))


def test_a_hand_made_tree_scores_each_row_by_its_leaf():
    trees = _one_split()
    assert trees.score(np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 9.0]])).tolist() == [0.0, 2.0, 0.0]
    assert ResidualTrees.from_dict(trees.to_dict()) == trees
    with pytest.raises(ValueError, match="columns"):
        trees.score(np.zeros((2, 3)))


def test_numpy_scores_equal_lightgbm_raw_predictions():
    table = _interaction_table(300, seed=1)
    label = np.zeros(len(table.features))
    label[table.played] = 1.0
    booster = lightgbm.train(
        {"objective": "regression", "num_leaves": 15, "min_data_in_leaf": 20, "verbose": -1, "seed": 0},
        lightgbm.Dataset(table.features, label),
        num_boost_round=40,
    )
    trees = _from_lightgbm(booster.dump_model(), ("a", "b", "c"))
    assert trees.trees == 40 and trees.depth >= 3
    rows = np.random.default_rng(2).normal(size=(500, 3))
    assert trees.score(rows) == pytest.approx(booster.predict(rows, raw_score=True), abs=1e-9)


def test_trees_learn_what_the_linear_score_cannot():
    fitting, test = _interaction_table(1500, seed=3), _interaction_table(500, seed=4)
    games = np.arange(fitting.positions) // 10
    weights = fit_conditional_logit(fitting)
    settings = TreeSettings(rounds=RoundChoice(limit=300), min_rows_in_leaf=50, learning_rate=0.1, threads=1)
    trees = fit_residual_trees(fitting, fitting.features @ weights, ("a", "b", "c"), games, settings)
    assert 0 < trees.trees <= 300 and trees.trees % settings.rounds.step == 0
    linear = -position_log_likelihood(test, weights).mean()
    boosted = -position_log_likelihood(test, weights, trees.score(test.features)).mean()
    assert linear > 2.0 > 1.9 > boosted  # uniform over 8 moves is 2.08: the linear score knows nothing


def test_the_positions_of_one_game_give_no_tree_rather_than_an_empty_fit():
    """With one game its positions are all held out to choose the rounds: nothing is left to boost on."""
    table = _interaction_table(30, seed=5)
    trees = fit_residual_trees(table, np.zeros(len(table.features)), ("a", "b", "c"), np.zeros(30, dtype=int))
    assert trees.trees == 0 and trees.score(table.features).tolist() == [0.0] * len(table.features)


def test_damaged_trees_are_refused():
    good = _one_split().to_dict()
    for change, message in (
        ({"left": [1, 0, 7]}, None),  # a leaf's links are never followed
        ({"left": [5, 0, 0]}, "do not exist"),
        ({"feature": [4, -1, -1]}, "do not name"),
        ({"left": [0, 0, 0]}, "deeper"),  # a loop back to the root
        ({"value": [0.0, float("nan"), 0.0]}, "finite"),
        ({"value": [0.0, 0.0]}, "one length"),
        ({"value": [0.0, 0.0, 1e308]}, "overflow"),  # finite, and a sum of two such leaves is inf
        ({"value": [0.0, -6e5, 6e5]}, "overflow"),
        ({"value": [1e308, 0.0, 1.0]}, None),  # an inner node's value is never scored
    ):
        data = {**good, "nodes": {**good["nodes"], **change}}
        if message is None:
            ResidualTrees.from_dict(data)
        else:
            with pytest.raises(ValueError, match=message):
                ResidualTrees.from_dict(data)


@pytest.fixture(scope="module")
def training(botvinnik_games):
    return first_training_games(botvinnik_games, 30)


def _prior(trees: ResidualTrees | None) -> PopulationPrior:
    weights = {"castle": 1.0, "check": 0.5}
    return PopulationPrior(
        book=PopulationBook(), rankers=(PriorWeights(("move",), None, weights, positions=1, trees=trees),)
    )


def test_a_ranker_adds_the_population_trees_to_its_linear_score(training, tmp_path):
    columns = ("piece_pawn", "capture", "check")
    trees = _one_split("capture", columns, bonus=2.0)
    params = {"families": ("move",), "max_positions": 120, "prior_strength": 0.0}
    plain = MoveRanker(**params, prior=_prior(None)).fit(training)
    boosted = MoveRanker(**params, prior=_prior(trees)).fit(training)
    assert plain.trees_ is None and boosted.trees_ == trees
    # Without a pull, the linear part gives back exactly what the trees add to captures.
    raw = {name: w * boosted.temperature_ for name, w in boosted.weights().items()}
    raw_plain = {name: w * plain.temperature_ for name, w in plain.weights().items()}
    assert raw["capture"] == pytest.approx(raw_plain["capture"] - 2.0, abs=2e-3)
    assert raw["check"] == pytest.approx(raw_plain["check"], abs=2e-3)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3")
    assert boosted.predict_proba(board) == pytest.approx(plain.predict_proba(board), abs=1e-3)
    moves, probs, rows = boosted.beliefs(board)
    scores = (
        rows @ boosted.coef_ + 2.0 * (rows[:, boosted.feature_names_.index("capture")] > 0.5) / boosted.temperature_
    )
    assert np.argmax(probs) == np.argmax(scores)
    explained = boosted.explain(board, top=None, features=len(columns) + 30)
    capture = next(entry for entry in explained if board.is_capture(entry.move))
    assert "residual_trees" in {c.feature for c in capture.features}
    boosted.save(tmp_path / "boosted.json.gz")
    loaded = MoveRanker.load(tmp_path / "boosted.json.gz")
    assert loaded.trees_ == trees and loaded.predict_proba(board) == pytest.approx(boosted.predict_proba(board))
    document = boosted.to_dict()
    document["trees"]["columns"] = ["piece_pawn", "capture", "no_such_feature"]
    with pytest.raises(ModelFileError, match="residual trees"):
        MoveRanker.from_dict(document)
    version_3 = {**plain.to_dict(), "version": 3}
    del version_3["trees"], version_3["params"]["trees"]
    assert MoveRanker.from_dict(version_3).predict_proba(board) == pytest.approx(plain.predict_proba(board))


def test_the_prior_gives_trees_only_for_exactly_the_families_and_depth_they_were_fitted_on():
    trees = _one_split()
    prior = PopulationPrior(
        book=PopulationBook(),
        rankers=(
            PriorWeights(
                ("move", "search"), None, {"capture": 1.0, "check": 1.0}, positions=1, search_depth=3, trees=trees
            ),
            PriorWeights(("move", "search"), None, {"capture": 1.0, "check": 1.0}, positions=1, search_depth=2),
        ),
    )
    assert prior.trees_for(("move", "search"), "Anyone", 3) == trees
    assert prior.trees_for(("move", "search"), "Anyone", 2) is None
    assert prior.trees_for(("move",), "Anyone", 3) is None
    again = PopulationPrior.from_dict(prior.to_dict())
    assert again.trees_for(("search", "move"), None, 3) == trees
    document = prior.to_dict()
    document["rankers"][0]["weights"] = {"capture": 1.0}
    with pytest.raises(ValueError, match="that ranker's columns"):
        PopulationPrior.from_dict(document)
