"""``iam experiment learning-curve``: options of :mod:`experiments.learning_curve`."""

from __future__ import annotations

import argparse

from experiments.learning_curve import HELP, NAME, LearningCurveConfig, run
from iam.cli.experiments._predictions import add_prediction_arguments, prediction_fields, sizes_text

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_prediction_arguments(parser, train_games=sizes_text(LearningCurveConfig.train_games))


def config(args: argparse.Namespace) -> LearningCurveConfig:
    return LearningCurveConfig(**prediction_fields(args))
