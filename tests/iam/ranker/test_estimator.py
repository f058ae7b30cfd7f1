"""The move ranker as an estimator: fit, beliefs over every legal move, files, the prior, out-of-fold habits."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.evidence.evidence import Evidence
from iam.measure.evaluation import first_training_games
from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights
from iam.priors.positions import player_positions
from iam.ranker import MoveRanker
from iam.ranker.calibration import calibrate_top
from iam.ranker.estimator import DEFAULT_PRIOR_STRENGTH, RIDGE_STRENGTH
from iam.ranker.fitted import RankerState
from iam.ranker.replytable import fit_reply_policy
from iam.ranker.training import deal_folds, out_of_fold_evidence
from search.chess.board import Position, from_move
from search.chess.replies import REPLY_INPUTS

FAST = ("move", "habits", "population")


@pytest.fixture(scope="module")
def training(botvinnik_games):
    return first_training_games(botvinnik_games, 30)


@pytest.fixture(scope="module")
def ranker(training):
    return MoveRanker(families=FAST, max_positions=250, prior="none").fit(training)


def _board(moves: str) -> chess.Board:
    board = chess.Board()
    for san in moves.split():
        board.push_san(san)
    return board


def test_beliefs_cover_every_legal_move_and_sum_to_one(ranker):
    board = _board("d4 Nf6 c4 e6 Nc3")
    beliefs = ranker.predict_proba(board)
    assert set(beliefs) == set(board.legal_moves)
    assert sum(beliefs.values()) == pytest.approx(1.0)
    assert list(beliefs.values()) == sorted(beliefs.values(), reverse=True)
    assert ranker.predict(board, top=3) == list(beliefs)[:3]
    assert ranker.predict_proba(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == {}  # stalemate


def test_fitted_attributes_and_learned_signs(ranker, training):
    assert ranker.n_games_ == 30 and ranker.n_positions_ == 250
    weights = ranker.weights()
    assert set(weights) == set(ranker.feature_names_)
    # Masters recapture and do not leave pieces en prise: the data must say so.
    assert weights["recapture"] > 0 and weights["left_en_prise"] < 0


def test_save_and_load_give_the_same_beliefs(ranker, tmp_path):
    path = tmp_path / "ranker.json.gz"
    ranker.save(path)
    loaded = MoveRanker.load(path)
    board = _board("e4 e5 Nf3 Nc6 Bb5 a6")
    assert loaded.predict_proba(board) == pytest.approx(ranker.predict_proba(board))
    assert loaded.player_ == ranker.player_ and loaded.families_ == ranker.families_


def test_the_top_belief_is_the_softmax_mapped_by_the_fitted_top_label_calibration(ranker, tmp_path):
    top = ranker.top_calibration_
    assert not top.identity and 0 < top.slope  # fitted on 250 out-of-fold positions
    board = _board("d4 Nf6 c4 e6 Nc3")
    moves, probs, rows = ranker.beliefs(board)
    z = rows @ ranker.coef_
    plain = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert probs == pytest.approx(calibrate_top(plain, top.slope, top.offset))
    assert np.argmax(probs) == np.argmax(plain)
    ranker.save(tmp_path / "r.json")
    assert MoveRanker.load(tmp_path / "r.json").top_calibration_ == top
    document = ranker.to_dict()
    document["training"]["top_calibration"] = [-1.0, 0.0]
    with pytest.raises(ModelFileError, match="top-label"):
        MoveRanker.from_dict(document)


def test_a_damaged_ranker_file_is_refused(ranker, tmp_path):
    document = ranker.to_dict()
    document["weights"]["castle"] = float("inf")
    with pytest.raises(ModelFileError, match="finite"):
        MoveRanker.from_dict(document)
    document = ranker.to_dict()
    del document["weights"]["castle"]
    with pytest.raises(ModelFileError, match="exactly the features"):
        MoveRanker.from_dict(document)
    with pytest.raises(ModelFileError, match="version"):
        MoveRanker.from_dict({**ranker.to_dict(), "version": 99})


def test_explain_names_the_features_that_carried_a_move(ranker):
    board = _board("e4 d5 exd5")
    explained = ranker.explain(board, top=2)
    assert explained[0].move == ranker.predict(board)[0]
    first = explained[0].features
    assert first and all(abs(a.contribution) >= abs(b.contribution) for a, b in zip(first, first[1:]))
    names = {c.feature for c in first}
    assert names <= set(ranker.feature_names_)


def test_the_prior_holds_the_weights_when_it_is_strong(training):
    names = ("castle", "recapture", "check")
    prior = PopulationPrior(
        book=PopulationBook(),
        rankers=(PriorWeights(families=("move",), without=None, weights={"castle": 3.0, "check": -2.0}, positions=1),),
    )
    held = MoveRanker(families=("move",), max_positions=60, prior=prior, prior_strength=1e7).fit(training)
    weights = {name: value * held.temperature_ for name, value in held.weights().items()}  # before calibration
    assert [round(weights[name], 3) for name in names] == [3.0, 0.0, -2.0]
    free = MoveRanker(families=("move",), max_positions=60, prior=prior, prior_strength=0.0).fit(training)
    assert free.weights()["castle"] != pytest.approx(3.0, abs=0.05)


def test_the_default_pull_is_strong_towards_the_population_and_light_towards_zero(training):
    prior = PopulationPrior(
        book=PopulationBook(),
        rankers=(PriorWeights(families=("move",), without=None, weights={"castle": 3.0, "check": -2.0}, positions=1),),
    )
    fits = {
        (kind, strength): MoveRanker(
            families=("move",), max_positions=60, prior=prior if kind == "population" else kind, prior_strength=strength
        )
        .fit(training)
        .coef_
        for kind, strength in (
            ("population", None),
            ("population", DEFAULT_PRIOR_STRENGTH),
            ("none", None),
            ("none", RIDGE_STRENGTH),
            ("none", DEFAULT_PRIOR_STRENGTH),
        )
    }
    assert np.array_equal(fits["population", None], fits["population", DEFAULT_PRIOR_STRENGTH])
    assert np.array_equal(fits["none", None], fits["none", RIDGE_STRENGTH])
    assert not np.allclose(fits["none", None], fits["none", DEFAULT_PRIOR_STRENGTH])
    assert DEFAULT_PRIOR_STRENGTH > RIDGE_STRENGTH


def test_a_master_is_never_his_own_prior():
    prior = PopulationPrior(
        book=PopulationBook({"Botvinnik, Mikhail": {"x": {"e2e4": 3}}, "Smyslov, Vassily": {"x": {"d2d4": 2}}}),
        rankers=(
            PriorWeights(("move",), None, {"castle": 1.0}, 10),
            PriorWeights(("move",), "Botvinnik, Mikhail", {"castle": 2.0}, 8),
        ),
    )
    assert prior.weights_for(("move",), "Botvinnik") == {"castle": 2.0}
    assert prior.weights_for(("move",), "Tal") == {"castle": 1.0}
    assert list(prior.book.without("Botvinnik").masters) == ["Smyslov, Vassily"]


def test_habits_of_a_training_position_come_from_a_model_without_its_game(training):
    positions = player_positions(training, sample=60, random_state=0)
    pairs = out_of_fold_evidence(training, positions, Evidence(families=FAST), folds=5, iam_params={})
    assert sum(len(mine) for _, mine in pairs) == 60
    fold_of = {game.index: number % 5 for number, game in enumerate(training)}
    for evidence, mine in pairs:
        assert evidence.sources.iam.n_games_ == 24  # 30 games, 5 folds: each model sees the other 24
        assert len({fold_of[p.game] for p in mine}) == 1  # one fold's positions, one model


def test_folds_follow_the_games_indices_not_their_order():
    assert deal_folds([7, 3, 11, 5, 3], 3) == {3: 0, 5: 1, 7: 2, 11: 0}
    assert deal_folds([11, 7, 5, 3], 3) == deal_folds([3, 5, 7, 11], 3)
    assert deal_folds([4, 9], 5) == {4: 0, 9: 1}  # fewer games than folds: one fold a game
    assert deal_folds([], 5) == {}


def test_a_fit_does_not_depend_on_the_order_the_games_arrive_in(training):
    """Folds of the habits and of the calibration follow the games' indices: reversed games, the same ranker."""
    forward = MoveRanker(families=FAST, max_positions=80, prior="none").fit(training)
    backward = MoveRanker(families=FAST, max_positions=80, prior="none").fit(list(reversed(training)))
    assert np.array_equal(forward.coef_, backward.coef_)
    assert forward.temperature_ == backward.temperature_


