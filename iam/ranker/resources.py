"""What a move ranker runs on, as opposed to what it is: the engine program, the caches, the worker processes.

A ranker's parameters say what it learns and predicts from (its families, depths, prior); the
same fitted ranker gives the same beliefs whichever engine binary, cache files or number of
processes it runs on, as long as the engine is the same program. So these are not estimator
parameters and never go into a model file: they are given to ``fit`` and to ``load`` (or
:meth:`~iam.ranker.MoveRanker.use`) by whoever runs the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iam.evidence.settings import EngineSettings

__all__ = ["Resources", "NO_RESOURCES"]

_MAX_JOBS = 1024


@dataclass(frozen=True)
class Resources:
    """The programs, files and processes a ranker's evidence is computed with."""

    engine: str | None = None
    """Path of the UCI engine the ``engine`` and ``glance`` families run (None: no engine)."""
    engine_cache: str | None = None
    """SQLite file keeping the engine's analyses across runs and processes."""
    engine_timeout: float | None = None
    """Seconds one position's analysis may take (None: derived from the depth)."""
    search_cache: str | None = None
    """SQLite file keeping the search family's scores across runs and processes (:mod:`iam.evidence.search_cache`;
    may be the engine cache's file). The scores are the same with or without it."""
    jobs: int = 1
    """Processes computing training features."""

    def __post_init__(self) -> None:
        jobs = self.jobs
        if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or not 1 <= jobs <= _MAX_JOBS:
            raise ValueError(f"jobs must be an integer from 1 to {_MAX_JOBS}, not {jobs!r}")
        if self.engine is not None and not isinstance(self.engine, str):
            raise ValueError(f"engine must be the path of a UCI engine or None, not {self.engine!r}")

    def engine_settings(self, depth: int) -> EngineSettings | None:
        """The engine at ``depth`` (a ranker's parameter), or None without an engine."""
        if not self.engine:
            return None
        return EngineSettings(path=self.engine, depth=depth, cache=self.engine_cache, timeout=self.engine_timeout)


NO_RESOURCES = Resources()
"""No engine, no cache, one process."""
