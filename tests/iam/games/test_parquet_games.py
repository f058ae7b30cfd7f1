"""iam.games.parquet_games: Parquet rows read as PGN games, their columns as tags; unusable files refused."""

import datetime

import chess
import pytest

from iam.errors import DataError
from iam.games.parquet_games import PARQUET_COLUMNS, parquet_file, parquet_game_texts
from iam.games.pgntext import parse_game

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _write(path, columns, row_group_size=None):
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    return path


@pytest.fixture()
def lichess(tmp_path):
    """Three games in Lichess's column layout (lower-case names, a date, a float rating, a missing value)."""
    return _write(
        tmp_path / "games.parquet",
        {
            "movetext": ["1. e4 { [%clk 0:03:00] } e5 2. Nf3 1-0", "1. d4 d5 0-1", None],
            "white": ["Ann", "Bob", "Cid"],
            "black": ["Bob", "Ann", "Dan"],
            "utcdate": [datetime.date(2024, 1, 31), datetime.date(2023, 12, 1), None],
            "WhiteElo": [1500.0, 1620.0, None],
            "Custom": ["x", "y", "z"],
        },
        row_group_size=2,
    )


def test_rows_become_games_with_their_columns_as_tags(lichess):
    games = [parse_game(text) for text in parquet_game_texts(lichess)]
    assert len(games) == 3
    first = games[0]
    assert first.headers == {
        "White": "Ann", "Black": "Bob", "UTCDate": "2024.01.31", "WhiteElo": "1500", "Custom": "x",
    }
    assert first.moves == [chess.Move.from_uci(u) for u in ("e2e4", "e7e5", "g1f3")]
    assert games[1].headers["WhiteElo"] == "1620" and len(games[1].moves) == 2
    # Missing values are left out; an empty movetext is a game without moves.
    assert "UTCDate" not in games[2].headers and "WhiteElo" not in games[2].headers
    assert games[2].problem == "no moves"


def test_one_row_group_at_a_time(lichess):
    assert parquet_file(str(lichess)).num_row_groups == 2
    assert [parse_game(t).headers["White"] for t in parquet_game_texts(lichess, 0)] == ["Ann", "Bob"]
    assert [parse_game(t).headers["White"] for t in parquet_game_texts(lichess, 1)] == ["Cid"]


def test_timestamps_with_a_time_keep_it(tmp_path):
    path = _write(
        tmp_path / "t.parquet",
        {
            "Movetext": ["1. e4 *", "1. d4 *"],
            "White": ["A", "B"],
            "Black": ["C", "D"],
            "Date": [datetime.datetime(2024, 5, 1), datetime.datetime(2024, 5, 1, 13, 30)],
        },
    )
    dates = [parse_game(t).headers["Date"] for t in parquet_game_texts(path)]
    assert dates == ["2024.05.01", "2024-05-01T13:30:00"]


def test_names_with_quotes_backslashes_and_newlines_are_read_as_written(tmp_path):
    """A player's name keeps its quotes and backslashes (the name --player matches); a newline becomes a space."""
    path = _write(
        tmp_path / "q.parquet",
        {"movetext": ["1. e4 e5 *"], "White": ['Bobby "the kid" F'], "Black": ["C\\D\nE"]},
    )
    (headers,) = [parse_game(t).headers for t in parquet_game_texts(path)]
    assert headers["White"] == 'Bobby "the kid" F' and headers["Black"] == "C\\D E"


def test_a_file_without_the_needed_columns_is_refused(tmp_path):
    path = _write(tmp_path / "bad.parquet", {"moves": ["1. e4 *"], "White": ["A"], "Black": ["B"]})
    with pytest.raises(DataError, match="no column movetext"):
        parquet_file(str(path))
    assert PARQUET_COLUMNS == ("movetext", "White", "Black")


def test_a_file_that_is_not_parquet_is_refused(tmp_path):
    path = tmp_path / "not.parquet"
    path.write_text('[Event "x"]\n1. e4 *\n', encoding="utf-8")
    with pytest.raises(DataError, match="cannot read .* as Parquet"):
        list(parquet_game_texts(path))