def test_search_features_come_from_scoring_every_move(training):
    ranker = MoveRanker(families=("move", "search"), max_positions=15, prior="none").fit(training)
    assert "search_loss" in ranker.feature_names_
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")  # the rook wins the queen
    assert ranker.predict(board)[0] == chess.Move.from_uci("d1d5")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"families": ("move", "psychic")}, "families"),
        ({"families": "move"}, "one string"),
        ({"families": ("engine",)}, "engine path"),
        ({"families": ("move", "glance")}, "glance family needs an engine path"),
        ({"prior": "magic"}, "prior"),
        ({"search_depth": 0}, "search_depth"),
        ({"prior_strength": float("nan")}, "prior_strength"),
        ({"max_positions": 0}, "max_positions"),
    ],
)
def test_bad_parameters_are_refused(training, params, message):
    with pytest.raises(ValueError, match=message):
        MoveRanker(**params).fit(training)


def test_a_file_never_names_the_engine_to_run(ranker):
    document = ranker.to_dict()
    assert "engine" not in document["params"]
    document["params"]["families"] = ["move", "engine", "habits"]
    document["families"] = ["move", "engine", "habits"]
    with pytest.raises(ModelFileError, match="name the engine program"):
        MoveRanker.from_dict(document)
    document["params"]["families"] = document["families"] = ["move", "glance", "habits"]
    with pytest.raises(ModelFileError, match="name the engine program"):
        MoveRanker.from_dict(document)


