"""The command line's shared helpers (iam.cli._common): errors worded as flags, the checks of output paths, seeds,
jobs, player names and numbers, the ranker's options and the runtime built from the flags, each called directly on
namespaces built by argparse parsers."""

from __future__ import annotations

import argparse
import math
import os

import pytest

from iam.cli import check_finite_options, number_or_infinity
from iam.cli._common import (
    MAX_SEED,
    add_engine_arguments,
    add_ranker_arguments,
    add_scheduler_argument,
    check_distinct_players,
    check_output_file,
    check_seed,
    command_runtime,
    error_message,
    output_dir,
    parse_families,
    print_json,
    ranker_params,
    usable_jobs,
)
from iam.errors import DataError, IAMError, ParameterError
from iam.evidence.registry import DEFAULT_FAMILIES
from iam.runtime import Runtime


def _ranker_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_ranker_arguments(parser)
    return parser.parse_args(list(argv))


def test_a_parameter_error_is_worded_with_the_command_lines_flags():
    """A ParameterError names the flags of its parameter and of the others that would settle it; any other error
    keeps its message."""
    error = ParameterError("player", "Lasker", "one person's full name", others=("aliases", "partial_names"))
    assert error_message(error) == (
        "--player must be one person's full name, not 'Lasker'; or use --alias or --partial-names"
    )
    assert error_message(ParameterError("half_life_years", 0.0, "positive")) == "--half-life must be positive, not 0"
    assert error_message(ParameterError("unlisted", 3, "even")) == "unlisted must be even, not 3"
    assert error_message(DataError("plain words")) == "plain words"


def test_output_folders_are_created_and_a_file_in_the_way_is_an_error(tmp_path):
    """A new folder is created with its parents; an existing folder is kept; a file at the path is refused."""
    folder = output_dir(tmp_path / "a" / "b")
    assert folder == tmp_path / "a" / "b" and folder.is_dir()
    assert output_dir(folder) == folder
    (tmp_path / "file").write_text("x")
    with pytest.raises(IAMError, match="it is a file, not a folder"):
        output_dir(tmp_path / "file")
    with pytest.raises(IAMError, match="cannot create folder"):
        output_dir(tmp_path / "file" / "below")


def test_an_output_file_is_a_new_path_or_a_regular_file_never_an_input(tmp_path):
    """New paths and regular files pass; a folder, a symbolic link and an input file (under another spelling of
    its path) are refused, naming the option."""
    new, regular = tmp_path / "new.pgn", tmp_path / "old.pgn"
    regular.write_text("x")
    assert check_output_file(str(new), "--pgn") == new
    assert check_output_file(regular, "--pgn", inputs=[None, new]) == regular
    with pytest.raises(IAMError, match=r"^--pgn .*: it is a folder; give a regular file or a new path$"):
        check_output_file(tmp_path, "--pgn")
    os.symlink(regular, tmp_path / "link.pgn")
    with pytest.raises(IAMError, match="it is a symbolic link"):
        check_output_file(tmp_path / "link.pgn", "--pgn")
    with pytest.raises(IAMError, match=r"^-o .* is an input file or cache of this command"):
        check_output_file(tmp_path / "sub" / ".." / "old.pgn", "-o", inputs=[regular])
    with pytest.raises(IAMError, match="input file or cache"):
        check_output_file(new, "-o", inputs=[tmp_path / "." / "new.pgn"])  # neither exists yet: the same path


def test_seeds_jobs_and_player_names(monkeypatch):
    """Seeds are 32-bit; jobs are at least 1 and at most the CPUs; one player named twice (case and punctuation
    aside) is refused."""
    assert check_seed(0) == 0 and check_seed(MAX_SEED) == MAX_SEED == 2**32 - 1
    for bad in (-1, MAX_SEED + 1):
        with pytest.raises(IAMError, match="--seed must be between 0 and 4294967295"):
            check_seed(bad)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert usable_jobs(1) == 1 and usable_jobs(4) == 4 and usable_jobs(64) == 4
    with pytest.raises(IAMError, match="--jobs must be at least 1"):
        usable_jobs(0)
    check_distinct_players(["Tal, Mikhail", "Tal, M.", "Botvinnik"])
    with pytest.raises(DataError, match=r"--models names the same player twice \('Tal, Mikhail' and 'tal mikhail'\)"):
        check_distinct_players(["Tal, Mikhail", "Botvinnik", "tal mikhail"], "--models")


