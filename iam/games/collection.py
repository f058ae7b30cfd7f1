"""Game collections of any size, read in chunks by workers, in flat memory.

A collection is one or more files of games: PGN, plain or compressed (.zst as in
Lichess's monthly files, .gz, .bz2, .xz), or Parquet with the columns of the public
Lichess game dumps (``movetext``, ``White`` and ``Black``; ``Result``, ``WhiteElo``,
``BlackElo``, ``UTCDate`` or ``Date``, ``TimeControl``, ``Event`` and the others are read
as tag pairs when present; column names in any case). :func:`plan_chunks` cuts it into
:class:`CollectionSlice` s:

* a plain PGN file into byte ranges that begin at a game's first tag line (a tag line
  after movetext, the rule :func:`iam.games.pgntext.split_games` cuts by, so every game lies
  whole in one chunk), found by reading a few KiB at each cut; a worker reads its range
  itself;
* a Parquet file into its row groups, each read by a worker;
* a compressed file, which cannot be entered in the middle, is decompressed by the
  reading process and cut at game starts into pieces of text that travel to the workers
  with their task: decompressing is fast, parsing and replaying the moves is the work.
  A zstd file is decompressed frame by frame, so a damaged frame costs only its own
  text: the games it cuts are counted as skipped with the reason, the damaged bytes are
  named in a note, and reading goes on at the next frame.

:func:`map_chunks` runs a function over every chunk's games where a runtime says
(:mod:`iam.runtime`) with a bounded number of chunks in flight, and yields the results
in collection order, each with the chunk's :class:`CollectionReport`; their sum accounts
for every game. Games are numbered by ``(chunk, number)``, an order that does not depend
on who read them.
"""

from __future__ import annotations

import io
import lzma
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import chess
import zstandard

from iam.errors import DataError
from iam.games.filters import GameFilter, reason_left_out
from iam.games.parquet_games import PARQUET_COLUMNS, parquet_file, parquet_game_texts
from iam.games.pgn import decode_text, file_kind, name_matches, open_stream
from iam.games.pgntext import GameText, ParsedGame, parse_game, read_headers, split_games
from iam.games.zstd_layout import FRAME_MAGIC, block_header, frame_header, is_skippable
from iam.runtime import Runtime, map_in_order

__all__ = [
    "CHUNK_BYTES",
    "PARQUET_COLUMNS",
    "CollectionSlice",
    "CollectionGame",
    "CollectionReport",
    "plan_chunks",
    "chunk_games",
    "map_chunks",
    "parquet_game_texts",
]

R = TypeVar("R")

CHUNK_BYTES = 8 << 20
"""Bytes of PGN text per chunk (Parquet files are cut by their own row groups)."""

DAMAGED = "damaged compressed data"
"""The reason a game cut by a damaged zstd frame is skipped."""

_PIECE = 1 << 20
_TAG_START = re.compile(rb'\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"')
"""A tag line's start, as :mod:`iam.games.pgntext` reads it."""
_ZSTD_MAGIC = FRAME_MAGIC.to_bytes(4, "little")


@dataclass(frozen=True)
class CollectionSlice:
    """A piece of a collection that one worker reads: a byte range, a row group, or text cut by the reader."""

    number: int
    """Position of the chunk in the collection, from 0."""
    path: str
    kind: str
    """``"range"`` (bytes ``start`` to ``stop`` of a plain file), ``"rows"`` (row group ``start`` of a
    Parquet file) or ``"text"`` (``text``, decompressed by the reading process)."""
    start: int = 0
    stop: int = 0
    text: bytes = b""
    cut_before: bool = False
    """The text starts inside a game whose beginning was lost in a damaged frame."""
    cut_after: bool = False
    """The text's last game runs on into a damaged frame."""


@dataclass(frozen=True)
class CollectionGame:
    """One usable game of a collection, seen from neither side."""

    chunk: int
    number: int
    """Number of the game in its chunk, from 0 (every game counts, used or not)."""
    headers: dict[str, str]
    start_fen: str
    moves: tuple[chess.Move, ...]
    problem: str = ""
    """Why the game is not used (a filter's or a skip's reason); '' for a usable game."""

    @property
    def white(self) -> str:
        return self.headers.get("White", "")

    @property
    def black(self) -> str:
        return self.headers.get("Black", "")