def test_hostile_numbers_in_a_ranker_file_are_refused(ranker):
    deep = ranker.to_dict()
    deep["params"]["search_depth"] = 10**6
    with pytest.raises(ModelFileError, match="search_depth"):
        MoveRanker.from_dict(deep)
    negative = ranker.to_dict()
    negative["book"] = {"Someone": {chess.Board().epd(): {"e2e4": -3}}}
    with pytest.raises(ModelFileError, match="book counts"):
        MoveRanker.from_dict(negative)


def test_the_temperature_is_fitted_out_of_fold(ranker):
    assert 0.3 < ranker.temperature_ < 3.0


def test_the_reply_policy_is_fitted_saved_and_optional(ranker, training, tmp_path):
    assert ranker.reply_positions == 0 and ranker.reply_policy_ is None  # off by default
    ranker = MoveRanker(families=FAST, max_positions=50, prior="none", reply_positions=1500).fit(training)
    policy = ranker.reply_policy_
    assert policy is not None and policy.weights.shape == (REPLY_INPUTS,)
    ranker.save(tmp_path / "r.json.gz")
    loaded = MoveRanker.load(tmp_path / "r.json.gz")
    assert np.array_equal(loaded.reply_policy_.weights, policy.weights)
    assert loaded.reply_positions == ranker.reply_positions == 1500
    # A file from before the reply policy: no policy, and the parameter says none was fitted.
    document = ranker.to_dict()
    del document["reply_policy"]
    del document["params"]["reply_positions"]
    older = MoveRanker.from_dict(document)
    assert older.reply_policy_ is None and older.reply_positions == 0
    document = ranker.to_dict()
    document["reply_policy"]["weights"] = document["reply_policy"]["weights"][:-1]
    with pytest.raises(ModelFileError, match="reply policy needs"):
        MoveRanker.from_dict(document)


def test_the_reply_policy_names_his_moves_far_better_than_chance(botvinnik_games):
    games = first_training_games(botvinnik_games, 60)
    policy = fit_reply_policy(player_positions(games[:40], sample=1500, random_state=0))
    top1 = top8 = chance = 0.0
    held = player_positions(games[40:], sample=400, random_state=0)
    for record in held:
        fast = Position.from_board(record.board)
        moves = fast.legal_moves()
        beliefs = np.array(policy.log_beliefs(fast, moves))
        rank = int((beliefs > beliefs[moves.index(from_move(record.played_move))]).sum())
        top1, top8, chance = top1 + (rank == 0), top8 + (rank < 8), chance + 1 / len(moves)
    assert top1 / len(held) > 0.15 > 3 * chance / len(held)
    assert top8 / len(held) > 0.5


