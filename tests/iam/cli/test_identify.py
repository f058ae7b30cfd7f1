"""``iam identify``: the right candidate first, and bad input as one error line with exit code 2."""

from __future__ import annotations

import gzip
import json

import pytest

from iam.cli import main
from iam.games.pgn import load_player_games
from iam.ranker import MoveRanker

NAMES = ("Alpha Ann", "Beta Bob")


@pytest.fixture(scope="module")
def model_files(synthetic_model_files, synthetic_players, tmp_path_factory):
    """IAM model files of both invented players (training games only), and a ranker file."""
    paths = dict(synthetic_model_files)
    games, _ = load_player_games([synthetic_players["Beta Bob"]], player="Beta Bob", split="train")
    paths["ranker"] = tmp_path_factory.mktemp("ranker") / "ranker.json"
    MoveRanker(families=("move",), prior="none", max_positions=60).fit(games).save(paths["ranker"])
    return paths


@pytest.fixture(scope="module")
def query_games(synthetic_players, tmp_path_factory):
    """Alpha Ann's test games (every fifth game of her file) as a file of their own."""
    text = synthetic_players["Alpha Ann"].read_text(encoding="utf-8")
    games = ["[Event" + part for part in text.split("[Event")[1:]]
    path = tmp_path_factory.mktemp("query") / "query.pgn"
    path.write_text("".join(game for i, game in enumerate(games) if i % 5 == 4), encoding="utf-8")
    return path


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_identify_ranks_the_player_first(capsys, model_files, query_games):
    code, out, _ = _run(
        capsys, "identify", query_games, "--models", model_files["Beta Bob"], model_files["Alpha Ann"], "--json",
        "--quiet", "--top", "2",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["player"] == "Alpha Ann" and payload["games"] == 6
    assert [c["candidate"] for c in payload["candidates"]] == ["Alpha Ann", "Beta Bob"]
    assert payload["candidates"][0]["probability"] > 0.99 and not payload["temperature_fitted"]
    assert len(payload["decisive_positions"]) == 2
    # without the repertoire every position is the models' alone: the first moves score differently
    code, out, _ = _run(
        capsys, "identify", query_games, "--models", model_files["Beta Bob"], model_files["Alpha Ann"], "--json",
        "--quiet", "--no-repertoire",
    )
    plain = json.loads(out)
    assert code == 0 and plain["moves"] == payload["moves"]
    assert plain["candidates"][0]["candidate"] == "Alpha Ann"
    assert plain["candidates"][0]["log_likelihood"] != payload["candidates"][0]["log_likelihood"]


def test_identify_with_models_trained_now(capsys, synthetic_players, query_games):
    files = [synthetic_players[name] for name in NAMES]
    code, out, _ = _run(
        capsys, "identify", query_games, "--players", *NAMES, "--pgn", *files, "--predictor", "iam",
        "--max-positions", "10", "--json", "--quiet",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["candidates"][0]["candidate"] == "Alpha Ann" and payload["temperature_fitted"]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("empty", "PGN file is empty"),
        ("one game", "cannot determine the side"),
        ("mixed kinds", "different kinds"),
        ("other version", "version 2"),
        ("both sources", "name the candidates"),
        ("bad temperature", "--temperature must be a positive number"),
    ],
)
def test_bad_input_is_one_error_line(capsys, tmp_path, model_files, query_games, case, message):
    models = [model_files["Alpha Ann"], model_files["Beta Bob"]]
    games = query_games
    extra = []
    if case == "empty":
        games = tmp_path / "empty.pgn"
        games.write_text("", encoding="utf-8")
    elif case == "one game":
        games = tmp_path / "one.pgn"
        games.write_text("[Event" + query_games.read_text(encoding="utf-8").split("[Event")[1], encoding="utf-8")
    elif case == "mixed kinds":
        models = [model_files["Alpha Ann"], model_files["ranker"]]
    elif case == "other version":
        document = json.loads(model_files["Beta Bob"].read_text(encoding="utf-8"))
        document["version"] = 2
        models = [model_files["Alpha Ann"], tmp_path / "v2.json.gz"]
        with gzip.open(models[1], "wt", encoding="utf-8") as handle:
            json.dump(document, handle)
    elif case == "both sources":
        extra = ["--players", "X"]
    elif case == "bad temperature":
        extra = ["--temperature", "0"]
    code, out, err = _run(capsys, "identify", games, "--models", *models, *extra, "--quiet")
    assert code == 2 and out == ""
    assert err.startswith("iam: error: ") and message in err and err.count("\n") == 1


def test_search_cache_keeps_the_rankers_search_scores_and_changes_nothing(capsys, tmp_path):
    import sqlite3

    from iam.games.bundled import bundled_pgn, manifest

    paths = []
    for entry in manifest()[:2]:
        games, _ = load_player_games([bundled_pgn(entry.file)], player=entry.player, split="train", max_games=4)
        paths.append(tmp_path / f"{entry.player}.json")
        ranker = MoveRanker(families=("move", "search"), search_depth=1, prior="none", max_positions=30, folds=2)
        ranker.fit(games).save(paths[-1])
    text = bundled_pgn(manifest()[0].file).read_text(encoding="utf-8")
    query = tmp_path / "query.pgn"
    query.write_text("".join("[Event" + part for part in text.split("[Event")[1:3]), encoding="utf-8")
    cache = tmp_path / "search.sqlite"
    plain = _run(capsys, "identify", query, "--models", *paths, "--json", "--quiet")
    cold = _run(capsys, "identify", query, "--models", *paths, "--json", "--quiet", "--search-cache", cache)
    warm = _run(capsys, "identify", query, "--models", *paths, "--json", "--quiet", "--search-cache", cache)
    assert plain[0] == cold[0] == warm[0] == 0 and plain[1] == cold[1] == warm[1]
    with sqlite3.connect(cache) as connection:
        assert connection.execute("SELECT count(*) FROM analyses").fetchone()[0] > 0
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE games (white TEXT)")
    code, out, err = _run(capsys, "identify", query, "--models", *paths, "--quiet", "--search-cache", foreign)
    assert code == 2 and out == "" and "search cache" in err and err.count("\n") == 1


def test_the_games_to_identify_take_the_header_filters(capsys, model_files, query_games):
    candidates = ("--models", model_files["Beta Bob"], model_files["Alpha Ann"])
    code, out, _ = _run(capsys, "identify", query_games, *candidates, "--json", "--quiet", "--since", "1950")
    payload = json.loads(out)
    assert code == 0 and payload["games"] == 2  # of the six, those of 1952 and 1954
    assert payload["report"]["filtered"] == {"before the dates": 4}
    code, _, err = _run(capsys, "identify", query_games, *candidates, "--quiet", "--until", "1900")
    assert code == 2 and err.count("\n") == 1 and "left by the filters" in err
