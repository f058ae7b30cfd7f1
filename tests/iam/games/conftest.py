"""Shared pieces of the game-reading tests: every bundled master's games, read once."""

from __future__ import annotations

import pytest

from iam.games.pgn import PlayerGame
from iam.games.player_games import bundled_masters


@pytest.fixture(scope="session")
def bundled_master_games() -> dict[str, list[PlayerGame]]:
    """:func:`~iam.games.player_games.bundled_masters` (read-only: its games are shared by the tests)."""
    return bundled_masters()
