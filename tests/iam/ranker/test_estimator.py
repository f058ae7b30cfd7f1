"""The move ranker as an estimator: fit, beliefs over every legal move, saving and loading, the prior."""

from __future__ import annotations

import chess
import chess.pgn
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.measure.evaluation import first_training_games
from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights
from iam.priors.positions import player_positions
from iam.ranker import MoveRanker
from iam.ranker.calibration import calibrate_top
from iam.ranker.estimator import DEFAULT_PRIOR_STRENGTH, RIDGE_STRENGTH
from iam.ranker.replytable import fit_reply_policy
from search.chess.board import Position, from_move
from search.chess.replies import REPLY_INPUTS

FAST = ("move", "habits", "population")


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


def test_a_fit_does_not_depend_on_the_order_the_games_arrive_in(training):
    """Folds of the habits and of the calibration follow the games' indices: reversed games, the same ranker."""
    games = training[:15]  # five folds of three games each
    forward = MoveRanker(families=FAST, max_positions=80, prior="none").fit(games)
    backward = MoveRanker(families=FAST, max_positions=80, prior="none").fit(list(reversed(games)))
    assert np.array_equal(forward.coef_, backward.coef_)
    assert forward.temperature_ == backward.temperature_


def test_search_features_come_from_scoring_every_move(training):
    ranker = MoveRanker(families=("move", "search"), max_positions=15, prior="none").fit(training)
    assert "search_loss" in ranker.feature_names_
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")  # the rook wins the queen
    assert ranker.predict(board)[0] == chess.Move.from_uci("d1d5")
    assert ranker.blunder_check_depth_ is None  # the rate comes from its own depth-3 scores, no deep check in a fit


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


def test_the_temperature_is_fitted_out_of_fold(ranker):
    assert 0.3 < ranker.temperature_ < 3.0


def test_the_reply_policy_is_fitted_saved_and_optional(ranker, training, tmp_path):
    assert ranker.reply_positions == 0 and ranker.reply_policy_ is None  # off by default
    # the policy is fitted apart from the ranker's families: the cheapest family will do
    ranker = MoveRanker(families=("move",), max_positions=50, prior="none", reply_positions=1500).fit(training)
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


def test_fitting_python_chess_games_is_a_type_error_naming_player_games():
    expected = r"MoveRanker\.fit expects PlayerGame records .*not chess\.pgn\.Game \(games\[0\]\)"
    with pytest.raises(TypeError, match=expected):
        MoveRanker(families=("move",)).fit([chess.pgn.Game()])
