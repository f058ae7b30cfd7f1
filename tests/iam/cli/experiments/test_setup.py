"""The options ply gain and guidance tuning share (iam.cli.experiments._setup): data, models, the watched line and
the reference engine, from namespaces parsed by their parser."""

from __future__ import annotations

import argparse

import pytest

from experiments.common import GameSource
from experiments.guided_depth import DEFAULT_POSITIONS, LINE_PLIES, POLICY_POSITIONS, LineJudge, PlayerModels
from iam.cli.experiments._setup import add_setup_arguments, setup_fields
from iam.errors import DataError


def _parse(*argv: str, positions: bool = True, max_positions: int = DEFAULT_POSITIONS) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    add_setup_arguments(parser, positions=positions, max_positions=max_positions)
    return parser.parse_args(list(argv))


def test_the_defaults_give_all_training_games_the_watched_line_and_the_reference(monkeypatch):
    """Without flags: every training game, the default policy positions, the default line and a depth-12
    reference, on the experiment's default number of positions from the test games."""
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    args = _parse()
    assert args.positions == "test" and args.scheduler is None
    fields = setup_fields(args)
    assert fields["models"] == PlayerModels(train_games=None, policy_positions=POLICY_POSITIONS, ranker_model=None)
    assert fields["judging"] == LineJudge(line_plies=LINE_PLIES, reference_depth=12, reference=True)
    assert fields["source"] == GameSource() and fields["max_positions"] == DEFAULT_POSITIONS
    assert not hasattr(_parse(positions=False), "positions")
    assert setup_fields(_parse(max_positions=7))["max_positions"] == 7


def test_the_given_flags_reach_the_models_and_the_judge():
    """``--train-games``, ``--line-plies``, ``--reference-depth`` and ``--no-reference`` land in their configs; the
    policy's positions and the saved ranker are the caller's."""
    args = _parse("--train-games", "12", "--line-plies", "4", "--reference-depth", "3", "--no-reference",
                  "--positions", "dev", "--player", "Tal")
    fields = setup_fields(args, policy_positions=80, ranker_model="r.json")
    assert fields["models"] == PlayerModels(train_games=12, policy_positions=80, ranker_model="r.json")
    assert fields["judging"] == LineJudge(line_plies=4, reference_depth=3, reference=False)
    assert fields["source"].player == "Tal" and args.positions == "dev"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--train-games", "12,20"], "--train-games takes one size here (a number or 'all')"),
        (["--train-games", "0"], "train_sizes must be positive numbers or 'all', not '0'"),
        (["--line-plies", "0"], "--line-plies must be at least 1, not 0"),
        (["--reference-depth", "0"], "--reference-depth must be at least 1, not 0"),
        (["--max-positions", "0"], "--max-positions must be at least 1, not 0"),
    ],
)
def test_bad_values_are_errors_naming_their_option(argv, message):
    """Each value the measurement cannot run with is a DataError with its message."""
    with pytest.raises(DataError) as raised:
        setup_fields(_parse(*argv))
    assert str(raised.value) == message
