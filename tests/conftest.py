"""Shared fixtures: small game sets from the bundled data and tiny hand-written PGNs."""

from __future__ import annotations

from pathlib import Path

import pytest

from iam.bundled import default_pgn
from iam.pgn import load_player_games

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def botvinnik_games():
    """All of Botvinnik's bundled games (protocol numbers intact)."""
    games, _ = load_player_games([default_pgn()], player="Botvinnik")
    return games


@pytest.fixture(scope="session")
def small_model(botvinnik_games):
    """A model fitted on Botvinnik's first 60 training games (fast, shared, read-only)."""
    from iam.evaluation import first_training_games
    from iam.model import OpponentModel

    return OpponentModel(belief_positions=400).fit(first_training_games(botvinnik_games, 60))


@pytest.fixture(scope="session")
def bundled_head(tmp_path_factory):
    """``bundled_head(n)``: Botvinnik's first ``n`` bundled games as a PGN file of their own."""
    text = default_pgn().read_text(encoding="utf-8")

    def write(count: int) -> Path:
        path = tmp_path_factory.mktemp("pgn") / f"botvinnik{count}.pgn"
        path.write_text("".join("[Event " + game for game in text.split("[Event ")[1 : count + 1]), encoding="utf-8")
        return path

    return write


@pytest.fixture()
def tiny_pgn() -> Path:
    return DATA / "tiny.pgn"
