"""PGN ingestion: one player's games, streamed from plain or compressed files.

Games are read one at a time (constant memory): :mod:`iam.games.pgntext` cuts the text
into games at their tag pairs and parses the player's games only (others are
skipped after their headers). Every game in a file is accounted for: a game of the
player is either used or skipped with its reason, counted in the
:class:`IngestReport` (illegal, ambiguous or unparsable move, unclosed comment or
variation, text that is not movetext, no moves, player on both sides, unsupported
variant, bad FEN header or illegal set-up position, a game longer than the limits).
A damaged or truncated compressed file is an error (:class:`DataError`), never a
silently shorter list of games; so is a path that is not a regular file (a device
or a pipe could be endless or block forever).

The games are numbered in file order from 0 (``PlayerGame.index``) and split by
the held-out protocol (:mod:`iam.games.heldout`). Skipped games keep their number, so
the split of the other games never depends on which games happen to be readable.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import logging
import lzma
import re
import sys
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal, cast

import chess
import chess.pgn
import zstandard

from iam.errors import DataError, PlayerNotFoundError
from iam.games.heldout import TEST_EVERY, split_of
from iam.games.parquet_games import parquet_game_texts
from iam.games.pgntext import GameText, ParsedGame, parse_game, read_headers, split_games
from iam.games.zstd_layout import FRAME_MAGIC, block_header, frame_header, is_skippable

__all__ = [
    "ColorFilter",
    "Split",
    "PlayerGame",
    "check_player_games",
    "IngestReport",
    "GameCounts",
    "NamesSeen",
    "iter_player_games",
    "load_player_games",
    "read_game_names",
    "read_whole_games",
    "open_stream",
    "split_of",
    "name_matches",
    "TEST_EVERY",
    "decode_text",
    "result_for",
    "file_kind",
]

ColorFilter = Literal["white", "black", "any"]
Split = Literal["all", "train", "test"]

_RESULTS = {"1-0": chess.WHITE, "0-1": chess.BLACK}
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\x28\xb5\x2f\xfd": "zstd", b"\xfd7zX": "xz"}
_EXAMPLES_KEPT = 5
_READ_ERRORS = (OSError, EOFError, UnicodeError, zlib.error, lzma.LZMAError, zstandard.ZstdError)
_TRUNCATED = "compressed file ended before the end-of-stream marker was reached (the file is truncated)"
_CHUNK_BYTES = 1 << 16


@dataclass(frozen=True)
class PlayerGame:
    """One game seen from the modelled player's side."""

    index: int
    """Number of the game among the player's games, in file order, from 0."""
    color: chess.Color
    """The colour the modelled player had."""
    start_fen: str
    moves: tuple[chess.Move, ...]
    result: Literal["win", "draw", "loss", "unknown"]
    """The result for the modelled player."""
    white: str = ""
    black: str = ""
    event: str = ""
    date: str = ""
    tags: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Every tag pair of the game (TimeControl, WhiteElo, ...), for filters."""

    @property
    def split(self) -> Literal["train", "test"]:
        return split_of(self.index)

    @property
    def player_moves(self) -> int:
        """How many moves the modelled player makes in this game (positions where he is to move)."""
        first_is_player = (self.start_fen.split()[1] == "w") == (self.color == chess.WHITE)
        return (len(self.moves) + first_is_player) // 2

    def board(self) -> chess.Board:
        """The starting position (a fresh board; the caller may push moves)."""
        return chess.Board(self.start_fen)


def check_player_games(games: Iterable[PlayerGame], where: str) -> list[PlayerGame]:
    """``games`` as a list; TypeError naming what ``where`` expected when they are not PlayerGame records.

    A path, a single game or a ``chess.pgn.Game`` would otherwise be read as no game of the
    player, or fail far from the call.

    >>> import chess.pgn
    >>> check_player_games([chess.pgn.Game()], "evaluate")
    Traceback (most recent call last):
    ...
    TypeError: evaluate expects PlayerGame records (from iam.load_player_games), not chess.pgn.Game (games[0])
    """
    if isinstance(games, (str, bytes, Path)):
        raise TypeError(f"{where} expects PlayerGame records, not a path: read the file with iam.load_player_games")
    if isinstance(games, PlayerGame) or not isinstance(games, Iterable):
        raise TypeError(f"{where} expects a list of PlayerGame records, not {_type_name(games)}")
    games = list(games)
    for number, game in enumerate(games):
        if not isinstance(game, PlayerGame):
            raise TypeError(
                f"{where} expects PlayerGame records (from iam.load_player_games), "
                f"not {_type_name(game)} (games[{number}])"
            )
    return games


def _type_name(value: object) -> str:
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


@dataclass
class GameCounts:
    """How many games were read, and what became of the player's: used, or left out by request.

    Every game of the player is used, left out by request (``filtered_color``, ``filtered_split``),
    skipped or left out by a filter (counted by reason in :class:`IngestReport`).
    """

    games_read: int = 0
    """Every game in the files."""
    player_games: int = 0
    """The player's games among them."""
    used: int = 0
    filtered_color: int = 0
    """The player's games left out because he had the other colour."""
    filtered_split: int = 0
    """The player's games left out because they belong to the other split."""