def _with_trees(document: dict, leaf: float) -> dict:
    """``document`` with two one-split residual trees on its first column, one leaf worth ``leaf``."""
    column = next(iter(document["weights"]))
    document["trees"] = {
        "columns": [column],
        "depth": 1,
        "roots": [0, 3],
        "nodes": {
            "feature": [0, -1, -1, 0, -1, -1],
            "threshold": [0.5, 0.0, 0.0, 0.5, 0.0, 0.0],
            "left": [1, 0, 0, 4, 0, 0],
            "right": [2, 0, 0, 5, 0, 0],
            "value": [0.0, leaf, leaf, 0.0, leaf, leaf],
        },
    }
    return document


def test_numbers_that_would_overflow_the_scores_are_refused(ranker):
    board = _board("e4 e5 Nf3")
    sound = MoveRanker.from_dict(_with_trees(ranker.to_dict(), 0.5))
    beliefs = np.array(list(sound.predict_proba(board).values()))
    assert np.all(np.isfinite(beliefs)) and beliefs.sum() == pytest.approx(1.0)
    with pytest.raises(ModelFileError, match="leaf values sum to more than"):
        MoveRanker.from_dict(_with_trees(ranker.to_dict(), 1e308))
    for damage, message in (
        (lambda d: d["training"].update(temperature=1e-300), "temperature"),
        (lambda d: d["training"].update(temperature=1e300), "temperature"),
        (lambda d: d["training"].update(top_calibration=[1e308, 0.0]), "top-label"),
        (lambda d: d["training"].update(top_calibration=[1.0, -1e308]), "top-label"),
        (lambda d: d.update(version=True), "version True"),
    ):
        document = ranker.to_dict()
        damage(document)
        with pytest.raises(ModelFileError, match=message):
            MoveRanker.from_dict(document)


def test_the_fitted_state_is_one_record_read_through_the_fitted_attributes(ranker):
    from sklearn.base import clone

    state = ranker.state_
    assert isinstance(state, RankerState)
    assert ranker.coef_ is state.scoring.coef and ranker.book_ is state.memories.book
    assert (ranker.player_, ranker.n_games_) == (state.player, state.training.n_games) == ("Botvinnik, Mikhail", 30)
    with pytest.raises(AttributeError, match="replace state_"):
        ranker.coef_ = np.zeros(3)
    assert not hasattr(clone(ranker), "coef_")


def test_the_players_name_is_given_to_fit_and_recorded(training, tmp_path):
    named = MoveRanker(families=("move",), max_positions=30, prior="none").fit(training, player="Somebody")
    assert named.player_ == "Somebody" and named.to_dict()["params"]["player"] == "Somebody"
    inferred = MoveRanker(families=("move",), max_positions=30, prior="none").fit(training)
    assert inferred.player_ == "Botvinnik, Mikhail" and inferred.to_dict()["params"]["player"] is None
    path = tmp_path / "named.json"
    named.save(path)
    again = MoveRanker.load(path)
    assert again.player_ == "Somebody" and again.to_dict() == named.to_dict()
    with pytest.raises(TypeError, match="player"):
        MoveRanker(families=("move",), prior="none").fit(training, player=3)


def test_a_file_records_the_prior_and_its_trees_apart_and_reads_them_back_as_one_choice(training):
    linear = MoveRanker(families=("move",), max_positions=30, prior="population-linear").fit(training)
    document = linear.to_dict()
    assert (document["params"]["prior"], document["params"]["trees"]) == ("population", False)
    assert MoveRanker.from_dict(document).get_params()["prior"] == "population-linear"
    assert MoveRanker.from_dict(document).to_dict() == document
    for prior, trees in (("population", True), ("none", True), ("none", False)):
        params = {**document["params"], "prior": prior, "trees": trees}
        assert MoveRanker.from_dict({**document, "params": params}).get_params()["prior"] == prior
    with pytest.raises(ModelFileError, match="trees must be true or false"):
        MoveRanker.from_dict({**document, "params": {**document["params"], "trees": "no"}})
    with pytest.raises(ModelFileError, match="player must be a name"):
        MoveRanker.from_dict({**document, "params": {**document["params"], "player": 5}})


def test_a_given_prior_is_recorded_as_the_population_with_the_trees_it_holds(training):
    prior = PopulationPrior(
        book=PopulationBook(),
        rankers=(PriorWeights(families=("move",), without=None, weights={"castle": 3.0}, positions=1),),
    )
    ranker = MoveRanker(families=("move",), max_positions=30, prior=prior).fit(training)
    assert ranker.get_params()["prior"] is prior
    assert (ranker.to_dict()["params"]["prior"], ranker.to_dict()["params"]["trees"]) == ("population", False)
