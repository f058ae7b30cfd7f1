"""The search family's scores on disk: exactly the search's values, found again without searching."""

from __future__ import annotations

import sqlite3

import chess
import numpy as np
import pytest

import iam.evidence.search_cache as search_cache
from iam.engines.analysis import EngineAnalyser
from iam.engines.cache import CacheError
from iam.evidence.evidence import Evidence
from iam.evidence.search_cache import StoredSearchScores, history_key, search_source
from iam.games.bundled import bundled_pgn, manifest
from iam.games.pgn import load_player_games
from iam.measure.identify import identify
from iam.priors.positions import player_positions
from iam.ranker import MoveRanker
from iam.runtime import Runtime
from search.chess.scoring import score_root_moves

BOARDS = [
    chess.Board(),
    chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"),  # mate in one
    chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"),  # a hanging queen
]


def _shuffled() -> chess.Board:
    """White a queen up; Black's Ke8 would repeat the position a third time (a draw)."""
    board = chess.Board("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1")
    for uci in ("e1e2", "e8f8", "e2e1", "f8e8", "e1e2", "e8f8", "e2e1"):
        board.push_uci(uci)
    return board


def _no_search(*args, **kwargs):
    raise AssertionError("searched although the scores were on disk")


@pytest.mark.parametrize("depth", [1, 2])
def test_stored_scores_are_the_search_values_in_their_order_and_served_from_disk(tmp_path, monkeypatch, depth):
    path = tmp_path / "search.sqlite"
    stored = StoredSearchScores(path)
    fresh = [score_root_moves(board, depth) for board in BOARDS]
    assert [stored.scores(board, depth) for board in BOARDS] == fresh
    assert (stored.hits, stored.misses) == (0, len(BOARDS))
    stored.close()
    monkeypatch.setattr(search_cache, "score_root_moves", _no_search)
    again = StoredSearchScores(path)  # as another run would open the file
    served = [again.scores(board, depth) for board in BOARDS]
    assert served == fresh and [list(s) for s in served] == [list(s) for s in fresh]  # same moves, same order
    assert (again.hits, again.misses) == (len(BOARDS), 0)
    again.close()


def test_the_moves_since_the_last_capture_are_part_of_the_key(tmp_path):
    repeated = _shuffled()
    alone = chess.Board(repeated.fen())  # the same position without its history
    back = chess.Move.from_uci("f8e8")
    with_history, without = score_root_moves(repeated, 1), score_root_moves(alone, 1)
    assert with_history[back] == 0 and without[back] < -500  # the repetition saves Black
    assert history_key(repeated) != history_key(alone)
    assert history_key(repeated).startswith(alone.epd() + " 7 e1e2 e8f8")
    stored = StoredSearchScores(tmp_path / "search.sqlite")
    assert stored.scores(repeated, 1) == with_history
    assert stored.scores(alone, 1) == without
    assert stored.misses == 2


def test_scores_of_another_search_version_are_never_served(tmp_path):
    path = tmp_path / "search.sqlite"
    board = BOARDS[2]
    stored = StoredSearchScores(path)
    stored.cache.put(history_key(board), "iam-search 0000000000000000 q", 1, {move: 0 for move in board.legal_moves})
    assert stored.scores(board, 1) == score_root_moves(board, 1) and stored.misses == 1
    assert search_source() != search_source(quiescence=False) and search_source().startswith("iam-search ")
    assert StoredSearchScores(path, quiescence=False).scores(board, 1) == score_root_moves(board, 1, quiescence=False)


def test_finished_games_are_not_stored_and_one_file_serves_an_engine_cache_too(tmp_path):
    path = tmp_path / "shared.sqlite"
    stored = StoredSearchScores(path)
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert stored.scores(mated, 2) == {}
    stored.scores(BOARDS[0], 1)
    stored.close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM analyses").fetchone()[0] == 1
    EngineAnalyser(tmp_path / "no-engine", cache=path).close()  # the engine cache opens the same file


def test_a_file_that_is_not_a_cache_is_one_error_line(tmp_path):
    path = tmp_path / "games.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE games (white TEXT)")
    with pytest.raises(CacheError, match="search cache .* another kind") as error:
        StoredSearchScores(path)
    assert "\n" not in str(error.value)


def test_a_damaged_entry_is_refused(tmp_path):
    path = tmp_path / "search.sqlite"
    stored = StoredSearchScores(path)
    board = BOARDS[2]
    stored.cache.put(history_key(board), stored.source, 1, {chess.Move.from_uci("a1a2"): 5})
    with pytest.raises(CacheError, match="does not match its legal moves"):
        stored.scores(board, 1)


