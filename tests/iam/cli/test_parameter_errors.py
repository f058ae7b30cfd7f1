"""Below iam/cli errors name the API's parameters; the command line words them as its options.

A :class:`~iam.errors.ParameterError` carries the parameter, the value and what is allowed;
the CLI's one mapping (``PARAMETER_FLAGS``) puts the option in the parameter's place.
"""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest

from iam.cli import _actions, build_parser, main
from iam.cli._common import PARAMETER_FLAGS, error_message
from iam.errors import DataError, ParameterError
from iam.games.heldout import parse_sizes
from iam.games.sides import common_player, side_games
from iam.prepare.dossier import BeliefSettings, HabitSettings, PrepareConfig
from iam.runtime import ExecutionError, Runtime, runtime_from

ROOT = Path(__file__).resolve().parents[3]


FLAG = re.compile(r"--[A-Za-z]")


def _flag_messages(path: Path, base: Path = ROOT) -> list[str]:
    """``path:line: text`` (``path`` relative to ``base``) of every raised string that names a ``--option``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            for part in ast.walk(node.exc):
                if isinstance(part, ast.Constant) and isinstance(part.value, str) and FLAG.search(part.value):
                    found.append(f"{path.relative_to(base)}:{node.lineno}: {part.value}")
    return found


def test_no_error_below_the_cli_names_an_option():
    modules = [
        path for path in sorted((ROOT / "iam").rglob("*.py"))
        if not path.is_relative_to(ROOT / "iam" / "cli")
    ]
    assert len(modules) > 20
    assert [message for path in modules for message in _flag_messages(path)] == []


def test_the_scan_finds_an_option_in_a_raise(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        'def f(n):\n    if n:\n        raise ValueError(f"--games must be at least 1, not {n}")\n    return "--games"\n'
    )
    assert _flag_messages(module, tmp_path) == ["probe.py:3: --games must be at least 1, not "]


def test_the_cli_prints_a_parameter_error_with_its_option(monkeypatch, capsys, tmp_path):
    def refuse(*args, **kwargs):
        raise ParameterError("min_games", 0, "at least 1")

    monkeypatch.setattr("iam.cli._games.read_filtered", refuse)
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[White "A"]\n[Black "B"]\n\n1. e4 e5 *\n')
    assert main(["compare", str(pgn), "--player", "A", "--quiet"]) == 2
    assert capsys.readouterr().err == "iam: error: --min-games must be at least 1, not 0\n"


def test_the_cli_words_every_part_and_leaves_other_errors_alone():
    error = ParameterError(
        "player", "Lasker", "one person's full name", reason="two people", others=("aliases", "partial_names")
    )
    assert str(error) == (
        "player must be one person's full name, not 'Lasker': two people; or use aliases or partial_names"
    )
    assert error_message(error) == (
        "--player must be one person's full name, not 'Lasker': two people; or use --alias or --partial-names"
    )
    assert error_message(ParameterError("unmapped", 2.5, "at most 1")) == "unmapped must be at most 1, not 2.5"
    assert error_message(DataError("no readable PGN game in x.pgn")) == "no readable PGN game in x.pgn"


def test_every_mapped_option_is_an_option_of_the_cli():
    options = {option for action in _actions(build_parser()) for option in action.option_strings}
    assert set(PARAMETER_FLAGS.values()) <= options


def test_a_parameter_error_keeps_its_fields_through_pickling():
    """Errors raised in worker processes come back pickled."""
    error = pickle.loads(
        pickle.dumps(ParameterError("rating", "9-1", "MIN-MAX", reason="the minimum is above the maximum"))
    )
    found = (error.parameter, error.value, error.allowed, error.reason)
    assert found == ("rating", "9-1", "MIN-MAX", "the minimum is above the maximum")
    assert str(error) == "rating must be MIN-MAX, not '9-1': the minimum is above the maximum"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parse_sizes("12,x"), "train_sizes must be positive numbers or 'all', not 'x'"),
        (lambda: parse_sizes(" , "), "train_sizes must be a list of positive numbers or 'all', not ' , '"),
        (lambda: side_games([], "left"), "side must be one of white, black, auto, not 'left'"),
        (lambda: common_player([("A", "B"), ("C", "D")]),
         "side must be white or black, not 'auto': cannot determine the side: no player name is common to all 2 games"),
        (lambda: PrepareConfig("X", min_games=0), "min_games must be at least 1, not 0"),
        (lambda: PrepareConfig("X", habits=HabitSettings(habit_games=0)), "habit_games must be at least 1, not 0"),
        (
            lambda: PrepareConfig("X", beliefs=BeliefSettings(half_life_years=0.0)),
            "half_life_years must be a positive number of years, not 0",
        ),
        (lambda: PrepareConfig("X", runtime=Runtime(jobs=0)), "jobs must be an integer from 1 to 1024, not 0"),
        (
            lambda: runtime_from(Runtime(scheduler="  ")),
            "scheduler must be an address such as tcp://127.0.0.1:8786, not '  '",
        ),
    ],
)
def test_the_api_names_its_parameters(call, message):
    with pytest.raises(ParameterError) as caught:
        call()
    assert str(caught.value) == message and isinstance(caught.value, DataError)


def test_a_bad_scheduler_address_is_still_an_execution_error(capsys):
    with pytest.raises(ExecutionError):
        runtime_from(Runtime(scheduler="  "))
