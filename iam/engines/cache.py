"""Analyses kept on disk: a score for every legal move of a position, shared by processes.

Scoring every legal move is the costliest work of a move ranker, whether a UCI engine
does it (:mod:`iam.engines.analysis`) or this project's own search
(:mod:`iam.evidence.search_cache`), and the same positions come back in training,
evaluation, identification and experiments. One SQLite file keeps them, keyed by the
position, the source that scored it (an engine's name, or the search with its version)
and the depth; both kinds may live in one file.

Each entry is committed at once in its own short transaction, so work already done
survives a crash, and several processes may read and write one file together (WAL
mode, a busy timeout). A file that is not such a cache, or of another schema version,
is refused in one line; so is an entry whose moves are not the position's legal moves
(or, for a partial analysis of the best ``k`` moves, not ``k`` of them).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

import chess

from iam.errors import IAMError

__all__ = ["AnalysisCache", "CacheError", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1
"""Version of the cache file's tables, stored as SQLite's ``user_version``."""

_APPLICATION_ID = 0x49414D45  # "IAME": marks a SQLite file as this module's cache
_BUSY_TIMEOUT_S = 60.0  # how long a writer waits for another process's transaction
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS analyses (
    epd TEXT NOT NULL,
    engine TEXT NOT NULL,
    depth INTEGER NOT NULL,
    scores TEXT NOT NULL,
    PRIMARY KEY (epd, engine, depth)
) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS engines (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    engine TEXT NOT NULL
) WITHOUT ROWID""",
)


class CacheError(IAMError):
    """The cache file is unusable, of another kind or version, or damaged (one line for a person)."""