@pytest.fixture(scope="module")
def two_players():
    """Two bundled masters' first few fitting and test games (real positions: short quiescence)."""
    found = {}
    for entry in manifest()[:2]:
        training, _ = load_player_games([bundled_pgn(entry.file)], player=entry.player, split="train", max_games=4)
        test, _ = load_player_games([bundled_pgn(entry.file)], player=entry.player, split="test", max_games=2)
        found[entry.player] = (training, test)
    return found


def test_evidence_and_rankers_give_the_same_features_with_the_cache(tmp_path, monkeypatch, two_players):
    player, (training, _) = next(iter(two_players.items()))
    positions = player_positions(training[:3], sample=12, random_state=1)
    path = str(tmp_path / "search.sqlite")
    plain = Evidence(families=("move", "search"), search_depth=1).matrices(positions)
    cached = Evidence(families=("move", "search"), search_depth=1, search_cache=path)
    first = cached.matrices(positions)
    cached.close()
    settings = dict(families=("move", "search"), search_depth=1, prior="none", max_positions=40, folds=2)
    fitted = MoveRanker(**settings).fit(training, player=player)
    with_cache = MoveRanker(**settings).fit(training, player=player, runtime=Runtime(search_cache=path))
    monkeypatch.setattr(search_cache, "score_root_moves", _no_search)
    again = Evidence(families=("move", "search"), search_depth=1, search_cache=path).matrices(positions)
    for a, b, c in zip(plain, first, again):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(fitted.coef_, with_cache.coef_)
    board = positions[0].board
    assert with_cache.predict_proba(board) == fitted.predict_proba(board)  # served from disk: no search allowed


def test_identification_with_the_cache_in_two_processes_scores_alike(tmp_path, two_players):
    names = tuple(two_players)
    models = [
        MoveRanker(families=("move", "search"), search_depth=1, prior="none", max_positions=40, folds=2).fit(
            two_players[name][0], player=name
        )
        for name in names
    ]
    query = next(iter(two_players.values()))[1]
    path = str(tmp_path / "search.sqlite")
    plain = identify(query, models, names, repertoire=False)
    cold = identify(query, models, names, repertoire=False, runtime=Runtime(search_cache=path, jobs=2))
    warm = identify(query, models, names, repertoire=False, runtime=Runtime(search_cache=path))
    np.testing.assert_allclose(cold.scores, plain.scores, rtol=0, atol=1e-12)
    np.testing.assert_allclose(warm.scores, plain.scores, rtol=0, atol=1e-12)
    with sqlite3.connect(path) as connection:
        stored = connection.execute("SELECT count(*) FROM analyses").fetchone()[0]
    assert 0 < stored <= plain.moves


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_an_entry_holding_a_non_finite_score_is_refused_in_one_line(tmp_path, value):
    path = tmp_path / "search.sqlite"
    stored = StoredSearchScores(path)
    board = BOARDS[2]
    entry = "{" + ",".join(f'"{move.uci()}": {value}' for move in board.legal_moves) + "}"
    stored.cache._run("INSERT INTO analyses VALUES (?, ?, ?, ?)", (history_key(board), stored.source, 1, entry))
    with pytest.raises(CacheError, match="damaged: unreadable entry") as error:
        stored.scores(board, 1)
    assert "\n" not in str(error.value)


def test_a_cache_under_a_file_names_that_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    for path in (tmp_path / "afile" / "sub", tmp_path / "afile" / "deeper" / "sub"):
        with pytest.raises(CacheError, match=f"{tmp_path / 'afile'} is a file, not a folder") as error:
            StoredSearchScores(path)
        assert "\n" not in str(error.value)


def test_a_read_only_cache_is_read_and_new_scores_are_not_kept(tmp_path, monkeypatch, capsys):
    import iam.engines.cache

    path = tmp_path / "search.sqlite"
    stored = StoredSearchScores(path)
    expected = stored.scores(BOARDS[1], 1)
    stored.close()
    before = path.read_bytes()
    monkeypatch.setattr(iam.engines.cache.os, "access", lambda *args, **kwargs: False)  # as for a file of another user
    reader = StoredSearchScores(path)
    assert reader.cache.read_only and reader.scores(BOARDS[1], 1) == expected and reader.hits == 1
    assert reader.scores(BOARDS[2], 1) == score_root_moves(BOARDS[2], 1) and reader.scores(BOARDS[0], 1)
    assert reader.misses == 2 and reader.cache.get(history_key(BOARDS[2]), reader.source, 1, BOARDS[2]) is None
    reader.close()
    err = capsys.readouterr().err
    assert err.count("iam: note: search cache") == 1 and "read-only" in err
    assert path.read_bytes() == before
    (tmp_path / "empty.sqlite").touch()
    with pytest.raises(CacheError, match="read-only and holds no cache"):
        StoredSearchScores(tmp_path / "empty.sqlite")
