"""Experiments on evolved evaluations: :mod:`~experiments.evolution.evolve` (a Kendall-Whitwell run's
piece values against the standard ones, and in matches against the unevolved and the hand-set values)."""
