"""How each feature family computes its columns for one position.

A family's computation is a function ``(context, position, found) -> columns``: ``context``
is what the families read beside the position (:class:`EvidenceContext`: the player's IAM
model, the opening book, the networks, the move scores of the search and of the engine),
``found`` the columns already computed for the position (the networks read the move
family's), and the result one array of values per column, one value per legal move. The
registry (:mod:`iam.evidence.registry`) names these functions;
:class:`iam.evidence.evidence.Evidence` is the context they are given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from iam.evidence.habits import HABIT_FEATURES, habit_features
from iam.evidence.movefeatures import move_features
from iam.evidence.scorefeatures import score_features
from iam.evidence.shapefeatures import shape_features
from iam.evidence.sources import EvidenceSources
from iam.priors.patterns import MovePatterns, pattern_keys
from iam.priors.policynet import PolicyNet, policy_features
from iam.priors.population import PopulationBook, book_features
from iam.priors.positions import PlayerPosition
from iam.priors.valuenet import ValueNet

__all__ = [
    "EvidenceContext",
    "FamilyColumns",
    "move_columns",
    "shape_columns",
    "search_columns",
    "value_columns",
    "policy_columns",
    "engine_columns",
    "glance_columns",
    "habit_columns",
    "population_columns",
]


class EvidenceContext(Protocol):
    """What the families read beside the position: the player's sources and the sources of move scores."""

    sources: EvidenceSources
    """The player's IAM model (``None``: the habits family's IAM columns are zeros), the population's
    opening book (``None``: an empty book) and the other sources the methods below read."""

    def value_network(self) -> ValueNet:
        """The value network that scores the moves."""
        ...

    def policy_network(self) -> PolicyNet:
        """The population's policy network."""
        ...

    def population_patterns(self) -> MovePatterns:
        """The population's move patterns."""
        ...

    def pattern_lift(self) -> np.ndarray:
        """Per move pattern, the player's log lift over the population."""
        ...

    def search_scores(self, position: PlayerPosition) -> dict:
        """This project's search's score of each legal move."""
        ...

    def engine_scores(self, position: PlayerPosition) -> dict:
        """The UCI engine's score of each legal move."""
        ...

    def glance_scores(self, position: PlayerPosition) -> dict:
        """The UCI engine's score of each legal move at first sight."""
        ...


FamilyColumns = Callable[[EvidenceContext, PlayerPosition, dict[str, np.ndarray]], dict[str, np.ndarray]]
"""A family's computation: ``(context, position, found)`` -> its columns, one value per legal move."""


def _known_move_columns(position: PlayerPosition, found: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The move family's columns, from ``found`` when they are there (the networks read them)."""
    return found if "exchange_gain" in found else move_features(position)


def move_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``move`` family: the move itself (:mod:`iam.evidence.movefeatures`)."""
    return move_features(position)


def shape_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``shape`` family: what the move does to the whole position (:mod:`iam.evidence.shapefeatures`)."""
    return shape_features(position)


def search_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``search`` family: the score features of this project's search's scores."""
    return score_features(context.search_scores(position), position.moves, "search")


def value_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``value`` family: the score features of the value network's scores."""
    scores = context.value_network().scores(position, _known_move_columns(position, found))
    return score_features(scores, position.moves, "value")


def policy_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``policy`` family: other masters' taste, from the population's policy network."""
    return policy_features(context.policy_network().log_beliefs(position, _known_move_columns(position, found)))


def engine_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``engine`` family: the score features of the UCI engine's scores."""
    return score_features(context.engine_scores(position), position.moves, "engine")


def glance_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``glance`` family: the score features of the UCI engine's scores at first sight."""
    return score_features(context.glance_scores(position), position.moves, "glance")


def habit_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``habits`` family: the player's chunks and opening memory, and his lift on the move's pattern."""
    iam = context.sources.iam
    if iam is None:
        habits = {name: np.zeros(len(position.moves)) for name in HABIT_FEATURES}
    else:
        habits = habit_features(iam, position)
    habits["pattern_lift"] = context.pattern_lift()[pattern_keys(position.board, position.moves)]
    return habits


def population_columns(
    context: EvidenceContext, position: PlayerPosition, found: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The ``population`` family: other masters' opening choices and the rate of the move's pattern."""
    population = book_features(context.sources.book or PopulationBook(), position)
    population["pattern_rate"] = context.population_patterns().log_rates[pattern_keys(position.board, position.moves)]
    return population
