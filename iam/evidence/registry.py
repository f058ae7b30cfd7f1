"""The feature families: which exist, their columns, the order they are laid out in, and the sets of them.

Families (each can be switched off, so an ablation can remove it):

* ``move``: the move itself (:mod:`iam.evidence.movefeatures`);
* ``shape``: what the move does to the whole position: threats, mobility, the enemy
  king's squares, pawn structure, rooks on open files (:mod:`iam.evidence.shapefeatures`);
* ``search``: this project's alpha-beta with quiescence scoring every legal move at a
  fixed shallow depth (:func:`search.chess.scoring.score_root_moves`);
* ``value``: the same from a small network distilled from a UCI engine, on numpy alone
  (:mod:`iam.priors.valuenet`);
* ``policy``: other masters' taste, from a small network fitted to their choices
  (:mod:`iam.priors.policynet`; the network that never saw the modelled player);
* ``engine``: the same from a UCI engine such as stockfish, cached on disk
  (:mod:`iam.engines.analysis`);
* ``glance``: the same from the same engine at depth 1
  (:data:`~iam.evidence.settings.GLANCE_DEPTH`): how a move looks at first sight, which
  a master's choice follows as well as its deep value;
* ``habits``: the player's chunks and opening memory, from his IAM model
  (:mod:`iam.evidence.habits`), and how much more than other masters he chooses the
  move's pattern (:mod:`iam.priors.patterns`);
* ``population``: other masters' opening choices (:mod:`iam.priors.population`) and
  the rate at which they choose the move's pattern.

Each family names the function that computes its columns (:mod:`iam.evidence.compute`);
:class:`iam.evidence.evidence.Evidence` computes a position's columns by this registry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from iam.evidence.compute import (
    FamilyColumns,
    engine_columns,
    glance_columns,
    habit_columns,
    move_columns,
    policy_columns,
    population_columns,
    search_columns,
    shape_columns,
    value_columns,
)
from iam.evidence.habits import HABIT_FEATURES
from iam.evidence.movefeatures import MOVE_FEATURES
from iam.evidence.scorefeatures import SCORE_FEATURES
from iam.evidence.shapefeatures import SHAPE_FEATURES
from iam.priors.policynet import POLICY_FEATURES
from iam.priors.population import BOOK_FEATURES

__all__ = [
    "Family",
    "FAMILY_REGISTRY",
    "FAMILIES",
    "DEFAULT_FAMILIES",
    "QUICK_FAMILIES",
    "ENGINE_FAMILIES",
    "family_columns",
    "with_engine",
    "without_engine",
]


@dataclass(frozen=True)
class Family:
    """One family of evidence: its name, its columns, and how it computes them for a position.

    ``compute(evidence, position, found)`` returns the family's columns, one value per
    legal move; ``found`` holds the columns already computed for the position.
    """

    name: str
    columns: tuple[str, ...]
    compute: FamilyColumns


def _score_columns(name: str) -> tuple[str, ...]:
    """The columns of a family of :data:`~iam.evidence.scorefeatures.SCORE_FEATURES` named ``name``."""
    return tuple(f"{name}_{column}" for column in SCORE_FEATURES)


FAMILY_REGISTRY: Mapping[str, Family] = MappingProxyType(
    {
        family.name: family
        for family in (
            Family("move", MOVE_FEATURES, move_columns),
            Family("shape", SHAPE_FEATURES, shape_columns),
            Family("search", _score_columns("search"), search_columns),
            Family("value", _score_columns("value"), value_columns),
            Family("policy", tuple(f"policy_{name}" for name in POLICY_FEATURES), policy_columns),
            Family("engine", _score_columns("engine"), engine_columns),
            Family("glance", _score_columns("glance"), glance_columns),
            Family("habits", (*HABIT_FEATURES, "pattern_lift"), habit_columns),
            Family("population", (*BOOK_FEATURES, "pattern_rate"), population_columns),
        )
    }
)
"""Every feature family by name, in the order their columns are laid out. A new family is one entry here."""

FAMILIES: tuple[str, ...] = tuple(FAMILY_REGISTRY)
"""Every feature family, in the order their columns are laid out."""

ENGINE_FAMILIES: tuple[str, ...] = ("engine", "glance")
"""The families a UCI engine computes: a ranker with any of them needs an engine's path."""

DEFAULT_FAMILIES: tuple[str, ...] = ("move", "shape", "search", "value", "policy", "habits", "population")
"""The pure-Python ranker's families (``engine`` needs an engine)."""

QUICK_FAMILIES: tuple[str, ...] = ("move", "policy", "habits", "population")
"""The families that search nothing: a *quick* ranker of milliseconds a position, which a
game-tree search can afford at its modelled player's nodes below the root, where the
default ranker (which searches every move) is read at the root's children only."""


def family_columns(family: str) -> tuple[str, ...]:
    """The column names of one family."""
    if family not in FAMILY_REGISTRY:
        raise ValueError(f"unknown feature family {family!r} (known: {', '.join(FAMILIES)})")
    return FAMILY_REGISTRY[family].columns


def with_engine(families: Sequence[str]) -> tuple[str, ...]:
    """``families`` and every engine family, in canonical order (what ``--engine`` adds)."""
    return tuple(family for family in FAMILIES if family in families or family in ENGINE_FAMILIES)


def without_engine(families: Sequence[str]) -> tuple[str, ...]:
    """``families`` less the engine families, in canonical order (the pure-Python ranker's)."""
    return tuple(family for family in FAMILIES if family in families and family not in ENGINE_FAMILIES)
