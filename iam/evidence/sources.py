"""What the evidence's families read about the player and the population: his IAM model and move
patterns, the population's book and patterns, the networks.

:class:`EvidenceSources` is one value that :class:`~iam.evidence.evidence.Evidence` computes from;
it lives apart from the evidence so that each family's computation (:mod:`iam.evidence.compute`)
can name it without the registry.
"""

from __future__ import annotations

from dataclasses import dataclass

from iam.chunks.model import OpponentModel
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.policynet import PolicyNet
from iam.priors.population import PopulationBook
from iam.priors.valuenet import ValueNet

__all__ = ["EvidenceSources"]


@dataclass(frozen=True)
class EvidenceSources:
    """The player's and the population's sources the families read (None: the family's default or none).

    ``patterns`` are the population's move patterns (the player left out), ``own_patterns``
    the player's own.
    """

    iam: OpponentModel | None = None
    """The player's IAM model (None: the habits family's IAM columns are zeros)."""
    book: PopulationBook | None = None
    """The population's opening book (None: an empty book)."""
    patterns: MovePatterns | None = None
    own_patterns: PatternCounts | None = None
    value_net: ValueNet | None = None
    """The value network (None: the shipped one)."""
    policy_net: PolicyNet | None = None
    """The population's policy network (the caller picks the one that never saw the player)."""
