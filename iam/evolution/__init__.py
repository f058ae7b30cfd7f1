"""Evolving the chess core's piece values by self-play, in demes, where the runtime says
(local processes or a Dask cluster), with every generation on disk: :mod:`iam.evolution.run`."""

from iam.evolution.run import (
    EvolutionConfig,
    EvolutionError,
    GenerationReport,
    Mutation,
    evolve_piece_values,
    load_generations,
)

__all__ = ["EvolutionConfig", "EvolutionError", "GenerationReport", "Mutation", "evolve_piece_values",
           "load_generations"]
