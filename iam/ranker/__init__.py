"""The move ranker: the best predictor of one player we can build on a laptop.

A conditional logit over every legal move (:mod:`iam.ranker.logit`) weighs
evidence from several sources (:mod:`iam.ranker.evidence`): the move itself, a
shallow search, a value network distilled from an engine (:mod:`iam.ranker.valuenet`),
optionally a UCI engine, the player's habits (his IAM model, his move patterns:
:mod:`iam.ranker.patterns`), and other masters' openings and patterns; a player's
weights are pulled towards a population prior (:mod:`iam.ranker.population`).
:class:`MoveRanker` is the estimator.
"""

from iam.prediction import FeatureContribution
from iam.ranker.estimator import MoveRanker
from iam.ranker.evidence import DEFAULT_FAMILIES, FAMILIES, QUICK_FAMILIES, family_columns

__all__ = ["MoveRanker", "FeatureContribution", "FAMILIES", "DEFAULT_FAMILIES", "QUICK_FAMILIES", "family_columns"]