@dataclass
class CollectionReport:
    """What reading a collection (or one chunk of it) found: every game is used, filtered or skipped."""

    chunks: int = 0
    games: int = 0
    used: int = 0
    plies: int = 0
    filtered: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def add(self, other: CollectionReport) -> CollectionReport:
        """Fold ``other`` (a chunk's report) into this one; returns self."""
        self.chunks += other.chunks
        self.games += other.games
        self.used += other.used
        self.plies += other.plies
        self.filtered.update(other.filtered)
        self.skipped.update(other.skipped)
        self.notes.extend(note for note in other.notes if note not in self.notes)
        return self

    def summary_lines(self) -> list[str]:
        """One fact per line, for a person."""
        lines = [f"chunks: {self.chunks}; games read: {self.games}; used: {self.used} ({self.plies} plies)"]
        if self.filtered:
            reasons = "; ".join(f"{reason}: {count}" for reason, count in self.filtered.most_common())
            lines.append(f"left out by the filters {sum(self.filtered.values())}: {reasons}")
        if self.skipped:
            reasons = "; ".join(f"{reason}: {count}" for reason, count in self.skipped.most_common())
            lines.append(f"skipped {sum(self.skipped.values())}: {reasons}")
        lines.extend(f"note: {note}" for note in self.notes)
        return lines

    def to_dict(self) -> dict:
        return {
            "chunks": self.chunks,
            "games": self.games,
            "used": self.used,
            "plies": self.plies,
            "filtered": dict(self.filtered.most_common()),
            "skipped": dict(self.skipped.most_common()),
            "notes": list(self.notes),
        }


# -- planning ------------------------------------------------------------------------


def plan_chunks(paths: Sequence[str | Path], *, chunk_bytes: int = CHUNK_BYTES) -> Iterator[CollectionSlice]:
    """The chunks of the files in ``paths``, in order, made as they are needed.

    Every file is checked before the first chunk is made (DataError for a missing,
    empty or unreadable file, or a Parquet file without the needed columns), so a
    mistake in the last file costs no work on the first.
    """
    if chunk_bytes < 1:
        raise DataError("the chunk size must be at least one byte")
    if not paths:
        raise DataError("no game files given")
    kinds = [(str(path), file_kind(path)) for path in paths]
    for path, kind in kinds:
        if kind == "parquet":
            parquet_file(path)
    return _chunks(kinds, chunk_bytes)


def _chunks(kinds: list[tuple[str, str]], chunk_bytes: int) -> Iterator[CollectionSlice]:
    number = 0
    for path, kind in kinds:
        if kind == "parquet":
            pieces: Iterable[CollectionSlice] = (
                CollectionSlice(0, path, "rows", group, group + 1) for group in range(parquet_file(path).num_row_groups)
            )
        elif kind == "plain":
            pieces = (CollectionSlice(0, path, "range", start, stop) for start, stop in _ranges(path, chunk_bytes))
        else:
            pieces = _text_chunks(path, kind, chunk_bytes)
        for chunk in pieces:
            yield CollectionSlice(
                number, chunk.path, chunk.kind, chunk.start, chunk.stop, chunk.text, chunk.cut_before, chunk.cut_after
            )
            number += 1


def _ranges(path: str, chunk_bytes: int) -> Iterator[tuple[int, int]]:
    """Byte ranges of about ``chunk_bytes`` of a plain file, each starting at a game's start."""
    size = Path(path).stat().st_size
    start = 0
    with open(path, "rb") as handle:
        while start < size:
            stop = _start_after(handle, start + chunk_bytes, size) if start + chunk_bytes < size else size
            yield start, stop
            start = stop


