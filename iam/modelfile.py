"""Model files: versioned, human-readable JSON (gzip when the name ends in .gz), never pickle.

A model file holds everything a fitted :class:`~iam.model.OpponentModel` needs
to predict: its parameters, the chunk library as a table (each chunk written as a
readable pattern such as ``".P/P."``), the rote memory and the belief weights. It
is written atomically (a temporary file renamed into place), so a crash never
leaves half a model behind. Loading checks the format name, the version and the
shape of every part, and reports the first problem as a :class:`ModelFileError`:
a file from a stranger can be wrong, but never executes anything.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import zlib
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pandas as pd

from iam import __version__
from iam.belief import LearnedBelief, RuleWeights
from iam.chunk import BOX, canonical, decode, from_pattern, to_pattern
from iam.errors import ModelFileError
from iam.library import ChunkLibrary
from iam.noise_filter import STAT_COLUMNS
from iam.rote import RoteEntry, RoteMemory

__all__ = [
    "FORMAT",
    "VERSION",
    "MAX_MODEL_BYTES",
    "MAX_NESTING",
    "MAX_NUMBER_CHARS",
    "MAX_CHUNKS",
    "MAX_ROTE_ENTRIES",
    "save_model",
    "check_writable",
    "load_model",
    "model_to_dict",
    "model_from_dict",
    "read_document",
    "write_document",
]

FORMAT = "iam-opponent-model"
VERSION = 1
MAX_MODEL_BYTES = 64 * 1024 * 1024
"""Largest model file read, after decompression (a model of 713 games takes 0.5 MB)."""
MAX_NESTING = 16
"""Deepest nesting of JSON objects and lists accepted (a model file needs 4)."""
MAX_NUMBER_CHARS = 40
"""Longest number accepted, in characters (a count needs at most 19, a float 24)."""
MAX_CHUNKS = 100_000
"""Most chunks a model file may hold (713 games give 6,568; each costs about 4 KB in memory)."""
MAX_ROTE_ENTRIES = 100_000
"""Most remembered sequences, and most remembered positions (713 games give 769 and 994)."""
_READ_PIECE = 1 << 20
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_LONG_NUMBER = re.compile(rb"[-+0-9.eE]{%d,}" % (MAX_NUMBER_CHARS + 1))
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_CHUNK_COLUMNS = ("pattern", *STAT_COLUMNS, "completed", "opportunities")
_MAX_COUNT = int(np.iinfo(np.int64).max)
_PARAMS = ("min_games", "min_formed_games", "rote_max_ply", "belief", "belief_positions", "random_state", "player")


def model_to_dict(model) -> dict[str, Any]:
    """The JSON-ready content of a fitted model."""
    table = model.library_.table
    values = table.reindex(columns=list(_CHUNK_COLUMNS[1:]), fill_value=0).to_numpy(dtype=np.int64)
    rows = [[to_pattern(int(code)), *map(int, row)] for code, row in zip(table.index.tolist(), values)]
    return {
        "format": FORMAT,
        "version": VERSION,
        "toolkit": __version__,
        "player": model.player_,
        "params": {
            **{name: getattr(model, name) for name in _PARAMS},
            "rule_weights": None if model.rule_weights is None else model.rule_weights.to_dict(),
        },
        "rule_weights": model.rule_weights_.to_dict(),
        "training": {
            "games": model.n_games_,
            "positions": model.n_positions_,
            "colors": model.colors_,
            "chunk_counts": model.chunk_counts_,
            "belief": model.belief_kind_,
            "notes": list(model.notes_),
        },
        "chunks": {"columns": list(_CHUNK_COLUMNS), "rows": rows},
        "rote": {
            "max_ply": model.rote_.max_ply,
            "min_games": model.rote_.min_games,
            "sequences": {key: entry.counts for key, entry in model.rote_.entries.items()},
            "positions": {key: entry.counts for key, entry in model.rote_.positions.items()},
        },
        "belief": model.belief_.to_dict() if model.belief_ is not None else None,
    }


def model_from_dict(data: Any, *, source: str = "model"):
    """Rebuild a fitted model from :func:`model_to_dict`'s content (ModelFileError if malformed)."""
    from iam.model import OpponentModel

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"{source} is not an IAM model file (format {FORMAT!r} expected)")
    if data.get("version") != VERSION:
        raise ModelFileError(
            f"{source} has model file version {data.get('version')!r}; this toolkit reads version {VERSION}"
        )
    try:
        params = {name: data["params"][name] for name in _PARAMS}
        given = data["params"]["rule_weights"]
        model = OpponentModel(**params, rule_weights=None if given is None else RuleWeights.from_dict(given))
        model._check_parameters()
        training = data["training"]
        table = _chunk_table(data["chunks"])
        if not isinstance(data["player"], str):
            raise ValueError(f"player must be a name, not {data['player']!r}")
        model.player_ = data["player"]
        model.n_games_ = _count(training["games"], "training games")
        model.n_positions_ = _count(training["positions"], "training positions")
        model.colors_ = {color: _count(training["colors"][color], color) for color in ("white", "black")}
        model.chunk_counts_ = {str(k): _count(v, k) for k, v in training["chunk_counts"].items()}
        model.notes_ = [str(note) for note in training["notes"]]
        model.rule_weights_ = RuleWeights.from_dict(data["rule_weights"])
        model.library_ = ChunkLibrary.from_table(table)
        model.facts_ = model._facts(table, model.n_games_)
        model.rote_ = _rote(data["rote"])
        belief = data["belief"]
        model.belief_ = None if belief is None else LearnedBelief.from_dict(belief)
        model.belief_kind_ = "rules" if belief is None else "learned"
        if training["belief"] != model.belief_kind_:
            raise ValueError(f"training says belief {training['belief']!r} but the file holds {model.belief_kind_!r}")
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelFileError(f"{source} is malformed: {detail}") from None
    return model


