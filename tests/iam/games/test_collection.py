"""Game collections: chunks that split into exactly the file's games, in every format, and damage counted."""

from __future__ import annotations

import datetime
import gzip

import pytest
import zstandard

from iam.errors import DataError
from iam.games.collection import (
    DAMAGED,
    CollectionReport,
    map_chunks,
    next_game_start,
    parquet_game_texts,
    plan_chunks,
)
from iam.games.filters import GameConditions, GameFilter, parse_date
from iam.games.pgn import load_player_games
from iam.runtime import Runtime


def _keys(games):
    return [
        (
            game.white,
            game.black,
            game.headers.get("Date") or game.headers.get("UTCDate", ""),
            tuple(m.uci() for m in game.moves),
        )
        for game in games
    ]


def _read(paths, chunk_bytes=1 << 30, jobs=1, games_filter=GameFilter()):
    games, total = [], CollectionReport()
    for found, report in map_chunks(_keys, paths, games_filter, Runtime(jobs=jobs), chunk_bytes=chunk_bytes):
        games += found
        total.add(report)
    return games, total


@pytest.fixture(scope="module")
def head(bundled_head):
    """Botvinnik's first 120 bundled games as a file, and the games as the player reader reads them."""
    path = bundled_head(120)
    games, _ = load_player_games([path], player="Botvinnik")
    return path, [(g.white, g.black, g.date, tuple(m.uci() for m in g.moves)) for g in games]


def test_chunks_of_any_size_split_into_the_files_games(head):
    path, expected = head
    whole, report = _read([path])
    assert whole == expected and report.chunks == 1 and report.used == 120
    for size in (1, 997, 20_000):
        games, report = _read([path], chunk_bytes=size)
        assert games == expected, size
        assert report.chunks > 1 and report.games == 120 and report.used == 120
    games, _ = _read([path, path], chunk_bytes=9_000, jobs=2)
    assert games == expected + expected


def test_a_cut_falls_on_a_tag_line_after_movetext_only():
    text = b'[Event "a"]\n[White "x"]\n\n1. e4 e5 *\n\n%escape\n[Event "b"]\n1. d4 *\n'
    assert text[next_game_start(text, 0) :].startswith(b'[Event "b"]')
    assert next_game_start(text, text.index(b"[Event \"b\"]")) == len(text)
    assert next_game_start(text[:30], 0, final=False) is None


def test_compressed_files_read_alike(head, tmp_path):
    path, expected = head
    data = path.read_bytes()
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    frames = [compressor.compress(data[start : start + 9_000]) for start in range(0, len(data), 9_000)]
    (tmp_path / "frames.pgn.zst").write_bytes(b"".join(frames))
    (tmp_path / "one.pgn.zst").write_bytes(compressor.compress(data))
    (tmp_path / "games.pgn.gz").write_bytes(gzip.compress(data))
    for name in ("frames.pgn.zst", "one.pgn.zst", "games.pgn.gz"):
        games, report = _read([tmp_path / name], chunk_bytes=15_000, jobs=2)
        assert games == expected and report.chunks > 1, name


def test_a_damaged_frame_costs_its_own_games_counted_and_named(head, tmp_path):
    path, expected = head
    data = path.read_bytes()
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    pieces = [data[start : start + 9_000] for start in range(0, len(data), 9_000)]
    frames = [compressor.compress(piece) for piece in pieces]
    damaged = bytearray(b"".join(frames))
    start = sum(map(len, frames[:4]))
    damaged[start + 30 : start + 60] = bytes(30)
    (tmp_path / "damaged.pgn.zst").write_bytes(bytes(damaged))
    games, report = _read([tmp_path / "damaged.pgn.zst"], chunk_bytes=15_000)
    # every game whose text lies outside the damaged frame is read, in order
    before, after = data[: 4 * 9_000], data[5 * 9_000 :]
    whole_before = before.count(b"[Event ") - 1
    whole_after = after[next_game_start(after, 0) :].count(b"[Event ")
    assert games[:whole_before] == expected[:whole_before]
    assert games[whole_before:] == expected[len(expected) - whole_after :]
    assert report.skipped == {DAMAGED: 2}
    assert report.games == report.used + 2
    assert any(f"bytes {start}-{start + len(frames[4])}" in note for note in report.notes)