def _start_after(handle: io.BufferedReader, position: int, size: int) -> int:
    """The first game start after the line holding ``position`` (``size`` if none), reading forward only."""
    window = bytearray()
    handle.seek(position)
    while True:
        piece = handle.read(64 << 10)
        window += piece
        found = next_game_start(window, 0, final=not piece)
        if found is not None:
            return min(size, position + found)


def next_game_start(data: bytes | bytearray, position: int, *, final: bool = True) -> int | None:
    """Offset in ``data`` of the first game start after the line holding ``position``.

    A game starts at a tag line (``[Name "``) whose previous non-blank line, escape
    lines (``%``) aside, is movetext; as nothing before ``position`` is looked at, a tag
    line right after it is never taken, only one after movetext seen past it. That is
    always a place where :func:`~iam.games.pgntext.split_games` starts a game, so text cut
    there splits into the same games as the whole. ``len(data)`` when there is none and
    ``final``; None when there is none yet and more text may follow.

    >>> text = b'[White "a"]\\n\\n1. e4 *\\n\\n[White "b"]\\n\\n1. d4 *\\n'
    >>> text[next_game_start(text, 0):next_game_start(text, 0) + 11]
    b'[White "b"]'
    """
    end = data.find(b"\n", position)
    seen_movetext = False
    while end != -1:
        line_start = end + 1
        end = data.find(b"\n", line_start)
        if end == -1 and not final:
            return None
        line = bytes(data[line_start : len(data) if end == -1 else end]).lstrip(b"\xef\xbb\xbf").rstrip(b"\r")
        if not line.strip() or line.startswith(b"%"):
            continue
        if _is_tag_line(line):
            if seen_movetext:
                return line_start
        else:
            seen_movetext = True
    return len(data) if final else None


def _is_tag_line(line: bytes) -> bool:
    return _TAG_START.match(line) is not None


def _text_chunks(path: str, kind: str, chunk_bytes: int) -> Iterator[CollectionSlice]:
    """A compressed file decompressed here and cut at game starts into chunks of text."""
    buffer = bytearray()
    cut_before = False
    for piece in _decompressed(path, kind):
        if isinstance(piece, _Damage):
            if buffer.strip() or cut_before:
                yield CollectionSlice(0, path, "text", text=bytes(buffer), cut_before=cut_before, cut_after=True)
            yield CollectionSlice(0, path, "text", text=b"", start=piece.start, stop=piece.stop, cut_after=True)
            buffer.clear()
            cut_before = True
            continue
        buffer += piece
        while len(buffer) > chunk_bytes:
            cut = next_game_start(buffer, chunk_bytes, final=False)
            if cut is None:
                break
            yield CollectionSlice(0, path, "text", text=bytes(buffer[:cut]), cut_before=cut_before)
            del buffer[:cut]
            cut_before = False
    if buffer.strip() or cut_before:
        yield CollectionSlice(0, path, "text", text=bytes(buffer), cut_before=cut_before)


@dataclass(frozen=True)
class _Damage:
    start: int
    stop: int
    reason: str


def _decompressed(path: str, kind: str) -> Iterator[bytes | _Damage]:
    """The decompressed bytes of a file in pieces; for zstd, a :class:`_Damage` where a frame cannot be read."""
    if kind != "zstd":
        yield from _decompressed_stream(path, kind)
        return
    with open(path, "rb") as handle:
        for start, stop, problem in _zstd_frames(handle):
            if problem:
                yield _Damage(start, stop, problem)
                continue
            if stop - start == 0:
                continue
            yield from _zstd_frame(handle, start, stop)


def _decompressed_stream(path: str, kind: str) -> Iterator[bytes]:
    """The decompressed bytes of a gzip, bz2 or xz file in pieces; DataError if it cannot be read."""
    try:
        with open_stream(Path(path), kind) as handle:
            while piece := handle.read(_PIECE):
                yield piece
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None


