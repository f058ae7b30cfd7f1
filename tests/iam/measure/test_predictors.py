"""Every predictor by name (iam.measure.predictors): which are available, each built on a few games, model files of
either kind read back and told apart from other files by their first bytes."""

from __future__ import annotations

import gzip
import json
import re

import chess
import pytest

from iam.chunks.model import OpponentModel
from iam.errors import ModelFileError
from iam.measure.baselines import OpeningMemory, SearchBest, UniformRandom
from iam.measure.evaluation import first_training_games
from iam.measure.predictors import (
    PREDICTORS,
    TRAINED,
    PredictorSettings,
    available_predictors,
    build_predictor,
    is_model_file,
    load_predictor,
)
from iam.ranker import MoveRanker
from iam.runtime import Runtime


def test_the_predictors_that_can_run_depend_on_the_engine():
    """Without an engine the engine predictors are left out; the control without a prior is never in the list."""
    assert available_predictors(PredictorSettings()) == [
        "iam", "ranker", "search-best", "opening-memory", "random"
    ]
    with_engine = available_predictors(PredictorSettings(runtime=Runtime(engine="/usr/games/stockfish")))
    assert with_engine == [name for name in PREDICTORS if name != "ranker-no-prior"]
    assert TRAINED < set(PREDICTORS)


def test_each_predictor_is_built_from_its_name(botvinnik_games):
    """The learning predictors are fitted on the training games (the control without its prior), the others are
    the baselines; an unknown name and an engine predictor without an engine are errors."""
    games = first_training_games(botvinnik_games, 4)
    settings = PredictorSettings(iam={"belief": "rules", "min_games": 3},
                                 ranker={"families": ("move",), "max_positions": 40}, search_depth=2)
    assert isinstance(build_predictor("iam", games, settings), OpponentModel)
    ranker = build_predictor("ranker", games, settings)
    control = build_predictor("ranker-no-prior", games, settings)
    assert isinstance(ranker, MoveRanker) and ranker.families == ("move",) and ranker.prior != "none"
    assert control.prior == "none"
    search = build_predictor("search-best", games, settings)
    assert isinstance(search, SearchBest) and search.depth == 2
    memory = build_predictor("opening-memory", games, settings)
    assert isinstance(memory, OpeningMemory) and memory.min_games == 3
    assert isinstance(build_predictor("random", games, settings), UniformRandom)
    with pytest.raises(ValueError, match="unknown predictor 'oracle'"):
        build_predictor("oracle", games, settings)
    for name in ("engine-best", "ranker+engine"):
        with pytest.raises(ValueError, match=re.escape(f"the {name} predictor needs an engine")):
            build_predictor(name, games, settings)


def test_model_files_of_either_kind_are_read_and_other_files_refused(small_model, botvinnik_games, tmp_path):
    """An IAM model file and a ranker file (plain or gzip) are read back as their kind with the same beliefs; their
    first bytes tell them from other JSON, other gzip and unreadable paths."""
    iam_path, ranker_path = tmp_path / "iam.json", tmp_path / "ranker.json.gz"
    small_model.save(iam_path)
    ranker = MoveRanker(families=("move",), prior="none", max_positions=40)
    ranker.fit(first_training_games(botvinnik_games, 4)).save(ranker_path)
    board = chess.Board()
    loaded = load_predictor(iam_path)
    assert isinstance(loaded, OpponentModel) and loaded.predict_proba(board) == small_model.predict_proba(board)
    again = load_predictor(ranker_path)
    assert isinstance(again, MoveRanker)
    assert again.predict_proba(board) == pytest.approx(ranker.predict_proba(board))
    assert is_model_file(iam_path) and is_model_file(ranker_path)
    other = tmp_path / "other.json.gz"
    with gzip.open(other, "wt") as handle:
        json.dump({"format": "something-else"}, handle)
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8bnot gzip at all")
    for path in (other, broken, tmp_path / "missing.json", tmp_path):
        assert not is_model_file(path), path
    with pytest.raises(ModelFileError, match="found 'something-else'"):
        load_predictor(other)
