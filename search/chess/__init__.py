"""Chess for the search library: everything in :mod:`search` that knows python-chess.

- :mod:`search.chess.scoring`: :func:`score_root_moves`, a value for every legal move
  of a position at a given depth, at about the cost of one search.
"""

from search.chess.scoring import score_root_moves

__all__ = ["score_root_moves"]
