"""Experiments: one module per experiment, run by ``iam experiment NAME``.

Each module declares ``NAME`` and ``HELP``, adds its own options in
``add_arguments(parser)`` and returns an :class:`~experiments.runner.ExperimentResult`
(named pandas DataFrames, a JSON payload, a markdown summary, optional figures) from
``run(args)``. :mod:`experiments.runner` lists the modules and writes the results.
"""
