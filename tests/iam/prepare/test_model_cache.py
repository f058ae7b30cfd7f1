"""The default model is fitted once per set of his games and read back after: same games, same model."""

from __future__ import annotations

import dataclasses

import chess
import pytest

from iam.errors import DataError
from iam.prepare import model_cache
from iam.prepare.model_cache import cached_default_model, model_key
from iam.ranker import MoveRanker
from iam.runtime import Runtime

ENGINE = Runtime(engine="/bin/engine", engine_cache="cache.sqlite")


@pytest.fixture(scope="module")
def games(bundled_head):
    from iam.games.pgn import load_player_games

    found, _ = load_player_games([bundled_head(6)], player="Botvinnik")
    return found


@pytest.fixture
def fits(monkeypatch, games):
    """Counts the fits; each fits a small ranker (the move family, 40 positions) in place of the default one."""
    calls = []

    def fit(played, player, runtime=Runtime(), **_):
        calls.append(len(played) if runtime.engine is None else (len(played), runtime.engine))
        return MoveRanker(families=("move",), max_positions=40, prior="none").fit(played, player=player)

    monkeypatch.setattr(model_cache, "fit_default_model", fit)
    return calls


def test_the_second_dossier_reads_the_model_the_first_fitted(games, fits, tmp_path):
    first, kept_first = cached_default_model(games, "Botvinnik", tmp_path)
    second, kept_second = cached_default_model(games, "Botvinnik", tmp_path)
    assert (kept_first, kept_second) == (False, True) and fits == [len(games)]
    assert list(tmp_path.glob("botvinnik-*.json.gz"))
    board = chess.Board()
    board.push_uci("e2e4")
    assert second.predict_proba(board) == pytest.approx(first.predict_proba(board))


def test_other_games_or_seed_fit_another_model(games, fits, tmp_path):
    cached_default_model(games, "Botvinnik", tmp_path)
    cached_default_model(games[:-1], "Botvinnik", tmp_path)
    cached_default_model(games, "Botvinnik", tmp_path, seed=1)
    assert fits == [len(games), len(games) - 1, len(games)]
    renamed = [dataclasses.replace(games[0], date="1999.01.01"), *games[1:]]
    assert model_key(renamed, "Botvinnik", 0) != model_key(games, "Botvinnik", 0)
    # their numbers order them
    assert model_key(list(reversed(games)), "Botvinnik", 0) == model_key(games, "Botvinnik", 0)


def test_a_damaged_file_is_fitted_again(games, fits, tmp_path):
    cached_default_model(games, "Botvinnik", tmp_path)
    (path,) = tmp_path.glob("botvinnik-*.json.gz")
    path.write_bytes(b"\x1f\x8b not gzip at all")
    model, kept = cached_default_model(games, "Botvinnik", tmp_path)
    assert not kept and fits == [len(games), len(games)] and MoveRanker.load(path).player_ == "Botvinnik"


def test_an_unwritable_folder_is_refused_before_the_fit(games, fits, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(DataError, match="cannot keep the fitted model in"):
        cached_default_model(games, "Botvinnik", blocker / "models")
    assert fits == []


def test_a_model_reading_an_engine_is_kept_apart(games, fits, tmp_path, monkeypatch):
    loaded = []
    monkeypatch.setattr(
        model_cache.MoveRanker,
        "load",
        classmethod(lambda cls, path, runtime=None: loaded.append(runtime) or "kept"),
    )
    cached_default_model(games, "Botvinnik", tmp_path)
    cached_default_model(games, "Botvinnik", tmp_path, runtime=ENGINE)
    assert fits == [len(games), (len(games), "/bin/engine")] and len(list(tmp_path.glob("botvinnik-*.json.gz"))) == 2
    assert cached_default_model(
        games, "Botvinnik", tmp_path, runtime=ENGINE
    ) == ("kept", True)
    # read back to run on the engine
    assert (loaded[0].engine, loaded[0].engine_cache) == ("/bin/engine", "cache.sqlite")
    assert len({model_key(games, "Botvinnik", 0, engine) for engine in (None, "/bin/engine", "/bin/other")}) == 3