def test_numbers_are_finite_except_where_infinity_means_no_bound():
    """NaN is refused in every float option, of a subcommand's parser too; an infinity only where the option's
    type is number_or_infinity."""
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    child = commands.add_parser("go")
    child.add_argument("--weight", type=float, default=1.0)
    child.add_argument("--margin", type=number_or_infinity, default=50.0)
    check_finite_options(parser, parser.parse_args(["go", "--margin", "inf", "--weight", "0.5"]))
    for argv, message in (
        (["go", "--weight", "inf"], "--weight must be a finite number, not inf"),
        (["go", "--weight", "nan"], "--weight must be a finite number, not nan"),
        (["go", "--margin", "nan"], "--margin must be a finite number, not nan"),
    ):
        with pytest.raises(IAMError) as raised:
            check_finite_options(parser, parser.parse_args(argv))
        assert str(raised.value) == message
    assert number_or_infinity("inf") == math.inf


def test_families_take_the_engines_only_with_an_engine():
    """``--families`` defaults to the default families; the engine families come with ``--engine`` and are refused
    without it; an unknown or empty list is an error naming the families."""
    assert parse_families(None, None) == tuple(DEFAULT_FAMILIES)
    assert parse_families(" move , habits ,", None) == ("move", "habits")
    assert parse_families("move", "/usr/games/stockfish") == ("move", "engine", "glance")
    with pytest.raises(DataError, match="the engine family needs --engine PATH"):
        parse_families("move,engine", None)
    for bad in ("move,moves", ",", ""):
        with pytest.raises(DataError, match="--families takes some of move,"):
            parse_families(bad, None)


def test_the_rankers_options_become_its_parameters():
    """The parsed ranker options give MoveRanker's parameters (the engine depth only with an engine); each value out
    of range is a one-line error naming its option."""
    params = ranker_params(_ranker_args("--families", "move,search", "--search-depth", "2", "--train-positions", "50",
                                        "--prior", "none", "--no-trees", "--reply-positions", "7",
                                        "--prior-strength", "0.5"))
    assert params == {
        "families": ("move", "search"), "search_depth": 2, "max_positions": 50, "prior": "none",
        "reply_positions": 7, "prior_strength": 0.5,
    }
    assert ranker_params(_ranker_args("--no-trees"))["prior"] == "population-linear"
    engine = ranker_params(_ranker_args("--families", "move", "--engine", "sf", "--engine-depth", "3"))
    assert engine["families"] == ("move", "engine", "glance") and engine["engine_depth"] == 3
    assert engine["prior"] == "population" and "prior_strength" not in engine
    for argv, message in (
        (["--search-depth", "7"], "--search-depth must be from 1 to 6"),
        (["--train-positions", "0"], "--train-positions must be at least 1"),
        (["--reply-positions", "-1"], "--reply-positions must be at least 0"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--engine-timeout", "0"], "--engine-timeout must be a positive number of seconds"),
        (["--prior-strength", "-1"], "--prior-strength must be a finite number >= 0"),
    ):
        with pytest.raises(DataError) as raised:
            ranker_params(_ranker_args(*argv))
        assert str(raised.value) == message


def test_the_runtime_is_built_from_the_engine_cache_jobs_and_scheduler_flags(monkeypatch, tmp_path):
    """The engine's cache counts only with an engine; ``--scheduler`` (else ``$IAM_SCHEDULER``) is read only by
    commands that have the flag; jobs are capped at the CPUs."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.delenv("IAM_SCHEDULER", raising=False)
    parser = argparse.ArgumentParser()
    add_engine_arguments(parser)
    parser.add_argument("--jobs", type=int, default=1)
    plain = command_runtime(parser.parse_args(["--jobs", "8", "--search-cache", "s.sqlite"]))
    assert plain == Runtime(search_cache="s.sqlite", jobs=2)
    engine = command_runtime(parser.parse_args(["--engine", "sf", "--engine-timeout", "5"]))
    assert engine == Runtime(engine="sf", engine_cache="iam-engine-cache.sqlite", engine_timeout=5.0)
    monkeypatch.setenv("IAM_SCHEDULER", "tcp://10.0.0.1:8786")
    assert command_runtime(parser.parse_args([])).scheduler is None  # no --scheduler flag: the variable is not read
    add_scheduler_argument(parser)
    assert command_runtime(parser.parse_args([])).scheduler == "tcp://10.0.0.1:8786"
    given = command_runtime(parser.parse_args(["--scheduler", "tcp://127.0.0.1:1"]))
    assert given.scheduler == "tcp://127.0.0.1:1"
    assert command_runtime(argparse.Namespace()) == Runtime()


def test_json_output_writes_nan_as_null(capsys):
    """The JSON a command prints is indented and has null where a number is NaN or infinite."""
    print_json({"a": [1.5, math.nan], "b": {"c": math.inf}})
    assert capsys.readouterr().out == '{\n  "a": [\n    1.5,\n    null\n  ],\n  "b": {\n    "c": null\n  }\n}\n'
