"""The command lines of :mod:`experiments.evolution`."""