def save_model(model, path: str | Path) -> None:
    """Write a fitted model to ``path`` atomically (gzip when it ends in .gz)."""
    write_document(model_to_dict(model), path)


def write_document(document: dict[str, Any], path: str | Path) -> None:
    """Write a JSON document to ``path`` atomically (gzip when it ends in .gz); ModelFileError if it cannot."""
    path = Path(path)
    payload = json.dumps(document, separators=(",", ":")).encode("utf-8")
    if path.suffix == ".gz":
        payload = gzip.compress(payload, mtime=0)
    handle, temporary = _temporary_file(path)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise ModelFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_writable(path: str | Path) -> None:
    """Raise ModelFileError now if :func:`save_model` could not write ``path`` (before long work)."""
    handle, temporary = _temporary_file(Path(path))
    os.close(handle)
    os.unlink(temporary)


def _temporary_file(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path`` (ModelFileError if the folder or name cannot take it)."""
    folder = path.parent
    try:
        if not folder.is_dir():
            problem = "is not a folder" if folder.exists() else "does not exist"
            raise ModelFileError(f"cannot write {path}: folder {folder} {problem}")
        if path.is_dir():
            raise ModelFileError(f"cannot write {path}: it is a folder")
        path.exists()  # raises for a name the file system cannot hold
        return tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ModelFileError(f"cannot write {path}: {exc.strerror or exc}") from None


def load_model(path: str | Path):
    """Read an IAM model file (plain or gzip JSON); ModelFileError on any problem (see :func:`read_document`)."""
    return model_from_dict(read_document(path), source=f"model file {path}")


def read_document(path: str | Path) -> Any:
    """The JSON content of a model file (plain or gzip); ModelFileError if it cannot be read.

    At most :data:`MAX_MODEL_BYTES` are read, after decompression (a small file that
    inflates to gigabytes is refused with bounded memory); nesting deeper than
    :data:`MAX_NESTING` and numbers longer than :data:`MAX_NUMBER_CHARS` characters
    are refused before the JSON is parsed.
    """
    path = Path(path)
    raw = _read_bounded(path)
    if not raw:
        raise ModelFileError(f"model file {path} is empty")
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip_bounded(raw, path)
    _check_shape_of_text(raw, path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ModelFileError(f"model file {path} is not valid JSON (truncated or corrupt?): {exc}") from None
    return data


def _read_bounded(path: Path) -> bytes:
    """The file's bytes, at most :data:`MAX_MODEL_BYTES` (ModelFileError beyond, or for a non-file)."""
    try:
        if path.exists() and not path.is_file():
            kind = "a folder" if path.is_dir() else "not a regular file (a device, pipe or socket)"
            raise ModelFileError(f"cannot read model file {path}: it is {kind}")
        with path.open("rb") as stream:
            raw = stream.read(MAX_MODEL_BYTES + 1)
    except FileNotFoundError:
        raise ModelFileError(f"model file not found: {path}") from None
    except OSError as exc:
        raise ModelFileError(f"cannot read model file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_MODEL_BYTES:
        raise ModelFileError(f"model file {path} is larger than {MAX_MODEL_BYTES // 2**20} MiB")
    return raw


def _gunzip_bounded(raw: bytes, path: Path) -> bytes:
    """Decompress every gzip member of ``raw``, refusing more than :data:`MAX_MODEL_BYTES` of output."""
    pieces: list[bytes] = []
    size = 0
    data = raw
    try:
        while data:
            member = zlib.decompressobj(wbits=31)
            while data and not member.eof:
                piece = member.decompress(data, _READ_PIECE)
                size += len(piece)
                if size > MAX_MODEL_BYTES:
                    raise ModelFileError(
                        f"model file {path} inflates to more than {MAX_MODEL_BYTES // 2**20} MiB; refused"
                    )
                pieces.append(piece)
                data = member.unconsumed_tail
            if not member.eof:
                raise EOFError("the compressed data ends before its end marker (truncated)")
            data = member.unused_data
            if not data.strip(b"\0"):  # zero padding after the last member, as gzip allows
                data = b""
    except (zlib.error, EOFError) as exc:
        raise ModelFileError(f"model file {path} is a damaged gzip file ({exc})") from None
    return b"".join(pieces)


def _check_shape_of_text(raw: bytes, path: Path) -> None:
    """Refuse deep nesting and huge numbers before the JSON parser sees them (linear time)."""
    text = _STRING.sub(b'""', raw)
    long_number = _LONG_NUMBER.search(text)
    if long_number:
        raise ModelFileError(
            f"model file {path} holds a number of {len(long_number.group())} characters "
            f"(at most {MAX_NUMBER_CHARS} accepted)"
        )
    brackets = np.frombuffer(text.translate(None, _NOT_BRACKETS), dtype=np.uint8)
    if len(brackets):
        steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
        if int(np.cumsum(steps).max()) > MAX_NESTING:
            raise ModelFileError(f"model file {path} is nested deeper than {MAX_NESTING} levels")


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, not {value!r}")
    if value > _MAX_COUNT:
        raise ValueError(f"{what} is too large ({value})")
    return value


def _chunk_table(chunks: dict) -> pd.DataFrame:
    if list(chunks["columns"]) != list(_CHUNK_COLUMNS):
        raise ValueError(f"chunk columns must be {list(_CHUNK_COLUMNS)}")
    rows = chunks["rows"]
    if not isinstance(rows, list):
        raise ValueError("chunk rows must be a list")
    if len(rows) > MAX_CHUNKS:
        raise ValueError(f"the chunk table holds {len(rows):,} chunks, more than the {MAX_CHUNKS:,} accepted")
    codes, values = [], []
    for number, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(_CHUNK_COLUMNS):
            raise ValueError(f"chunk row {number} must have {len(_CHUNK_COLUMNS)} values")
        code = from_pattern(row[0])
        if int(canonical(code)[0]) != code:
            raise ValueError(f"chunk row {number}: pattern {row[0]!r} is not in canonical (mirror) form")
        values.append([_count(value, f"chunk row {number} {name}") for name, value in zip(_CHUNK_COLUMNS[1:], row[1:])])
        codes.append(code)
    if len(set(codes)) != len(codes):
        raise ValueError("the chunk table lists a pattern twice")
    frame = pd.DataFrame(
        np.array(values, dtype=np.int64).reshape(len(values), len(_CHUNK_COLUMNS) - 1),
        columns=list(_CHUNK_COLUMNS[1:]),
        index=pd.Index(np.array(codes, dtype=np.int64), name="code"),
    )
    pieces = np.count_nonzero(decode(frame.index.to_numpy()).reshape(len(frame), BOX * BOX), axis=1)
    if (frame["size"].to_numpy() != pieces).any():
        raise ValueError("a chunk's size differs from the number of pieces in its pattern")
    if (pieces < 2).any() or (frame["games"] > frame["occurrences"]).any():
        raise ValueError("the chunk table holds impossible counts (fewer than 2 pieces, or more games than occurrences)")
    return frame


def _rote(rote: dict) -> RoteMemory:
    sequences = rote["sequences"]
    positions = rote.get("positions", {})  # absent in files written before the position memory
    if not isinstance(sequences, dict) or not isinstance(positions, dict):
        raise ValueError("rote sequences and positions must be objects")
    if max(len(sequences), len(positions)) > MAX_ROTE_ENTRIES:
        raise ValueError(f"the rote memory holds more than {MAX_ROTE_ENTRIES:,} sequences or positions")
    entries = {}
    for key, counts in sequences.items():
        if not isinstance(key, str) or "|" not in key:
            raise ValueError(f"rote entry {key!r} is malformed")
        entries[key] = _rote_entry(key, counts, key.partition("|")[2].split())
    by_position = {}
    for key, counts in positions.items():
        if not isinstance(key, str) or len(key.split()) != 4:
            raise ValueError(f"rote position {key!r} is not an EPD (placement, side, castling, en passant)")
        by_position[key] = _rote_entry(key, counts, [])
    return RoteMemory(
        entries,
        max_ply=_count(rote["max_ply"], "rote max_ply"),
        min_games=_count(rote["min_games"], "rote min_games"),
        positions=by_position,
    )


def _rote_entry(key: str, counts: Any, played: list[str]) -> RoteEntry:
    if not isinstance(counts, dict) or not counts:
        raise ValueError(f"rote entry {key!r} is malformed")
    for move in [*played, *counts]:
        try:
            chess.Move.from_uci(move)
        except ValueError:
            raise ValueError(f"rote entry {key!r} holds {move!r}, not a move in UCI notation") from None
    return RoteEntry(key, {str(move): _count(n, f"rote count {key}") for move, n in counts.items()})
