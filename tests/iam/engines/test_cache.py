"""The analysis cache's own contract: what is stored comes back, keyed by position, source and depth, checked."""

from __future__ import annotations

import pickle
import sqlite3

import chess
import pytest

from iam.engines.cache import SCHEMA_VERSION, AnalysisCache, CacheError
from iam.errors import IAMError

START = chess.Board()
MATE = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")  # Black is checkmated: no legal moves


def _complete(board: chess.Board, base: int = 0) -> dict[chess.Move, int]:
    """A score for every legal move of ``board``, distinct and ordered as python-chess lists them."""
    return {move: base + index for index, move in enumerate(board.legal_moves)}


def test_a_complete_entry_comes_back_from_a_new_connection_to_the_file(tmp_path):
    """Scores survive closing the cache: another object opening the same file reads them back exactly."""
    path = tmp_path / "cache.sqlite"
    scores = _complete(START, base=-7)
    writer = AnalysisCache(path)
    writer.put(START.epd(), "Engine 1", 8, scores)
    writer.close()
    reader = AnalysisCache(path)
    assert reader.get(START.epd(), "Engine 1", 8, START) == scores
    reader.close()


def test_entries_are_told_apart_by_source_and_depth_and_an_absent_one_is_none(tmp_path):
    """The key is (position, source, depth): a different source or depth is a miss, not another entry's scores."""
    cache = AnalysisCache(None)
    cache.put(START.epd(), "Engine 1", 8, _complete(START, 0))
    cache.put(START.epd(), "Engine 1", 9, _complete(START, 100))
    cache.put(START.epd(), "Engine 2", 8, _complete(START, 200))
    assert set(cache.get(START.epd(), "Engine 1", 8, START).values()) == set(range(20))
    assert min(cache.get(START.epd(), "Engine 1", 9, START).values()) == 100
    assert min(cache.get(START.epd(), "Engine 2", 8, START).values()) == 200
    assert cache.get(START.epd(), "Engine 1", 7, START) is None
    assert cache.get(START.epd(), "Engine 3", 8, START) is None
    assert cache.get("another key", "Engine 1", 8, START) is None


def test_the_first_entry_written_under_a_key_is_kept(tmp_path):
    """Two processes computing alike: the second ``put`` of a key changes nothing."""
    cache = AnalysisCache(tmp_path / "cache.sqlite")
    first, second = _complete(START, 0), _complete(START, 50)
    cache.put(START.epd(), "Engine", 8, first)
    cache.put(START.epd(), "Engine", 8, second)
    assert cache.get(START.epd(), "Engine", 8, START) == first
    cache.close()


def test_a_position_without_legal_moves_stores_an_empty_entry(tmp_path):
    """A checkmate has no legal moves: its complete analysis is empty, and that is a sound entry, not a miss."""
    assert not any(MATE.legal_moves) and MATE.is_checkmate()
    cache = AnalysisCache(None)
    cache.put(MATE.epd(), "Engine", 8, {})
    assert cache.get(MATE.epd(), "Engine", 8, MATE) == {}


def test_a_partial_entry_holds_min_of_lines_and_the_legal_moves():
    """``lines`` k asks for k legal moves, or all of them when the position has fewer than k."""
    board = chess.Board("7k/8/8/8/8/8/8/K7 w - - 0 1")  # the white king in the corner: 3 legal moves
    moves = list(board.legal_moves)
    assert len(moves) == 3
    cache = AnalysisCache(None)
    cache.put(board.epd(), "Engine multipv 5", 4, {move: 10 * i for i, move in enumerate(moves)})
    assert len(cache.get(board.epd(), "Engine multipv 5", 4, board, lines=5)) == 3
    cache.put(board.epd(), "Engine multipv 2", 4, {moves[0]: 1, moves[1]: 2})
    assert cache.get(board.epd(), "Engine multipv 2", 4, board, lines=2) == {moves[0]: 1, moves[1]: 2}
    with pytest.raises(CacheError, match="does not match its legal moves"):
        cache.get(board.epd(), "Engine multipv 2", 4, board, lines=3)


def test_an_entry_checked_against_another_position_is_refused_with_the_label_and_error_class(tmp_path):
    """The stored moves are checked against the board asked about; the error is the class and label given."""

    class MyError(IAMError):
        pass

    path = tmp_path / "cache.sqlite"
    cache = AnalysisCache(path, label="my cache", error=MyError)
    cache.put("key", "Engine", 8, _complete(START))
    after_e4 = chess.Board()
    after_e4.push_san("e4")
    with pytest.raises(MyError, match=f"my cache {path} is damaged: the entry for key") as error:
        cache.get("key", "Engine", 8, after_e4)
    assert "\n" not in str(error.value)
    cache.close()