@dataclass
class NamesSeen:
    """The names in the games' headers: how the player's is spelled, and every one (named when he is missing)."""

    spellings: Counter[str] = field(default_factory=Counter)
    """The player's names as the headers spell them, by games."""
    headers: Counter[str] = field(default_factory=Counter)
    """Every name in the White and Black headers, by games."""


@dataclass
class IngestReport:
    """What reading the files found: used and skipped games, and why."""

    files: list[str] = field(default_factory=list)
    counts: GameCounts = field(default_factory=GameCounts)
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_examples: list[str] = field(default_factory=list)
    names: NamesSeen = field(default_factory=NamesSeen)
    filtered: Counter[str] = field(default_factory=Counter)
    """Games left out by the game filters (:mod:`iam.games.filters`), by reason."""
    notes: list[str] = field(default_factory=list)
    """What the reader did that the user should know (a file read as Windows-1252)."""

    @property
    def used(self) -> int:
        """How many of the player's games were used."""
        return self.counts.used

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def __str__(self) -> str:
        return "\n".join(self.summary_lines())

    def __repr__(self) -> str:
        counts = self.counts
        return (
            f"IngestReport(games_read={counts.games_read}, player_games={counts.player_games}, used={counts.used}, "
            f"skipped={self.skipped_total})"
        )

    def summary_lines(self) -> list[str]:
        """A short human-readable account, one fact per line."""
        counts = self.counts
        lines = [
            f"files: {', '.join(self.files)}",
            f"games read: {counts.games_read}; the player's games: {counts.player_games}; used: {counts.used}",
        ]
        if self.names.spellings:
            names = ", ".join(f"{name!r} ({count})" for name, count in self.names.spellings.most_common())
            lines.append(f"player spellings matched: {names}")
        if counts.filtered_color or counts.filtered_split:
            lines.append(
                f"left out by request: {counts.filtered_color} by colour, {counts.filtered_split} by split"
            )
        if self.filtered:
            reasons = "; ".join(f"{reason}: {count}" for reason, count in self.filtered.most_common())
            lines.append(f"left out by the filters {sum(self.filtered.values())}: {reasons}")
        lines.extend(f"note: {note}" for note in self.notes)
        if self.skipped:
            reasons = "; ".join(f"{reason}: {count}" for reason, count in self.skipped.most_common())
            lines.append(f"skipped {self.skipped_total}: {reasons}")
            lines.extend(f"  e.g. {example}" for example in self.skipped_examples)
        return lines

    def to_dict(self) -> dict:
        counts = self.counts
        return {
            "files": self.files,
            "games_read": counts.games_read,
            "player_games": counts.player_games,
            "used": counts.used,
            "filtered_color": counts.filtered_color,
            "filtered_split": counts.filtered_split,
            "filtered": dict(self.filtered.most_common()),
            "skipped": dict(self.skipped.most_common()),
            "skipped_examples": self.skipped_examples,
            "spellings": dict(self.names.spellings.most_common()),
        }


def name_matches(query: str, name: str) -> bool:
    """Whether a header name is the queried player, case-insensitively and by whole words.

    ``"Botvinnik"`` matches ``"Botvinnik, Mikhail"`` and ``"Botvinnik, M."`` but
    ``"Tal"`` does not match ``"Natalia"``.
    """
    words = _words(query)
    return bool(words) and re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", name.lower()) is not None


