"""What a ranker runs on is not what it is: resources go to fit, load and use, never into parameters or files."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.games.heldout import first_training_games
from iam.ranker import MoveRanker
from iam.ranker.resources import NO_RESOURCES, Resources

FAST = ("move", "search", "habits")


@pytest.fixture(scope="module")
def fitted(botvinnik_games, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("resources") / "search.sqlite")
    ranker = MoveRanker(families=FAST, search_depth=1, max_positions=60, prior="none")
    return ranker.fit(first_training_games(botvinnik_games, 12), resources=Resources(search_cache=cache, jobs=2)), cache


def test_resources_are_not_parameters_and_are_checked():
    names = set(MoveRanker().get_params())
    assert not names & {"engine", "engine_cache", "search_cache", "jobs"}
    assert "engine_depth" in names  # the depth is what the engine family is, so it stays a parameter
    for jobs in (0, 2000, 1.5, True):
        with pytest.raises(ValueError, match="jobs must be an integer"):
            Resources(jobs=jobs)
    assert Resources().engine_settings(8) is None
    settings = Resources(engine="/bin/engine", engine_cache="c.sqlite", engine_timeout=5.0).engine_settings(12)
    assert (settings.path, settings.depth, settings.cache, settings.timeout) == ("/bin/engine", 12, "c.sqlite", 5.0)


def test_engine_families_need_an_engine_in_the_resources(botvinnik_games):
    ranker = MoveRanker(families=("move", "engine"), max_positions=10, prior="none")
    with pytest.raises(ValueError, match="engine family needs an engine path"):
        ranker.fit(first_training_games(botvinnik_games, 3))
    with pytest.raises(TypeError, match="Resources"):
        MoveRanker(families=("move",)).fit(first_training_games(botvinnik_games, 3), resources={"jobs": 2})


def test_a_fitted_ranker_keeps_its_resources_and_a_file_never_holds_them(fitted, tmp_path):
    ranker, cache = fitted
    assert ranker.resources == Resources(search_cache=cache, jobs=2)
    document = ranker.to_dict()
    assert not {"engine", "engine_cache", "search_cache", "jobs"} & set(document["params"])
    path = tmp_path / "r.json.gz"
    ranker.save(path)
    plain = MoveRanker.load(path)
    assert plain.resources == NO_RESOURCES
    cached = MoveRanker.load(path, resources=Resources(search_cache=cache))
    board = chess.Board()
    board.push_san("e4")
    expected = ranker.predict_proba(board)
    for loaded in (plain, cached):
        found = loaded.predict_proba(board)
        assert list(found) == list(expected)
        assert np.allclose(list(found.values()), list(expected.values()))
    assert plain.use(Resources(search_cache=cache)) is plain and plain.resources.search_cache == cache


def test_a_file_with_engine_evidence_is_refused_without_an_engine(fitted):
    ranker, _ = fitted
    document = ranker.to_dict()
    document["families"] = ["move", "engine"]
    document["params"]["families"] = ["move", "engine"]
    with pytest.raises(ModelFileError, match="name the engine program"):
        MoveRanker.from_dict(document)