@pytest.mark.parametrize("text", ["[1, 2]", "{\"e2e4\": \"x\"}", "{\"zz\": 1}", "not json"])
def test_an_unreadable_entry_is_damaged_in_one_line(text):
    """A stored text that is not a mapping of UCI moves to integers is refused as damaged."""
    cache = AnalysisCache(None)
    cache._run("INSERT INTO analyses VALUES (?, ?, ?, ?)", ("key", "Engine", 1, text))
    with pytest.raises(CacheError, match="is damaged: unreadable entry for key") as error:
        cache.get("key", "Engine", 1, START)
    assert "\n" not in str(error.value)


def test_an_engine_name_is_served_while_its_fingerprint_is_unchanged():
    """``engine_for`` answers the remembered name for the same fingerprint, or for no fingerprint (gone)."""
    cache = AnalysisCache(None)
    assert cache.engine_for("/bin/engine", (10, 20)) is None
    cache.remember_engine("/bin/engine", (10, 20), "Engine 1.0")
    assert cache.engine_for("/bin/engine", (10, 20)) == "Engine 1.0"
    assert cache.engine_for("/bin/engine", None) == "Engine 1.0"
    assert cache.engine_for("/bin/engine", (10, 21)) is None
    assert cache.engine_for("/bin/engine", (11, 20)) is None
    assert cache.engine_for("/bin/other", (10, 20)) is None
    cache.remember_engine("/bin/engine", (11, 30), "Engine 2.0")  # replaced, not added
    assert cache.engine_for("/bin/engine", (11, 30)) == "Engine 2.0"
    assert cache.engine_for("/bin/engine", (10, 20)) is None


def test_a_new_file_is_stamped_as_this_cache_of_this_version_in_wal_mode(tmp_path):
    """The file's SQLite header says what it is: the application id, the schema version, write-ahead logging."""
    path = tmp_path / "deeper" / "folder" / "cache.sqlite"
    AnalysisCache(path).close()  # the missing folders are created
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert connection.execute("PRAGMA application_id").fetchone()[0] == int.from_bytes(b"IAME", "big")
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"analyses", "engines"}


def test_a_folder_in_place_of_the_file_is_refused_in_one_line(tmp_path):
    (tmp_path / "cache.sqlite").mkdir()
    with pytest.raises(CacheError, match="is a folder, not a file") as error:
        AnalysisCache(tmp_path / "cache.sqlite", label="engine cache")
    assert str(error.value).startswith(f"engine cache {tmp_path / 'cache.sqlite'} ") and "\n" not in str(error.value)


def test_an_older_schema_version_is_refused_too(tmp_path):
    """Any version other than this one is refused, older as well as newer."""
    path = tmp_path / "cache.sqlite"
    AnalysisCache(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    with pytest.raises(CacheError, match=f"has schema version {SCHEMA_VERSION - 1}, this version reads"):
        AnalysisCache(path)


def test_a_file_cache_travels_to_another_process_and_an_in_memory_one_does_not(tmp_path):
    """Pickling a file cache leaves the connection behind; the copy opens its own and reads the same scores."""
    path = tmp_path / "cache.sqlite"
    cache = AnalysisCache(path, label="search cache")
    cache.put(START.epd(), "Search v1", 2, _complete(START))
    copy = pickle.loads(pickle.dumps(cache))
    assert copy.label == "search cache" and copy.path == path and copy._connection is None
    assert copy.get(START.epd(), "Search v1", 2, START) == _complete(START)
    copy.close()
    cache.close()
    with pytest.raises(TypeError, match="in-memory"):
        pickle.dumps(AnalysisCache(None))


def test_a_closed_file_cache_reopens_when_used_again(tmp_path):
    cache = AnalysisCache(tmp_path / "cache.sqlite")
    cache.close()
    cache.close()  # closing twice is harmless
    cache.put(START.epd(), "Engine", 1, _complete(START))
    assert cache.get(START.epd(), "Engine", 1, START) == _complete(START)
    cache.close()


def test_a_read_only_file_keeps_nothing_new_and_says_so_once(tmp_path, monkeypatch, capsys):
    """A file that may not be written is read; new entries and engine names are dropped with one note."""
    import iam.engines.cache as module

    path = tmp_path / "cache.sqlite"
    writer = AnalysisCache(path)
    writer.put(START.epd(), "Engine", 1, _complete(START))
    writer.close()
    monkeypatch.setattr(module.os, "access", lambda *args, **kwargs: False)
    reader = AnalysisCache(path, label="engine cache")
    assert reader.read_only
    reader.put(START.epd(), "Engine", 2, _complete(START))
    reader.remember_engine("/bin/engine", (1, 2), "Engine")
    assert reader.get(START.epd(), "Engine", 1, START) == _complete(START)
    assert reader.get(START.epd(), "Engine", 2, START) is None and reader.engine_for("/bin/engine", None) is None
    reader.close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"iam: note: engine cache {path} is read-only")
