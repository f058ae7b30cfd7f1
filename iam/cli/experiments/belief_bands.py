"""``iam experiment belief-bands``: options of :mod:`experiments.belief_bands`."""

from __future__ import annotations

import argparse

from experiments.belief_bands import HELP, NAME, BeliefBandsConfig, run
from iam.cli.experiments._predictions import add_prediction_arguments, prediction_fields, sizes_text

__all__ = ["NAME", "HELP", "add_arguments", "config", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_prediction_arguments(parser, train_games=sizes_text(BeliefBandsConfig.train_games))


def config(args: argparse.Namespace) -> BeliefBandsConfig:
    return BeliefBandsConfig(**prediction_fields(args))
