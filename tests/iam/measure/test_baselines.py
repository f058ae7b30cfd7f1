"""Baselines and predictor names: the floor, the search's and the memory's choices, files of either kind."""

from __future__ import annotations

import chess
import pytest

from iam.errors import ModelFileError
from iam.measure.baselines import OpeningMemory, SearchBest, UniformRandom
from iam.measure.evaluation import first_training_games
from iam.measure.predictors import PREDICTORS, PredictorSettings, available_predictors, build_predictor, load_predictor
from iam.runtime import Runtime


def test_uniform_random_is_uniform_over_legal_moves():
    beliefs = UniformRandom().predict_proba(chess.Board())
    assert len(beliefs) == 20 and set(beliefs.values()) == {1 / 20}


def test_search_best_takes_the_free_queen():
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    assert SearchBest(1).predict_proba(board) == {chess.Move.from_uci("d1d5"): 1.0}


def test_opening_memory_repeats_the_players_choices(botvinnik_games):
    games = first_training_games(botvinnik_games, 200)
    memory = OpeningMemory().fit(games)
    as_white = [g for g in games if g.color == chess.WHITE]
    first_moves = {}
    for game in as_white:
        first_moves[game.moves[0]] = first_moves.get(game.moves[0], 0) + 1
    beliefs = memory.predict_proba(chess.Board())
    assert beliefs == pytest.approx({m: c / sum(first_moves.values()) for m, c in first_moves.items() if c >= 1})
    assert memory.predict_proba(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")) == {}


def test_predictors_need_an_engine_only_where_they_say_so():
    plain = available_predictors(PredictorSettings())
    assert "engine-best" not in plain and "ranker+engine" not in plain and "ranker-no-prior" not in plain
    assert set(available_predictors(PredictorSettings(runtime=Runtime(engine="/usr/games/stockfish")))) == (
        set(PREDICTORS) - {"ranker-no-prior"}
    )
    with pytest.raises(ValueError, match="needs an engine"):
        build_predictor("engine-best", [], PredictorSettings())
    with pytest.raises(ValueError, match="unknown predictor"):
        build_predictor("oracle", [], PredictorSettings())


def test_load_predictor_reads_either_kind_and_refuses_others(small_model, tmp_path):
    path = tmp_path / "iam.json"
    small_model.save(path)
    assert load_predictor(path).player_ == small_model.player_
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"format": "something-else"}')
    with pytest.raises(ModelFileError, match="not an IAM model file"):
        load_predictor(foreign)
