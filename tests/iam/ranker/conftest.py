"""Fixtures of the ranker's tests: a few training games and one quick ranker fitted on them (shared, read-only)."""

from __future__ import annotations

import pytest

from iam.measure.evaluation import first_training_games
from iam.ranker import MoveRanker

FAST = ("move", "habits", "population")
"""Families that search nothing: a ranker of them fits in seconds."""


@pytest.fixture(scope="session")
def training(botvinnik_games):
    """Botvinnik's first 30 training games."""
    return first_training_games(botvinnik_games, 30)


@pytest.fixture(scope="session")
def ranker(training, shared):
    """A ranker of the :data:`FAST` families, fitted on 250 positions of ``training`` without a prior (once per run:
    the test workers share it)."""
    return shared("fast-ranker", lambda: MoveRanker(families=FAST, max_positions=250, prior="none").fit(training))
