"""A fingerprint of the evidence the code computes, to tell whether the shipped artefacts still fit it.

The artefacts' manifest (:mod:`iam.priors.artefacts`) records the fingerprint of the code
they were fitted on; a code change that leaves it unchanged leaves every input the
artefacts read unchanged.
"""

from __future__ import annotations

import numpy as np

from iam.evidence.evidence import Evidence, EvidenceSources
from iam.games.bundled import default_pgn
from iam.games.heldout import training_games
from iam.games.player_games import read_games
from iam.priors.policynet import require_policy_net
from iam.priors.positions import player_positions

__all__ = ["FINGERPRINT_FAMILIES", "FINGERPRINT_POSITIONS", "feature_fingerprint"]

FINGERPRINT_FAMILIES: tuple[str, ...] = ("move", "shape", "search", "value", "policy")
"""The evidence families the fingerprint computes: every one that needs neither a player nor an engine."""

FINGERPRINT_POSITIONS = 12
"""How many positions of the default master's training games the fingerprint computes."""


def feature_fingerprint(positions: int = FINGERPRINT_POSITIONS) -> dict[str, list[float]]:
    """Per evidence column, the sum and the sum of squares of its values over fixed positions.

    The positions are a seeded sample of the default master's training games; the
    families are :data:`FINGERPRINT_FAMILIES`, computed with the shipped networks. Two
    codes that compute the same inputs give the same fingerprint (up to floating-point
    rounding: compare with :func:`iam.priors.artefacts.fingerprints_agree`).
    """
    games, _ = read_games([default_pgn()], player="Botvinnik", quiet=True)
    sample = player_positions(training_games(games), sample=positions, random_state=0)
    evidence = Evidence(families=FINGERPRINT_FAMILIES, sources=EvidenceSources(policy_net=require_policy_net(None)[1]))
    rows = np.vstack([evidence.matrix(position) for position in sample if position.moves])
    return {
        name: [float(np.sum(rows[:, column])), float(np.sum(rows[:, column] ** 2))]
        for column, name in enumerate(evidence.columns)
    }
