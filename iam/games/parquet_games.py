"""Games stored as Parquet rows, as in the public Lichess game dumps: each row one game.

The ``movetext`` column holds the moves (SAN, with comments and the result as in PGN);
``White`` and ``Black`` name the players; every other column (``Result``, ``WhiteElo``,
``BlackElo``, ``UTCDate``, ``TimeControl``, ``Event`` ...) is read as a tag pair of the same
name, so the rest of the toolkit reads a row as it reads a PGN game. Column names may be
in any case. Reading needs pyarrow (``pip install 'iam-toolkit[cluster]'``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from iam.errors import DataError
from iam.games.pgntext import GameText

__all__ = ["PARQUET_COLUMNS", "parquet_file", "parquet_game_texts"]

PARQUET_COLUMNS = ("movetext", "White", "Black")
"""Columns a Parquet collection must have; every other column is read as a tag pair."""


def parquet_file(path: str) -> Any:
    """The opened Parquet file, its columns checked (DataError when it is not usable)."""
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise DataError("reading Parquet needs pyarrow: pip install 'iam-toolkit[cluster]'") from None
    try:
        handle = parquet.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own errors for a damaged file
        raise DataError(f"cannot read {path} as Parquet: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    present = {name.lower() for name in handle.schema_arrow.names}
    missing = [name for name in PARQUET_COLUMNS if name.lower() not in present]
    if missing:
        raise DataError(
            f"{path} has no column {', '.join(missing)}: a Parquet collection needs "
            f"{', '.join(PARQUET_COLUMNS)} (its columns: {', '.join(handle.schema_arrow.names[:12])})"
        )
    return handle


def parquet_game_texts(path: str | Path, group: int | None = None) -> Iterator[GameText]:
    """The games of a Parquet file (one row group, or all) as PGN text: each column a tag pair.

    Dates are written as PGN dates (``2024.01.31``), missing values left out.
    """
    handle = parquet_file(str(path))
    columns = handle.schema_arrow.names
    tags = {name: _tag_name(name) for name in columns}
    movetext = next(name for name in columns if name.lower() == "movetext")
    groups = range(handle.num_row_groups) if group is None else [group]
    for number in groups:
        table = handle.read_row_group(number)
        values = {name: table.column(name).to_pylist() for name in columns}
        for row in range(table.num_rows):
            lines = [
                f'[{tags[name]} "{_tag_value(values[name][row])}"]\n'
                for name in columns
                if name != movetext and values[name][row] is not None
            ]
            yield GameText(tags=lines, movetext=[str(values[movetext][row] or "")], has_movetext=True)


_LICHESS_TAGS = {
    name.lower(): name
    for name in (
        "Event", "Site", "White", "Black", "Result", "WhiteTitle", "BlackTitle", "WhiteElo", "BlackElo",
        "WhiteRatingDiff", "BlackRatingDiff", "UTCDate", "UTCTime", "Date", "ECO", "Opening", "Termination",
        "TimeControl", "FEN", "Variant", "Round",
    )
}


def _tag_name(column: str) -> str:
    return _LICHESS_TAGS.get(column.lower(), column)


def _tag_value(value: Any) -> str:
    """The column's value as a tag's text, read back as written: one line, quotes and backslashes unescaped
    (the tag reader, like python-chess, keeps a value's escapes and reads a lone tag to its last ``"]``)."""
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y.%m.%d") if value.time() == datetime.time() else value.isoformat()
    if isinstance(value, datetime.date):
        return value.strftime("%Y.%m.%d")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).replace("\r", " ").replace("\n", " ")