class AnalysisCache:
    """The SQLite store of move scores, and of the names engines reported, one short transaction each.

    ``path`` None keeps everything in memory for the life of the object. ``label`` names
    the file in error messages ("engine cache", "search cache"), and ``error`` is the
    exception class they are raised as. The file is opened (and checked) at once, so a
    damaged one is reported before hours of analysis; a copy sent to another process
    opens its own connection when first used.
    """

    def __init__(
        self, path: str | os.PathLike | None, *, label: str = "analysis cache", error: type[IAMError] = CacheError
    ) -> None:
        self.path = None if path is None else Path(path)
        self.on_disk = path is not None
        self.label = label
        self.error = error
        self._connection: sqlite3.Connection | None = None
        self.read_only = False
        self._database()

    def __getstate__(self) -> dict:
        if not self.on_disk:
            raise TypeError("an in-memory analysis cache cannot be sent to another process")
        return {**self.__dict__, "_connection": None}

    def close(self) -> None:
        if self.on_disk and self._connection is not None:
            self._connection.close()
            self._connection = None

    def get(
        self, key: str, source: str, depth: int, board: chess.Board, *, lines: int | None = None
    ) -> dict[chess.Move, int] | None:
        """The stored scores of ``board`` (stored under ``key``), checked against its legal moves; None if absent.

        ``lines`` None asks for a complete entry (every legal move); ``lines`` ``k`` for a
        partial one: ``min(k, number of legal moves)`` of its legal moves. Any other entry is damaged.
        """
        row = self._run("SELECT scores FROM analyses WHERE epd = ? AND engine = ? AND depth = ?", (key, source, depth))
        return None if row is None else self._decode(key, row[0], board, lines)

    def put(self, key: str, source: str, depth: int, scores: dict[chess.Move, int]) -> None:
        """Store ``scores`` unless the key is there already (two processes computing alike).

        A read-only file keeps nothing new: said once on stderr, the work goes on uncached.
        """
        if self._skip_write():
            return
        text = json.dumps({move.uci(): score for move, score in scores.items()}, separators=(",", ":"))
        self._run("INSERT OR IGNORE INTO analyses VALUES (?, ?, ?, ?)", (key, source, depth, text))

    def engine_for(self, path: str, fingerprint: tuple[int, int] | None) -> str | None:
        """The name this engine path reported last, if the executable is unchanged or gone."""
        row = self._run("SELECT size, mtime_ns, engine FROM engines WHERE path = ?", (path,))
        if row is None or (fingerprint is not None and fingerprint != (row[0], row[1])):
            return None
        return row[2]

    def remember_engine(self, path: str, fingerprint: tuple[int, int], engine: str) -> None:
        if self._skip_write():
            return
        self._run("INSERT OR REPLACE INTO engines VALUES (?, ?, ?, ?)", (path, *fingerprint, engine))

    def _skip_write(self) -> bool:
        """True for a read-only file (noting once on stderr that new results are not kept)."""
        self._database()
        if self.read_only and not getattr(self, "_said_read_only", False):
            self._said_read_only = True
            print(
                f"iam: note: {self.label} {self.path} is read-only: what it holds is used, new results are not kept",
                file=sys.stderr,
            )
        return self.read_only

    def _decode(self, key: str, text: str, board: chess.Board, lines: int | None = None) -> dict[chess.Move, int]:
        """Stored scores back as moves, checked against the position's legal moves (all, or ``lines`` of them)."""
        try:
            scores = {chess.Move.from_uci(uci): int(score) for uci, score in json.loads(text).items()}
        except (ValueError, AttributeError, TypeError, OverflowError) as exc:  # Infinity, NaN, not a mapping
            raise self.error(f"{self.label} {self.path} is damaged: unreadable entry for {key} ({exc})") from exc
        legal = set(board.legal_moves)
        if lines is None:
            sound = set(scores) == legal
        else:
            sound = set(scores) <= legal and len(scores) == min(lines, len(legal))
        if not sound:
            raise self.error(f"{self.label} {self.path} is damaged: the entry for {key} does not match its legal moves")
        return scores

    def _run(self, sql: str, parameters: Sequence[object]) -> tuple | None:
        """One statement in its own transaction (autocommit): the first row, if any."""
        try:
            return self._database().execute(sql, parameters).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self.error(f"{self.label} {self.path} is unusable: {exc}") from exc

    def _database(self) -> sqlite3.Connection:
        if self._connection is None:
            try:
                self._connection = self._open()
            except sqlite3.DatabaseError as exc:
                raise self.error(f"{self.label} {self.path} is unusable: {exc}") from exc
        return self._connection

    def _open(self) -> sqlite3.Connection:
        """Connect, create the tables in a fresh file, refuse a foreign or newer one.

        The connection may serve another thread than the one that opened it (an engine
        runs each prediction in a worker thread under its deadline), one thread at a time.
        """
        if self.path is None:
            connection = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            if self.path.is_dir():
                raise self.error(f"{self.label} {self.path} is a folder, not a file")
            self._make_folder(self.path.parent)
            self.read_only = self.path.is_file() and not (
                os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)
            )
            connection = (
                self._connect_read_only()
                if self.read_only
                else sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            )
        try:
            self._prepare(connection)
        except BaseException:
            connection.close()
            raise
        return connection

    def _connect_read_only(self) -> sqlite3.Connection:
        """A connection that never writes; ``immutable`` when SQLite cannot read the file's log without writing."""
        assert self.path is not None  # an in-memory cache is never read-only
        uri = "file:" + urllib.parse.quote(str(self.path.resolve()))
        for flags in ("mode=ro", "immutable=1"):
            connection = sqlite3.connect(
                f"{uri}?{flags}", uri=True, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False,
            )
            try:
                connection.execute("PRAGMA application_id").fetchone()
                return connection
            except sqlite3.DatabaseError:
                connection.close()
                if flags == "immutable=1":
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _make_folder(self, folder: Path) -> None:
        """Create the cache's folder; one line naming the part of the path that is a file, if one is."""
        for part in (folder, *folder.parents):
            if part.exists() and not part.is_dir():
                raise self.error(f"{self.label} {self.path} cannot be created: {part} is a file, not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self.error(f"{self.label} {self.path} cannot be created: {exc.strerror or exc}") from None

    def _prepare(self, connection: sqlite3.Connection) -> None:
        if self.read_only and self._is_fresh(connection):
            raise self.error(f"{self.label} {self.path} is read-only and holds no cache")
        if self._is_fresh(connection):
            if self.on_disk:
                use_wal(connection)  # persistent: readers never block the writer
            connection.execute("BEGIN IMMEDIATE")  # one creator at a time; the others wait, then see the tables
            try:
                if self._is_fresh(connection):
                    for statement in _SCHEMA:
                        connection.execute(statement)
                    connection.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
                    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        application = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if application != _APPLICATION_ID:
            raise self.error(f"{self.label} {self.path} is a SQLite database of another kind, not an analysis cache")
        if version != SCHEMA_VERSION:
            raise self.error(
                f"{self.label} {self.path} has schema version {version}, this version reads {SCHEMA_VERSION}: "
                "use another file or delete it"
            )
        if not self.read_only:
            connection.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a committed position survives a crash

    @staticmethod
    def _is_fresh(connection: sqlite3.Connection) -> bool:
        """True for an empty database (new file, or a zero-byte one)."""
        return connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0 and (
            connection.execute("PRAGMA application_id").fetchone()[0] == 0
        )


def use_wal(connection: sqlite3.Connection) -> None:
    """Switch a fresh file to write-ahead logging, waiting while another process does the same.

    The switch needs the file to itself and SQLite answers "database is locked" at once,
    without its busy timeout, when two processes create one cache at the same moment:
    so retry until :data:`_BUSY_TIMEOUT_S` has passed.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)
