"""Model files: versioned, human-readable JSON (gzip when the name ends in .gz), never pickle.

A model file holds a fitted :class:`~iam.chunks.fitted.FittedState`, everything an
opponent model needs to predict: its parameters, the chunk library as a table (each
chunk written as a readable pattern such as ``".P/P."``), the rote memory and the
belief weights, behind a format name and a version. It
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from iam.errors import ModelFileError

__all__ = [
    "MAX_MODEL_BYTES",
    "MAX_NESTING",
    "MAX_NUMBER_CHARS",
    "check_writable",
    "MODEL_FORMATS",
    "ModelHeader",
    "read_header",
    "read_document",
    "write_document",
]

MAX_MODEL_BYTES = 64 * 1024 * 1024
"""Largest model file read, after decompression (far above a real model: ``docs/results/hostile-input.md``)."""
MAX_NESTING = 16
"""Deepest nesting of JSON objects and lists accepted (a model file needs 4)."""
MAX_NUMBER_CHARS = 40
"""Longest number accepted, in characters (a count needs at most 19, a float 24)."""
_READ_PIECE = 1 << 20
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_LONG_NUMBER = re.compile(rb"[-+0-9.eE]{%d,}" % (MAX_NUMBER_CHARS + 1))
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
MODEL_FORMATS = ("iam-opponent-model", "iam-move-ranker")
"""The formats of the two models' files (``iam.chunks.fitted.FORMAT``, ``iam.ranker.persistence.RANKER_FORMAT``),
named here so that a file's start is recognised without importing the models."""
_HEADER_BYTES = 8192


@dataclass(frozen=True)
class ModelHeader:
    """What the first bytes of a model file say: its format and the player it models (None: not said there)."""

    format: str
    player: str | None


def read_header(path: str | Path) -> ModelHeader | None:
    """The format and player of a model file from its first :data:`_HEADER_BYTES` (decompressed), without
    reading the rest: a model file starts with its format and names its player in a top-level field soon after.

    None when the file cannot be read or does not start like a model file (JSON whose first key is
    ``format``); the file's other parts are checked only when it is loaded (:func:`read_document`).
    """
    try:
        with Path(path).open("rb") as stream:
            head = stream.read(_HEADER_BYTES)
        if head[:2] == b"\x1f\x8b":
            head = zlib.decompressobj(wbits=31).decompress(head, _HEADER_BYTES)
    except (OSError, zlib.error):
        return None
    fields = _leading_fields(head.decode("utf-8", errors="ignore"), ("format", "player"))
    kind, player = fields.get("format"), fields.get("player")
    if not isinstance(kind, str):
        return None
    return ModelHeader(format=kind, player=player if isinstance(player, str) else None)


def _leading_fields(text: str, wanted: tuple[str, ...]) -> dict[str, object]:
    """The ``wanted`` top-level fields of the JSON object that ``text`` starts (possibly cut short), read in order
    until all are found or the text ends; nothing unless its first key is ``wanted[0]``."""
    decoder = json.JSONDecoder()
    found: dict[str, object] = {}
    index = _skip_space(text, 0)
    if not text.startswith("{", index):
        return found
    index += 1
    try:
        while len(found) < len(wanted):
            key, index = decoder.raw_decode(text, _skip_space(text, index))
            index = _skip_space(text, index)
            if not isinstance(key, str) or not text.startswith(":", index) or (not found and key != wanted[0]):
                return found
            value, index = decoder.raw_decode(text, _skip_space(text, index + 1))
            if key in wanted:
                found[key] = value
            index = _skip_space(text, index)
            if not text.startswith(",", index):
                return found
            index += 1
    except (ValueError, RecursionError):  # the text ends inside a value, or is not JSON
        pass
    return found


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def write_document(document: dict[str, Any], path: str | Path) -> None:
    """Write a JSON document to ``path`` atomically (gzip when it ends in .gz); ModelFileError if it cannot."""
    path = Path(path)
    payload = json.dumps(document, separators=(",", ":")).encode("utf-8")
    if path.suffix == ".gz":
        payload = gzip.compress(payload, mtime=0)
    handle, temporary = _temporary_file(path)
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # the usual permissions, not the temporary file's owner-only ones
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


def _umask() -> int:
    """The process's file-creation mask (reading it means setting it, so it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_writable(path: str | Path) -> None:
    """Raise ModelFileError now if :func:`write_document` could not write ``path`` (before long work)."""
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
        if path.is_symlink() or (path.exists() and not path.is_file()):  # the rename would replace it, not write it
            raise ModelFileError(f"cannot write {path}: it is not a regular file (a device, pipe, socket or link)")
        path.exists()  # raises for a name the file system cannot hold
        return tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ModelFileError(f"cannot write {path}: {exc.strerror or exc}") from None


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