def test_a_truncated_zstd_file_keeps_what_came_before(head, tmp_path):
    path, expected = head
    data = path.read_bytes()
    compressor = zstandard.ZstdCompressor()
    frames = [compressor.compress(data[start : start + 9_000]) for start in range(0, len(data), 9_000)]
    whole = b"".join(frames)
    (tmp_path / "cut.pgn.zst").write_bytes(whole[: len(whole) - len(frames[-1]) // 2])
    games, report = _read([tmp_path / "cut.pgn.zst"])
    assert games == expected[: len(games)] and len(games) >= len(expected) - 10
    assert report.skipped[DAMAGED] == 1 and "cannot be decompressed" in report.notes[0]


def _lichess_parquet(path, head_path, *, lower=False, drop=()):
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    games, _ = load_player_games([head_path], player="Botvinnik")
    rows = {
        "Event": [g.event for g in games],
        "White": [g.white for g in games],
        "Black": [g.black for g in games],
        "Result": [g.tags.get("Result", "*") for g in games],
        "WhiteElo": [2000 + 10 * n for n in range(len(games))],
        "BlackElo": [1900 + 10 * n for n in range(len(games))],
        "UTCDate": [datetime.date(2024, 1, 1) + datetime.timedelta(days=n) for n in range(len(games))],
        "TimeControl": ["180+2" if n % 2 else "900+10" for n in range(len(games))],
        "movetext": [_movetext(g) for g in games],
    }
    rows = {(name.lower() if lower else name): values for name, values in rows.items() if name not in drop}
    parquet.write_table(pyarrow.table(rows), path, row_group_size=25)
    return games


def _movetext(game):

    board = game.board()
    return " ".join(board.variation_san(list(game.moves)).split()) + " " + game.tags.get("Result", "*")


def test_parquet_row_groups_are_chunks_and_columns_are_tags(head, tmp_path):
    path, _ = head
    games = _lichess_parquet(tmp_path / "games.parquet", path)
    found, report = _read([tmp_path / "games.parquet"], jobs=2)
    assert report.chunks == 5 and report.used == 120
    assert [moves for *_, moves in found] == [tuple(m.uci() for m in g.moves) for g in games]
    assert found[3][2] == "2024.01.04"
    first = next(parquet_game_texts(tmp_path / "games.parquet"))
    assert '[WhiteElo "2000"]\n' in first.tags and '[UTCDate "2024.01.01"]\n' in first.tags
    _lichess_parquet(tmp_path / "lower.parquet", path, lower=True)
    assert _read([tmp_path / "lower.parquet"])[0] == found


def test_collection_filters_count_every_game_left_out(head, tmp_path):
    path, _ = head
    _lichess_parquet(tmp_path / "games.parquet", path)
    games_filter = GameFilter(
        conditions=GameConditions(
            rating=(2100, 2600), time_control="blitz", since=parse_date("2024.01.20", "since"), min_plies=40
        )
    )
    found, report = _read([tmp_path / "games.parquet"], chunk_bytes=1, games_filter=games_filter)
    # row n: played on 2024-01-(n+1), blitz when n is odd, ratings 2000 + 10n and 1900 + 10n; checked in that order
    assert report.filtered["before the dates"] == 19  # rows 0-18
    assert report.filtered["other time control"] == 50  # even rows from 20
    assert report.filtered["rating outside the band"] == 31  # odd rows 19 (black 2090) and 61-119 (white > 2600)
    assert report.used == len(found) == 120 - sum(report.filtered.values())
    assert all(len(moves) >= 40 for *_, moves in found)
    assert all(date >= "2024.01.21" for _, _, date, _ in found)


def test_bad_collections_are_one_line_errors(tmp_path, head):
    path, _ = head
    _lichess_parquet(tmp_path / "nomoves.parquet", path, drop=("movetext",))
    with pytest.raises(DataError, match="no column movetext"):
        list(plan_chunks([path, tmp_path / "nomoves.parquet"]))
    with pytest.raises(DataError, match="not found"):
        plan_chunks([tmp_path / "missing.pgn"])
    (tmp_path / "fake.parquet").write_bytes(b"PAR1 and nothing else")
    with pytest.raises(DataError, match="as Parquet"):
        plan_chunks([tmp_path / "fake.parquet"])


def test_the_player_reader_reads_parquet_rows_as_games(head, tmp_path):
    path, _ = head
    games = _lichess_parquet(tmp_path / "games.parquet", path)
    read, report = load_player_games([tmp_path / "games.parquet"], player="Botvinnik", color="white")
    expected = [game for game in games if game.color]
    assert [(g.index, g.moves, g.result) for g in read] == [(g.index, g.moves, g.result) for g in expected]
    assert read[0].tags["WhiteElo"] == str(2000 + 10 * read[0].index) and report.counts.games_read == 120
