"""The options several experiments share (iam.cli.experiments._options): the common settings, the held-out data
with its header filters, and config errors worded as options; on namespaces parsed by their parsers."""

from __future__ import annotations

import argparse

import pytest

from experiments.common import GameSource
from iam.cli.experiments._options import (
    add_common_arguments,
    add_heldout_arguments,
    as_options,
    common_fields,
    header_filter,
    heldout_fields,
)
from iam.errors import DataError
from iam.games.filters import GameConditions, GameFilter
from iam.runtime import Runtime


def _parser(**heldout) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_common_arguments(parser)
    add_heldout_arguments(parser, **heldout)
    return parser


def test_experiments_take_the_header_filters_and_keep_each_games_split():
    from iam.cli.experiments._options import add_common_arguments, add_heldout_arguments, heldout_fields
    from iam.games.player_games import load_heldout

    parser = argparse.ArgumentParser()
    add_common_arguments(parser)
    add_heldout_arguments(parser)
    fields = heldout_fields(parser.parse_args(["--since", "1950", "--min-plies", "40"]))
    assert fields["source"].games_filter == GameFilter(conditions=GameConditions(since=(1950,), min_plies=40))
    assert heldout_fields(parser.parse_args([]))["source"].games_filter is None
    whole = load_heldout()
    held = load_heldout(games_filter=fields["source"].games_filter)
    assert 0 < len(held.games) < len(whole.games)
    assert all(int(game.date[:4]) >= 1950 and len(game.moves) >= 40 for game in held.games)
    assert sum(held.report.filtered.values()) == len(whole.games) - len(held.games)
    tested = {game.index for game in whole.test}
    assert {game.index for game in held.test} == {game.index for game in held.games if game.index in tested}
    assert held.test and held.training  # the filter leaves games of both splits, each where it was


def test_the_common_and_held_out_fields_of_the_defaults_and_of_given_flags(monkeypatch):
    """Without flags: seed 0, one job, the bundled games of the default player, all positions (or the experiment's
    cap); the flags given land in their fields."""
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    assert common_fields(_parser().parse_args([])) == {"seed": 0, "runtime": Runtime(), "quiet": False}
    assert heldout_fields(_parser().parse_args([])) == {
        "seed": 0, "runtime": Runtime(), "quiet": False, "source": GameSource(), "max_positions": None,
    }
    assert heldout_fields(_parser(max_positions=40).parse_args([]))["max_positions"] == 40
    args = _parser().parse_args(
        ["--seed", "3", "-q", "--pgn", "x.pgn", "--player", "Tal", "--event", "Riga", "--max-positions", "5"]
    )
    fields = heldout_fields(args)
    assert fields["seed"] == 3 and fields["quiet"] and fields["max_positions"] == 5
    assert fields["source"] == GameSource(
        pgn="x.pgn", player="Tal", games_filter=GameFilter(player="Tal", conditions=GameConditions(event="Riga"))
    )


def test_a_bad_position_cap_or_filter_value_is_an_error_naming_its_option():
    """``--max-positions`` below 1 is a DataError with the option's name; a bad date is a ParameterError of its
    flag's parameter."""
    with pytest.raises(DataError, match="^--max-positions must be at least 1, not 0$"):
        heldout_fields(_parser().parse_args(["--max-positions", "0"]))
    with pytest.raises(DataError, match="since must be a date"):
        heldout_fields(_parser().parse_args(["--since", "soon"]))


def test_the_header_filter_keeps_only_the_conditions():
    """The header filter of the flags is their conditions alone (no player, names or colour), None without any."""
    parser = _parser()
    assert header_filter(parser.parse_args([])) is None
    assert header_filter(parser.parse_args(["--player", "Tal"])) is None
    found = header_filter(parser.parse_args(["--player", "Tal", "--rating", "2500-", "--until", "1960.05"]))
    assert found == GameFilter(conditions=GameConditions(until=(1960, 5), rating=(2500, 10**6)))


def test_config_errors_are_worded_as_options_before_the_offending_value():
    """Field names become their options in the message's head only; whole words only; the value is kept as given."""
    options = {"games": "--games", "max_positions": "--max-positions"}
    assert as_options("max_positions must be at least 1, not 0", options) == "--max-positions must be at least 1, not 0"
    assert as_options("games and max_positions clash", options) == "--games and --max-positions clash"
    assert as_options("games must be one of a, not games", options) == "--games must be one of a, not games"
    assert as_options("endgames must be 1, not 2", options) == "endgames must be 1, not 2"