def iter_player_games(
    paths: Sequence[str | Path],
    *,
    player: str | None,
    color: ColorFilter = "any",
    split: Split = "all",
    max_games: int | None = None,
    report: IngestReport | None = None,
    aliases: Sequence[str] = (),
) -> Iterator[PlayerGame]:
    """Stream the player's games from ``paths`` (plain, .gz, .bz2, .xz or .zst PGN).

    Games are numbered across all files in order; ``color`` and ``split`` leave
    games out by request, ``max_games`` stops after that many games were yielded.
    Raises :class:`DataError` for missing, empty, unreadable or non-PGN files and
    :class:`PlayerNotFoundError` when the player is in none of the games.
    ``player=None`` with ``color`` white or black reads whoever had that colour in
    each game (an unknown player, identified by :mod:`iam.measure.identify`). ``aliases``
    are other spellings of the player's name, matched the same way.
    """
    _check_request(player, color, split, max_games)
    report = report if report is not None else IngestReport()
    index = 0
    for path in paths:
        report.files.append(str(path))
        games_in_file = 0
        names = None if player is None else (player, *aliases)
        for visitor in _read_games(Path(path), names, report, side=None if player is not None else color == "white"):
            games_in_file += 1
            report.counts.games_read += 1
            if not visitor.player_color:
                continue
            game_index, index = index, index + 1
            report.counts.player_games += 1
            report.names.spellings[visitor.spelling] += 1
            if len(visitor.player_color) == 2:
                _skip(report, "player on both sides", game_index, visitor.game)
                continue
            (player_color,) = visitor.player_color
            if _left_out_by_request(report, player_color, game_index, color, split):
                continue
            if max_games is not None and report.counts.used >= max_games:
                return
            reason = visitor.problem()
            if reason:
                _skip(report, reason, game_index, visitor.game)
                continue
            report.counts.used += 1
            yield _player_game(visitor.game, game_index, player_color)
        if games_in_file == 0:
            raise DataError(f"no PGN games found in {path} (no tag pairs such as [White \"...\"])")
        _say_notes(path, report)
    if report.counts.player_games == 0:
        raise _not_found(player, paths, report)


def _left_out_by_request(
    report: IngestReport, player_color: chess.Color, game_index: int, color: ColorFilter, split: Split
) -> bool:
    """Whether ``color`` or ``split`` leaves the game out (counted in ``report``)."""
    if color != "any" and player_color != (color == "white"):
        report.counts.filtered_color += 1
        return True
    if split != "all" and split_of(game_index) != split:
        report.counts.filtered_split += 1
        return True
    return False


def _check_request(player: str | None, color: ColorFilter, split: Split, max_games: int | None) -> None:
    """DataError for a request :func:`iter_player_games` cannot serve, before any file is opened."""
    if player is None and color == "any":
        raise DataError("without a player name, the colour must be white or black")
    if player is not None and not _words(player):
        raise DataError("the player name is empty")
    if color not in ("white", "black", "any"):
        raise DataError(f"colour must be white, black or any, not {color!r}")
    if split not in ("all", "train", "test"):
        raise DataError(f"split must be all, train or test, not {split!r}")
    if max_games is not None and max_games < 0:
        raise DataError("the number of games cannot be negative")


def _player_game(game: ParsedGame, index: int, color: chess.Color) -> PlayerGame:
    """The record of a readable game of the player, numbered ``index``, who had ``color`` in it."""
    return PlayerGame(
        index=index,
        color=color,
        start_fen=game.start_fen,
        moves=tuple(game.moves),
        result=result_for(game.headers.get("Result", "*"), color),
        white=game.headers.get("White", ""),
        black=game.headers.get("Black", ""),
        event=game.headers.get("Event", ""),
        date=game.headers.get("Date", ""),
        tags=dict(game.headers),
    )


def _not_found(player: str | None, paths: Sequence[str | Path], report: IngestReport) -> PlayerNotFoundError:
    """The error for files without a game of the player, naming the most common names they hold instead."""
    common = ", ".join(f"{name!r}" for name, _ in report.names.headers.most_common(8))
    return PlayerNotFoundError(
        f"no game with player {player!r} in {', '.join(map(str, paths))}; "
        f"the most common names are: {common or 'none'}"
    )


