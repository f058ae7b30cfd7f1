"""``iam prior build``: a population prior from a collection, with its provenance, on a cluster as locally."""

from __future__ import annotations

import gzip
import json

import pytest

from iam import __version__
from iam.cli import main
from iam.games.bundled import bundled_pgn, manifest
from iam.games.pgn import load_player_games
from iam.priors.artefacts import feature_code_digest
from iam.priors.population import load_prior

SMALL = ("--players", "2", "--min-games", "40", "--families", "move,population", "--positions", "40",
         "--search-depth", "1", "--no-trees", "--quiet", "--chunk-mb", "0.05")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Two masters' first 100 games each, as one PGN file."""
    folder = tmp_path_factory.mktemp("collection")
    texts = []
    for entry in manifest():
        if entry.player in ("Botvinnik", "Smyslov"):
            text = bundled_pgn(entry.file).read_text(encoding="utf-8")
            texts += ["[Event " + game for game in text.split("[Event ")[1:101]]
    path = folder / "two.pgn"
    path.write_text("".join(texts), encoding="utf-8")
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def local_prior(collection, tmp_path_factory):
    out = tmp_path_factory.mktemp("prior") / "prior.json.gz"
    assert main(["prior", "build", str(collection), *SMALL, "--since", "1930", "--out", str(out)]) == 0
    return out


def test_a_prior_from_a_collection_keeps_its_provenance_and_only_training_games(collection, local_prior):
    prior = load_prior(local_prior)
    source = prior.settings["source"]
    assert prior.settings["toolkit"] == __version__ and prior.settings["feature_code"] == feature_code_digest()
    assert source["files"] == ["two.pgn"] and source["filters"] == {"since": [1930]}
    assert source["read"]["filtered"]["before the dates"] > 0
    players = sorted(source["players"])
    assert players == ["Botvinnik, Mikhail", "Smyslov, Vassily"]
    for name in players:  # his games that pass the filter, numbered among all his games; test games left out
        games, _ = load_player_games([collection], player=name)
        kept = [game for game in games if game.date[:4] >= "1930"]
        assert source["players"][name] == len(kept)
        training = [game for game in kept if game.split == "train"]
        dropped = prior.settings["dropped_test_games_of_others"][name]  # a game between them, a test game of the other
        assert prior.settings["masters"][name] + dropped == len(training)
    assert sum(prior.settings["dropped_test_games_of_others"].values()) > 0
    # the whole population and each player left out, at every family set asked for
    withouts = {ranker.without for ranker in prior.rankers}
    assert withouts == {None, *players}
    assert {ranker.families for ranker in prior.rankers} == {("move", "population"), ("move",), ("population",)}
    assert (local_prior.parent / "prior_fits.csv").read_text().count("\n") == len(prior.rankers) + 1


def test_train_pulls_towards_the_prior_file(collection, local_prior, tmp_path, capsys):
    model = tmp_path / "botvinnik.json.gz"
    code, _, err = _run(capsys, "train", collection, "--player", "Botvinnik", "--prior", local_prior, "--families",
                        "move,population", "--search-depth", "1", "--train-positions", "60", "--out", model, "--quiet")
    assert code == 0, err
    document = json.loads(gzip.open(model).read())
    prior = load_prior(local_prior)
    pooled = prior.weights_for(("move", "population"), "Botvinnik, Mikhail")
    without = next(
        r for r in prior.rankers if r.without == "Botvinnik, Mikhail" and r.families == ("move", "population")
    )
    assert pooled == without.weights
    fitted = document["fitted"]["prior_weights"] if "fitted" in document else document["prior_weights"]
    assert fitted == pytest.approx(without.weights)
    code, _, err = _run(
        capsys, "train", collection, "--player", "Botvinnik", "--prior", tmp_path / "none.json", "--out", model
    )
    assert code == 2 and err.strip().splitlines()[-1].startswith("iam: error:") and "none.json" in err


@pytest.mark.slow
def test_a_cluster_builds_the_same_prior_byte_for_byte(collection, local_prior, cluster, tmp_path, monkeypatch):
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    out = tmp_path / "remote.json.gz"
    argv = ["prior", "build", str(collection), *SMALL, "--since", "1930", "--scheduler", cluster, "--out", str(out)]
    assert main(argv) == 0
    assert gzip.decompress(out.read_bytes()) == gzip.decompress(local_prior.read_bytes())
    assert (tmp_path / "remote_fits.csv").read_bytes() == (local_prior.parent / "prior_fits.csv").read_bytes()


def test_bad_collections_and_options_are_one_error_line(collection, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IAM_SCHEDULER_TIMEOUT", "1")
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    parquet.write_table(pyarrow.table({"White": ["a"], "Black": ["b"], "moves": ["e4 e5"]}), tmp_path / "bad.parquet")
    cases = [
        ((tmp_path / "bad.parquet", "--out", tmp_path / "p.json"), "no column movetext"),
        ((collection, "--scheduler", "tcp://127.0.0.1:1", "--out", tmp_path / "p.json"), "cannot reach the Dask "
        "scheduler"),
        ((collection, "--search-depth", "3,x", "--out", tmp_path / "p.json"), "--search-depth"),
        ((collection, "--min-games", "100000", "--out", tmp_path / "p.json"), "no player has 100000 or more games"),
        (("--bundled", collection, "--out", tmp_path / "p.json"), "--bundled takes no game files"),
        ((collection, "--out", collection), "--out"),
    ]
    for argv, message in cases:
        code, out, err = _run(capsys, "prior", "build", *argv)
        lines = err.strip().splitlines()
        assert code == 2 and lines[-1].startswith("iam: error:") and message in lines[-1], (argv, err)
        assert not (tmp_path / "p.json").exists()


def test_a_damaged_zstd_frame_is_counted_and_the_rest_is_used(collection, tmp_path, capsys):
    zstandard = pytest.importorskip("zstandard")
    data = collection.read_bytes()
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    frames = [compressor.compress(data[start : start + 20_000]) for start in range(0, len(data), 20_000)]
    damaged = bytearray(b"".join(frames))
    middle = sum(map(len, frames[: len(frames) // 2]))
    damaged[middle + 20 : middle + 40] = bytes(20)
    (tmp_path / "two.pgn.zst").write_bytes(bytes(damaged))
    code, out, err = _run(capsys, "prior", "build", tmp_path / "two.pgn.zst", *SMALL, "--out", tmp_path / "p.json")
    assert code == 0, err
    assert "damaged compressed data: 2" in err and "cannot be decompressed (a damaged zstd frame)" in err
    read = load_prior(tmp_path / "p.json").settings["source"]["read"]
    assert read["skipped"] == {"damaged compressed data": 2} and 150 < read["used"] < 200


@pytest.mark.parametrize("target", ["out", "fits"])
def test_a_pipe_as_the_prior_or_its_table_of_fits_is_refused_and_kept(capsys, tmp_path, target):
    """A device or pipe named by --out (or standing where its table of fits goes) is refused before any work and
    stays what it was: writing renames a new file over the path, which would replace it."""
    import os
    import stat

    out = tmp_path / "prior.json.gz"
    pipe = out if target == "out" else tmp_path / "prior_fits.csv"
    os.mkfifo(pipe)
    code, _, err = _run(capsys, "prior", "build", "--bundled", *SMALL, "--out", out)
    assert code != 0 and "not a regular file" in err and len(err.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
