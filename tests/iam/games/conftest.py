"""Shared pieces of the game-reading tests: every bundled master's games, read once per run."""

from __future__ import annotations

import fcntl
import os
import pickle
from pathlib import Path

import pytest

from iam.games.bundled import bundled_pgn, manifest
from iam.games.pgn import PlayerGame
from iam.games.player_games import bundled_masters, read_games


@pytest.fixture(scope="session")
def bundled_master_games(tmp_path_factory) -> dict[str, list[PlayerGame]]:
    """:func:`~iam.games.player_games.bundled_masters` (read-only: its games are shared by the tests).

    Under pytest-xdist the workers of one run share the reading: each master's file is read by the first worker
    to take it (a lock per master; a worker that finds a master taken reads the next one) and kept in this run's
    own temporary folder for the other, so two workers that need the games at once read half of them each.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return bundled_masters()
    folder = tmp_path_factory.getbasetemp().parent / "bundled-masters"  # this run's folder, shared by its workers
    folder.mkdir(exist_ok=True)
    entries = manifest()
    read: dict[int, list[PlayerGame]] = {}
    waiting = []
    for number, entry in enumerate(entries):
        with open(folder / f"{number}.lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waiting.append(number)  # the other worker is reading it
                continue
            _read_or_keep(folder / f"{number}.pickle", entry, read, number)
    for number in waiting:
        with open(folder / f"{number}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            _read_or_keep(folder / f"{number}.pickle", entries[number], read, number)
    masters = {}
    for number, entry in enumerate(entries):
        kept = read.get(number)
        masters[entry.player] = kept if kept is not None else pickle.loads((folder / f"{number}.pickle").read_bytes())
    return masters


def _read_or_keep(path: Path, entry, read: dict[int, list[PlayerGame]], number: int) -> None:
    """Reads master ``number``'s games into ``read`` and ``path`` unless a worker already kept them in ``path``
    (called holding the master's lock)."""
    if path.exists():
        return
    games, _ = read_games([bundled_pgn(entry.file)], player=entry.player, quiet=True)
    partial = path.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(games, protocol=pickle.HIGHEST_PROTOCOL))
    partial.rename(path)
    read[number] = games