def load_player_games(
    paths: Sequence[str | Path], **options
) -> tuple[list[PlayerGame], IngestReport]:
    """Read all matching games into a list; options as for :func:`iter_player_games`."""
    report = IngestReport()
    games = list(iter_player_games(paths, report=report, **options))
    return games, report


def read_game_names(paths: Sequence[str | Path]) -> list[tuple[str, str]]:
    """(White, Black) of every game in ``paths``, in file order, from the headers alone.

    DataError for a missing, unreadable or empty file, as for :func:`iter_player_games`.
    """
    names = []
    for path in paths:
        found = [
            (seen.game.headers.get("White", ""), seen.game.headers.get("Black", ""))
            for seen in _read_games(Path(path), None, IngestReport())
        ]
        if not found:
            raise DataError(f"no PGN games found in {path} (no tag pairs such as [White \"...\"])")
        names.extend(found)
    return names


# -- internals -----------------------------------------------------------------


def read_whole_games(path: str | Path, skipped: Counter[str] | None = None) -> list[chess.pgn.Game]:
    """Every readable game of a file of games, whole (headers, comments, variations), for the commands that
    write games back (annotate) or need a game's history (predict).

    The file is opened as the player readers open it (any compression, Parquet, the same size limits), and
    each game is cut from the stream before python-chess parses it, so a damaged game costs only itself: a
    game too long, or with an illegal or unreadable move, is left out and counted in ``skipped`` by its
    reason (without ``skipped`` it is an error). DataError when the file cannot be read or no game is left.
    """
    path = Path(path)
    parquet = file_kind(path) == "parquet"
    games: list[chess.pgn.Game] = []
    logger = logging.getLogger("chess.pgn")  # its complaints are counted in ``skipped``, not printed
    level, logger.level = logger.level, logging.CRITICAL
    with io.StringIO() if parquet else _open_text(path) as handle:
        texts = parquet_game_texts(path) if parquet else split_games(handle)
        try:
            for number, text in enumerate(texts, 1):
                problem = _whole_game(text, games)
                if problem and skipped is None:
                    raise DataError(f"{path}, game {number}: {problem}")
                if problem and skipped is not None:
                    skipped[problem] += 1
        except _READ_ERRORS as exc:
            raise DataError(f"cannot read {path}: {exc}") from None
        finally:
            logger.level = level
    if not games:
        raise DataError(f"no readable PGN game in {path}")
    return games


def _whole_game(text: GameText, games: list[chess.pgn.Game]) -> str:
    """Parse one game's text with python-chess into ``games``; the reason when it cannot be used, else ''."""
    if text.oversize:
        return "game too long"
    try:
        game = chess.pgn.read_game(io.StringIO("".join(text.tags) + "\n" + "".join(text.movetext)))
    except Exception:  # python-chess fails on some unbalanced variations instead of noting an error
        return "illegal or unreadable move"
    if game is None or game.errors:
        return "illegal or unreadable move"
    games.append(game)
    return ""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def result_for(result: str, color: chess.Color) -> Literal["win", "draw", "loss", "unknown"]:
    if result == "1/2-1/2":
        return "draw"
    if result in _RESULTS:
        return "win" if _RESULTS[result] == color else "loss"
    return "unknown"


def _skip(report: IngestReport, reason: str, index: int, game: ParsedGame) -> None:
    report.skipped[reason] += 1
    if len(report.skipped_examples) < _EXAMPLES_KEPT:
        white, black = game.headers.get("White", "?"), game.headers.get("Black", "?")
        detail = f": {game.detail}" if game.detail else ""
        report.skipped_examples.append(f"game {index} ({white} - {black}): {reason}{detail}")


@dataclass
class _Seen:
    """One game as the reader saw it: headers, the player's colours, and (for his games) the parse."""

    game: ParsedGame
    text: GameText
    player_color: set[chess.Color]
    spelling: str

    def problem(self) -> str:
        """Why the player's game cannot be used, or '' if it can (parses the movetext once)."""
        parse_game(self.text, self.game)
        if not self.game.problem and not _player_moves(self.game, next(iter(self.player_color))):
            self.game.problem = "the player makes no move"
        return self.game.problem


