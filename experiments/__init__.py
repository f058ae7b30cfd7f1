"""Experiments: one module per experiment, each returning pandas DataFrames."""
