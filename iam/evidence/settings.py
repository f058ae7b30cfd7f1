"""The search and engine settings the evidence reads: how deep each source of move scores looks.

The search family scores every move with this project's search at a fixed depth; the
engine families read a UCI engine, named with its depth and cache by :class:`EngineSettings`
(defined with the runtime that names the engine, :mod:`iam.runtime`).
They live apart from the families that read them so a command can name an engine or a
depth without loading the evidence's sources.
"""

from __future__ import annotations

from iam.runtime import EngineSettings

__all__ = ["DEFAULT_SEARCH_DEPTH", "FAST_SEARCH_DEPTH", "GLANCE_DEPTH", "EngineSettings"]

DEFAULT_SEARCH_DEPTH = 3
"""Plies at which this project's search scores every move. Chosen on development games:
each depth up to 3 named the played move more often than the one before, at several times
the cost (``docs/results/ranker.md``)."""

FAST_SEARCH_DEPTH = 2
"""The shallower depth the bundled prior is also fitted at: a ranker about twice as quick to
train and to query, for a short run (the first command of the README), at a point or so of top-1."""

GLANCE_DEPTH = 1
"""Depth of the ``glance`` family's analyses: how a move looks at first sight. Chosen on
development games (``docs/results/ranker.md``, *Engine evidence*)."""
