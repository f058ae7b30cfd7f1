"""The move ranker: the best predictor of one player we can build on a laptop.

A conditional logit over every legal move (:mod:`iam.priors.logit`) weighs
evidence from several sources (:mod:`iam.evidence.registry`): the move itself, a
shallow search, a value network distilled from an engine (:mod:`iam.priors.valuenet`),
optionally a UCI engine, the player's habits (his IAM model, his move patterns:
:mod:`iam.priors.patterns`), and other masters' openings and patterns; a player's
weights are pulled towards a population prior (:mod:`iam.priors.population`).
:class:`MoveRanker` is the estimator.
"""

from iam.evidence.registry import DEFAULT_FAMILIES, FAMILIES, QUICK_FAMILIES, family_columns
from iam.models.explanation import FeatureContribution
from iam.ranker.estimator import MoveRanker

__all__ = ["MoveRanker", "FeatureContribution", "FAMILIES", "DEFAULT_FAMILIES", "QUICK_FAMILIES", "family_columns"]
