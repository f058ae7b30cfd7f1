"""The opening repertoire as evidence of who played: each candidate's own choices by position.

A master's openings are the sharpest part of his fingerprint: which first moves he
plays, which defences he chooses, which sidelines he prefers. Every IAM model (and
every move ranker, through the IAM model of its habits family) remembers, for the
positions of the first plies of its player's games, which moves he chose and in how
many games (:class:`~iam.chunks.rote.RoteMemory`). In a position that some candidate
remembers, :class:`RepertoireScorer` gives the move played the probability of a
Dirichlet posterior per candidate:

    P_c(move) = (n_c(move) + A * q(move)) / (n_c + A)

with ``n_c`` the candidate's games through the position, ``n_c(move)`` those with this
move, ``A`` = :data:`REPERTOIRE_STRENGTH` pseudo-games of a base ``q`` shared by every
candidate: the candidates' pooled choices there, smoothed towards all legal moves alike
by :data:`BASE_STRENGTH` pseudo-games. A candidate who never reached the position gets
the base, so only what sets the candidates apart moves the likelihoods. Positions no
candidate remembers are left to the candidate models' own beliefs (:class:`iam.measure.identify.LikelihoodScorer`).

The pooled base belongs to the candidate set, as any comparison's shared ground
should; it never reads a game the candidates' memories did not.

>>> import chess
>>> from iam.priors.positions import position_of
>>> from iam.chunks.rote import RoteEntry, RoteMemory
>>> start = chess.Board()
>>> e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
>>> kings_pawn = RoteMemory(positions={start.epd(): RoteEntry(start.epd(), {"e2e4": 9, "d2d4": 1})})
>>> queens_pawn = RoteMemory(positions={start.epd(): RoteEntry(start.epd(), {"d2d4": 10})})
>>> scorer = RepertoireScorer([kings_pawn, queens_pawn])
>>> scorer.position(position_of(start, e4)).round(2)
array([-0.3 , -1.94])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from iam.chunks.model import OpponentModel
from iam.chunks.rote import RoteMemory
from iam.priors.positions import PlayerPosition
from iam.ranker.estimator import MoveRanker

__all__ = ["REPERTOIRE_STRENGTH", "BASE_STRENGTH", "MODEL_WEIGHT", "RepertoireScorer", "memory_of"]

REPERTOIRE_STRENGTH = 5.0
"""Pseudo-games of the shared base in each candidate's posterior (set a priori, and
checked on development games only: 2, 5 and 20 identified alike)."""
BASE_STRENGTH = 1.0
"""Pseudo-games of "every legal move alike" in the pooled base."""
MODEL_WEIGHT = 0.05
"""Weight of the models' log-likelihoods in the positions no candidate remembers, beside
the repertoire's (weight 1). Chosen on development games of the six bundled masters
(``docs/results/identification.md``): the larger the weight, the worse the
identification; outside the openings
the models' likelihoods differ between candidates more by how sharp each model is than
by who played. A small weight keeps them as the tie-breaker where no candidate's
repertoire reaches."""


def memory_of(model: OpponentModel | MoveRanker) -> RoteMemory | None:
    """The opening memory a candidate carries: an IAM model's own, a ranker's through its habits (None without)."""
    return model.opening_memory()


class RepertoireScorer:
    """Log-probability of the move played under each candidate's opening repertoire.

    ``memories``: one per candidate (None for a candidate without one, who then always
    gets the base).
    """

    def __init__(
        self,
        memories: Sequence[RoteMemory | None],
        *,
        strength: float = REPERTOIRE_STRENGTH,
        base_strength: float = BASE_STRENGTH,
    ) -> None:
        if not strength > 0 or not base_strength > 0:
            raise ValueError("the repertoire's pseudo-game strengths must be positive")
        self.strength = strength
        self.base_strength = base_strength
        self._own = [dict(memory.positions) if memory is not None else {} for memory in memories]
        pooled: dict[str, Counter[str]] = {}
        for own in self._own:
            for epd, entry in own.items():
                pooled.setdefault(epd, Counter()).update(entry.counts)
        self._pooled = pooled

    def __len__(self) -> int:
        """Positions some candidate remembers."""
        return len(self._pooled)

    def position(self, position: PlayerPosition) -> np.ndarray | None:
        """Per candidate the log-probability of the move played, or None where no candidate remembers the position."""
        if not self._pooled or position.played < 0:
            return None
        epd = position.board.epd()
        pooled = self._pooled.get(epd)
        if pooled is None:
            return None
        move = position.moves[position.played].uci()
        base = (pooled.get(move, 0) + self.base_strength / len(position.moves)) / (
            sum(pooled.values()) + self.base_strength
        )
        chosen = np.zeros(len(self._own))
        games = np.zeros(len(self._own))
        for j, own in enumerate(self._own):
            entry = own.get(epd)
            if entry is not None:
                chosen[j] = entry.counts.get(move, 0)
                games[j] = entry.games
        return np.log((chosen + self.strength * base) / (games + self.strength))