def _player_moves(game: ParsedGame, color: chess.Color) -> int:
    first_is_player = (game.start_fen.split()[1] == "w") == (color == chess.WHITE)
    return (len(game.moves) + first_is_player) // 2


def _read_games(
    path: Path, player: str | Sequence[str] | None, report: IngestReport, *, side: chess.Color | None = None
) -> Iterator[_Seen]:
    """Yield every game of the file (each block of tag pairs is one game); ``side``: the player's colour in all.

    ``player`` is a name or several spellings of it.
    """
    queries = (player,) if isinstance(player, str) else tuple(player or ())
    parquet = file_kind(path) == "parquet"
    with io.StringIO() if parquet else _open_text(path) as handle:
        texts = parquet_game_texts(path) if parquet else split_games(handle)
        decoded = _CP1252_USED[0]
        while True:
            try:
                text = next(texts, None)
            except _READ_ERRORS as exc:
                raise DataError(f"cannot read {path}: {exc}") from None
            if _CP1252_USED[0] != decoded:
                decoded = _CP1252_USED[0]
                _note_cp1252(path, report)
            if text is None:
                return
            game = read_headers(text)
            colors: set[chess.Color] = set()
            spelling = ""
            for color, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
                name = game.headers.get(tag, "")
                if name and name != "?":
                    report.names.headers[name] += 1
                if color == side or any(name_matches(query, name) for query in queries):
                    colors.add(color)
                    spelling = name
            if not colors and any(name_matches(query, line) for query in queries for line in game.malformed_tags):
                colors.add(chess.WHITE)  # his game by the look of it, and unreadable: counted, then skipped
                spelling = queries[0]
            yield _Seen(game, text, colors, spelling)


def _as_cp1252(error: UnicodeError) -> tuple[str, int]:
    """Decode the bytes that are not UTF-8 as Windows-1252 (the five bytes it leaves undefined as Latin-1)."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    _CP1252_USED[0] += 1
    piece = error.object[error.start : error.end]
    return "".join(bytes([byte]).decode("cp1252", errors="ignore") or chr(byte) for byte in piece), error.end


_CP1252_USED = [0]
"""How many stretches of text :func:`_as_cp1252` has decoded (a file that needed it is noted once)."""
_NOTED: set[str] = set()
_CP1252_ERRORS = "iam-cp1252"
codecs.register_error(_CP1252_ERRORS, _as_cp1252)


def _note_cp1252(path: Path, report: IngestReport) -> None:
    """Keep in the report that a file was read as Windows-1252 (said on stderr once its games are found)."""
    note = f"{path} is not valid UTF-8: its other bytes were read as Windows-1252"
    if note not in report.notes:
        report.notes.append(note)


def _say_notes(path: str | Path, report: IngestReport) -> None:
    """Print the report's notes about ``path`` on stderr, once per file and process."""
    for note in report.notes:
        if note.startswith(f"{Path(path)} ") and note not in _NOTED:
            _NOTED.add(note)
            print(f"iam: note: {note}", file=sys.stderr)


def _open_text(path: Path) -> IO[str]:
    return decode_text(open_stream(path, file_kind(path)))


def open_stream(path: Path, kind: str) -> IO[bytes]:
    """The bytes of a file of games of ``kind`` (:func:`file_kind`: plain, gzip, bz2, xz or zstd), decompressed.

    The one place a stream format is opened: the readers of games and of collections both come here.
    """
    if kind == "gzip":
        return cast(IO[bytes], gzip.open(path, "rb"))  # a GzipFile is a binary file, though not typed IO[bytes]
    if kind == "bz2":
        return bz2.open(path, "rb")
    if kind == "xz":
        return lzma.open(path, "rb")
    if kind == "zstd":
        return io.BufferedReader(_ZstdReader(path.open("rb")), buffer_size=_CHUNK_BYTES)
    return path.open("rb")


def decode_text(binary: IO[bytes]) -> IO[str]:
    """PGN text of a byte stream: UTF-8 (byte-order marks dropped), other bytes read as Windows-1252."""
    return io.TextIOWrapper(binary, encoding="utf-8-sig", errors=_CP1252_ERRORS, newline=None)