def _zstd_frame(handle: io.BufferedReader, start: int, stop: int) -> Iterator[bytes | _Damage]:
    """The decompressed bytes of the zstd frame at ``start:stop`` of ``handle``; a :class:`_Damage` if it is bad."""
    decompressor = zstandard.ZstdDecompressor().decompressobj()
    handle.seek(start)
    remaining = stop - start
    try:
        while remaining > 0:
            data = handle.read(min(_PIECE, remaining))
            remaining -= len(data)
            if out := decompressor.decompress(data):
                yield out
        if not decompressor.eof:
            raise zstandard.ZstdError("the frame ends early")
    except zstandard.ZstdError as exc:
        yield _Damage(start, stop, str(exc).splitlines()[0] if str(exc) else "corrupt frame")


def _zstd_frames(handle: io.BufferedReader) -> Iterator[tuple[int, int, str]]:
    """``(start, stop, problem)`` of each data frame, found from the frames' and blocks' headers alone.

    Skippable frames are passed over (``stop - start`` 0 for them is not yielded). Where
    the layout breaks (an unknown magic number, a reserved block type, a frame running
    past the end), the bad stretch is yielded with its problem and the walk resumes at
    the next zstd magic number.
    """
    size = handle.seek(0, io.SEEK_END)
    position = 0
    while position < size:
        handle.seek(position)
        magic = handle.read(4)
        value = int.from_bytes(magic, "little") if len(magic) == 4 else -1
        if is_skippable(value):
            skip = int.from_bytes(handle.read(4), "little")
            position += 8 + skip
            continue
        stop, problem = _frame_end(handle, position, size) if magic == _ZSTD_MAGIC else (position, "not a zstd frame")
        if not problem:
            yield position, stop, ""
            position = stop
            continue
        resume = _next_magic(handle, position + 1, size)
        yield position, resume, problem
        position = resume


def _frame_end(handle: io.BufferedReader, start: int, size: int) -> tuple[int, str]:
    """Where the frame at ``start`` ends, or the problem that stops the walk."""
    handle.seek(start + 4)
    descriptor = handle.read(1)
    if not descriptor:
        return size, "the file ends inside a frame"
    header, has_checksum = frame_header(descriptor[0])
    checksum = 4 if has_checksum else 0
    position = start + 5 + header
    while True:
        handle.seek(position)
        head = handle.read(3)
        if len(head) < 3:
            return size, "the file ends inside a frame"
        last, kind, length = block_header(int.from_bytes(head, "little"))
        if kind == 3:
            return position, "corrupt block header"
        position += 3 + length
        if last:
            end = position + checksum
            return (end, "") if end <= size else (size, "the file ends inside a frame")
        if position > size:
            return size, "the file ends inside a frame"


def _next_magic(handle: io.BufferedReader, position: int, size: int) -> int:
    """The offset of the next zstd magic number at or after ``position`` (``size`` if none)."""
    handle.seek(position)
    tail = b""
    while position < size:
        data = tail + handle.read(_PIECE)
        found = data.find(_ZSTD_MAGIC)
        if found != -1:
            return position - len(tail) + found
        position += len(data) - len(tail)
        tail = data[-3:]
    return size


# -- reading a chunk (on a worker) ------------------------------------------------------


def chunk_games(
    chunk: CollectionSlice, games_filter: GameFilter, report: CollectionReport, *, every_game: bool = False
) -> Iterator[CollectionGame]:
    """The usable games of ``chunk`` that pass ``games_filter``; every game is counted in ``report``.

    ``games_filter.player`` (with its aliases) keeps the games in which he is either side.
    ``every_game`` yields the others too, with their headers, no moves and the reason in
    ``problem`` (to number a player's games as :mod:`iam.games.pgn` does: all of them count).
    """
    report.chunks += 1
    if chunk.kind == "text" and chunk.stop > chunk.start:
        report.notes.append(
            f"{chunk.path}: bytes {chunk.start}-{chunk.stop} cannot be decompressed (a damaged zstd frame); "
            "the games whose text lay there are lost"
        )
        return
    texts = list(_texts(chunk))
    names = (games_filter.player, *games_filter.aliases) if games_filter.player else ()
    for number, (text, cut) in enumerate(texts):
        report.games += 1
        game = read_headers(text)
        problem, counter = _problem(
            game, text, cut or (chunk.cut_after and number == len(texts) - 1), names, games_filter
        )
        if problem:
            (report.filtered if counter == "filtered" else report.skipped)[problem] += 1
            if every_game:
                yield CollectionGame(chunk.number, number, game.headers, game.start_fen, (), problem)
            continue
        report.used += 1
        report.plies += len(game.moves)
        yield CollectionGame(chunk.number, number, game.headers, game.start_fen, tuple(game.moves))


