"""Where other masters have been: the model's belief updated by what they chose in the position.

His own games cover only part of the openings he will meet. Many positions his games never
reached were reached by other masters, and what they chose there is good evidence of what a
master of the same schools plays. :class:`BookBeliefs` is a :class:`~iam.prepare.tree.Predictor`
that updates the model's belief by the population book (:class:`iam.priors.population.PopulationBook`:
each bundled master's own moves in the first plies of his training games, every master's test
games left out) with a Dirichlet posterior whose prior is the model's belief:

    P(move) = (b(move) + B * q(move)) / (m + B)

with ``b`` the book's games with the move, ``m`` their sum over the legal moves, ``q`` the
model's belief and ``B`` = :data:`POPULATION_STRENGTH` pseudo-games. Where the book has no
game, the model's belief stands. His own games then update these beliefs in turn
(:class:`~iam.prepare.beliefs.HisLineBeliefs`): the model, then the masters, then him.

The book never holds the modelled player's own moves (:meth:`PopulationBook.without` drops him
by name), so what he chose is counted once, in his own tree.

>>> import chess
>>> from iam.priors.population import PopulationBook
>>> e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
>>> class Even:
...     def predict_proba(self, board):
...         return {e4: 0.5, d4: 0.5}
>>> book = PopulationBook({"Tal": {chess.Board().epd(): {"e2e4": 6}}})
>>> beliefs = BookBeliefs(Even(), book, strength=4.0).predict_proba(chess.Board())
>>> round(beliefs[e4], 2), round(beliefs[d4], 2)
(0.8, 0.2)
"""

from __future__ import annotations

import chess

from iam.prepare.tree import Predictor, dirichlet_update
from iam.priors.population import PopulationBook

__all__ = ["POPULATION_STRENGTH", "BookBeliefs"]

POPULATION_STRENGTH = 4.0
"""Pseudo-games of the model's belief beside the population book's games. Chosen on development
games of two bundled masters (1, 4 and 16 named his opening moves alike)."""


class BookBeliefs:
    """The model's beliefs updated by the population book's games in the position (see the module docstring)."""

    def __init__(self, model: Predictor, book: PopulationBook, strength: float = POPULATION_STRENGTH) -> None:
        if not strength > 0:
            raise ValueError(f"the population's strength must be positive, not {strength}")
        self.model, self.book, self.strength = model, book, strength

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        prior = self.model.predict_proba(board)
        counts = self.book.lookup(board)
        total = sum(counts.get(move.uci(), 0) for move in prior)  # the book's games with a move the model lists
        return dirichlet_update(prior, counts, self.strength, total) if total else prior