def file_kind(path: str | Path) -> str:
    """How a file of games is stored, from its first bytes: plain, gzip, bz2, xz, zstd or parquet.

    DataError for a path that is missing, a folder, not a regular file, unreadable or empty.
    """
    path = Path(path)
    try:
        exists, folder, regular = path.exists(), path.is_dir(), path.is_file()
    except OSError as exc:
        raise DataError(f"cannot open {str(path)[:200]}: {exc.strerror or exc}") from None
    if not exists:
        raise DataError(f"PGN file not found: {path}")
    if folder:
        raise DataError(f"{path} is a folder, not a PGN file")
    if not regular:
        raise DataError(f"{path} is not a regular file (a device, pipe or socket cannot be read as games)")
    try:
        with path.open("rb") as raw:
            head = raw.read(4)
    except OSError as exc:
        raise DataError(f"cannot open {path}: {exc.strerror}") from None
    if not head:
        raise DataError(f"PGN file is empty: {path}")
    if head == b"PAR1":
        return "parquet"
    kind = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), "plain")
    if len(head) == 4 and is_skippable(int.from_bytes(head, "little")):
        kind = "zstd"  # a skippable frame first, as pzstd writes
    return kind


class _ZstdReader(io.RawIOBase):
    """Decompresses every frame of a zstd file in bounded pieces; a file that ends inside a frame is an EOFError.

    Skippable frames (``pzstd`` writes one before each frame) are passed over. The
    decompressor reads the file through :class:`_ZstdFrames`, which follows the frames'
    and blocks' headers, so a cut anywhere (which zstandard's ``stream_reader`` passes
    over quietly) is found; each read returns at most the buffer's size, so however
    well the text compresses, memory stays bounded.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._frames = _ZstdFrames(raw)
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            cast(IO[bytes], self._frames), read_size=_CHUNK_BYTES, read_across_frames=True  # a raw binary reader
        )

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._reader.read(len(buffer))
        if not data:
            self._frames.check_complete()
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._reader.close()
            self._frames.close()
        super().close()




class _ZstdFrames:
    """The raw bytes of a zstd file, passed on unchanged while their frame layout is followed.

    Only headers are read (frame and skippable-frame headers, block headers, checksums),
    never the compressed data, so the cost is a few operations per 128 KiB block.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._state = "magic"
        self._head = b""
        self._skip = 0
        self._checksum = False
        self._frame_header_size = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size if size is not None and size >= 0 else _CHUNK_BYTES)
        self._follow(data)
        return data

    def close(self) -> None:
        self._raw.close()

    def check_complete(self) -> None:
        """EOFError unless the file ended exactly at the end of a frame."""
        if self._state != "magic" or self._head or self._skip:
            raise EOFError(_TRUNCATED)

    def _follow(self, data: bytes) -> None:
        position = 0
        while position < len(data):
            if self._skip:
                step = min(self._skip, len(data) - position)
                self._skip -= step
                position += step
                continue
            need = self._header_size()
            step = min(need - len(self._head), len(data) - position)
            self._head += data[position : position + step]
            position += step
            if len(self._head) == need:
                head, self._head = self._head, b""
                self._parse(head)

    def _header_size(self) -> int:
        if self._state == "frame header":
            return self._frame_header_size
        return {"magic": 4, "skippable size": 4, "descriptor": 1, "block": 3}[self._state]

    def _parse(self, head: bytes) -> None:
        value = int.from_bytes(head, "little")
        if self._state == "magic":
            if value == FRAME_MAGIC:
                self._state = "descriptor"
            elif is_skippable(value):
                self._state = "skippable size"
            else:
                raise zstandard.ZstdError(f"not a zstd frame (magic number {value:#010x})")
        elif self._state == "skippable size":
            self._state, self._skip = "magic", value
        elif self._state == "descriptor":
            self._frame_header_size, self._checksum = frame_header(value)
            self._state = "frame header" if self._frame_header_size else "block"
        elif self._state == "frame header":
            self._state = "block"
        else:  # a block header: last-block bit, type, size
            last, kind, self._skip = block_header(value)
            if kind == 3:
                raise zstandard.ZstdError("corrupt zstd block (reserved block type)")
            if last:
                self._state = "magic"
                self._skip += 4 if self._checksum else 0