def _problem(
    game: ParsedGame, text: GameText, cut: bool, names: Sequence[str], games_filter: GameFilter
) -> tuple[str, str]:
    """Why the game is not used and whether it was ``"filtered"`` or ``"skipped"`` ('' when it is used)."""
    if cut:
        return DAMAGED, "skipped"
    if names and not any(
        name_matches(name, game.headers.get(side, "")) for name in names for side in ("White", "Black")
    ):
        return "another player's game", "filtered"
    reason = reason_left_out(game.headers, 1 << 30, games_filter, color=_player_color(game.headers, names))
    if reason:
        return reason, "filtered"
    parse_game(text, game)
    if game.problem:
        return game.problem, "skipped"
    if not game.moves:
        return "no moves", "skipped"
    min_plies = games_filter.conditions.min_plies
    if min_plies is not None and len(game.moves) < min_plies:
        return f"fewer than {min_plies} plies", "filtered"
    return "", ""


def _player_color(headers: Mapping[str, str], names: Sequence[str]) -> chess.Color | None:
    if not names:
        return None
    white = any(name_matches(name, headers.get("White", "")) for name in names)
    return chess.WHITE if white else chess.BLACK


def _texts(chunk: CollectionSlice) -> Iterator[tuple[GameText, bool]]:
    """The chunk's games as text, each with whether the chunk's start cut it."""
    if chunk.kind == "rows":
        yield from ((text, False) for text in parquet_game_texts(chunk.path, chunk.start))
        return
    if chunk.kind == "range":
        with open(chunk.path, "rb") as handle:
            handle.seek(chunk.start)
            data = handle.read(chunk.stop - chunk.start)
    else:
        data = chunk.text
    if chunk.cut_before:  # the text before the first game start ends a game begun in a damaged frame
        first = next_game_start(data, 0)
        if data[:first].strip():
            yield GameText(), True
        data = data[first:]
    try:
        yield from ((text, False) for text in split_games(decode_text(io.BytesIO(data))))
    except (UnicodeError, ValueError) as exc:
        raise DataError(f"cannot read {chunk.path}: {exc}") from None


# -- running work over the chunks ---------------------------------------------------------------


def map_chunks(
    function: Callable[..., R],
    paths: Sequence[str | Path],
    games_filter: GameFilter,
    runtime: Runtime,
    *,
    arguments: tuple = (),
    chunk_bytes: int = CHUNK_BYTES,
    every_game: bool = False,
) -> Iterator[tuple[R, CollectionReport]]:
    """``function(games, *arguments)`` over each chunk's games, run where ``runtime`` says.

    ``function`` (a top-level function, so it can travel to a worker) receives an
    iterator of the chunk's :class:`CollectionGame` s and returns something small (a
    count, a table); the games it does not consume are still counted. Results come in
    collection order, a few chunks ahead at most. ``every_game``: as for :func:`chunk_games`.
    """
    chunks = plan_chunks(paths, chunk_bytes=chunk_bytes)
    tasks = ((chunk, games_filter, function, arguments, every_game) for chunk in chunks)
    window = 2 * runtime.workers
    return map_in_order(_run_chunk, tasks, runtime, window=window)


def _run_chunk(
    chunk: CollectionSlice, games_filter: GameFilter, function: Callable[..., R], arguments: tuple, every_game: bool
) -> tuple[R, CollectionReport]:
    report = CollectionReport()
    games = chunk_games(chunk, games_filter, report, every_game=every_game)
    result = function(games, *arguments)
    for _ in games:  # what the function left is counted too
        pass
    return result, report
