"""Experiments: one module per experiment, each a function of a frozen config.

``run(config) -> ExperimentResult`` (:mod:`experiments.common`): named pandas
DataFrames, a JSON payload, a markdown summary and figures, written by
:func:`experiments.common.write_result`. The command line (``iam experiment NAME``,
:mod:`iam.cli.experiment`) turns options into configs; a notebook builds them
directly, e.g. ``belief_bands.run(BeliefBandsConfig(train_games=(12, None)))``.
"""
