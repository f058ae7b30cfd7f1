"""The bundled game records: where they are, and proof they are intact.

In a source checkout (or an editable install) the files sit in ``datasets/`` at the
repository root; a wheel carries the same folder as ``iam/bundled_data``. Every file
is checked against ``MANIFEST.json`` (size, sha256, and the number of games counted by
their Event tags) so an experiment never runs silently on damaged data.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from iam.errors import DataError

__all__ = ["BundledFile", "bundled_dir", "manifest", "bundled_pgn", "default_pgn"]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The iam package: a wheel carries the games in its bundled_data/, a source tree beside it in datasets/."""


@dataclass(frozen=True)
class BundledFile:
    """One manifest entry: a PGN file of one player's games."""

    file: str
    player: str
    games: int
    sha256: str
    bytes: int
    source: str


def bundled_dir() -> Path:
    """The folder holding the bundled PGN files and their manifest."""
    for candidate in (_PACKAGE_DIR / "bundled_data", _PACKAGE_DIR.parent / "datasets"):
        if (candidate / "MANIFEST.json").is_file():
            return candidate
    raise DataError("the bundled game records are missing (no MANIFEST.json next to the package)")


@functools.cache
def manifest() -> tuple[BundledFile, ...]:
    """The manifest entries, default file first."""
    path = bundled_dir() / "MANIFEST.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        entries = tuple(BundledFile(**entry) for entry in raw["files"])
        default = raw["default"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"bundled manifest {path} is unreadable: {exc}") from None
    return tuple(sorted(entries, key=lambda entry: entry.file != default))


@functools.cache
def bundled_pgn(name: str) -> Path:
    """Path of a bundled file (by file name or player name), verified against the manifest."""
    wanted = name.lower().removesuffix(".pgn")
    for entry in manifest():
        if wanted in (entry.file.lower().removesuffix(".pgn"), entry.player.lower()):
            return _verified(entry)
    known = ", ".join(entry.file for entry in manifest())
    raise DataError(f"no bundled game file called {name!r} (bundled: {known})")


def default_pgn() -> Path:
    """The default data set (Botvinnik's games), verified."""
    return _verified(manifest()[0])


def _verified(entry: BundledFile) -> Path:
    path = bundled_dir() / entry.file
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"bundled file {path} cannot be read: {exc.strerror}") from None
    digest = hashlib.sha256(data).hexdigest()
    if len(data) != entry.bytes or digest != entry.sha256:
        raise DataError(
            f"bundled file {path} does not match its manifest "
            f"(expected sha256 {entry.sha256[:12]}..., found {digest[:12]}...)"
        )
    games = data.count(b"\n[Event ") + data.startswith(b"[Event ")  # one Event tag per game (cheap)
    if games != entry.games:
        raise DataError(f"bundled file {path} holds {games} games but its manifest says {entry.games}")
    return path
