"""Chess for the search library: every module of :mod:`search` that knows python-chess.

- :mod:`search.chess.board`, :mod:`search.chess.pst`, :mod:`search.chess.engine`: the
  fast chess core (own board, tapered piece-square evaluation, a search loop written
  for it); python-chess only at its boundary and as the oracle of its tests;
- :mod:`search.chess.guided` and :mod:`search.chess.oracle`: the opponent-model-guided
  fast search (a :class:`~search.chess.guided.ModelGuide` plans the modelled player's
  nodes from a predictor near the root and a cheap one deeper) and the oracles of a
  game's continuation, its upper bound;
- :mod:`search.chess.scoring`: :func:`score_root_moves`, a value for every legal move
  of a position at a given depth, at about the cost of one search;
- :mod:`search.chess.game` and :mod:`search.chess.evaluation`: chess as one game of
  the generic protocol (through python-chess) and its evaluations;
  :mod:`search.chess.endgames`: pawnless endgames for the retrograde solver;
- :mod:`search.chess.play`: the selective search the UCI engine plays its plain moves with;
- :mod:`search.chess.uci` and :mod:`search.chess.match`: the UCI engine and engine matches.

The names below are imported when first used: the compiled core loads in about a second,
which a module that only needs python-chess (or the UCI engine's answer to ``uci``) does
not wait for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers and readers
    from search.chess.board import Position
    from search.chess.engine import ChessSearch
    from search.chess.scoring import score_root_moves

_PUBLIC = {
    "Position": "search.chess.board", "ChessSearch": "search.chess.engine", "score_root_moves": "search.chess.scoring",
}
"""Public name -> the module that defines it."""

__all__ = ["Position", "ChessSearch", "score_root_moves"]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'search.chess' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
