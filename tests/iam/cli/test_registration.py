"""The ``iam`` parser registers only the command that runs; the others are listed by the summary their module gives."""

from __future__ import annotations

import subprocess
import sys

import pytest

import iam.cli
from iam.cli import _COMMANDS, build_parser, main


def _summaries(parser) -> dict[str, str]:
    subparsers = next(action for action in parser._actions if action.dest == "command")
    return {choice.dest: choice.help for choice in subparsers._choices_actions}


def test_each_listed_summary_is_the_one_its_module_registers():
    assert _summaries(build_parser()) == _COMMANDS, "update iam/cli/__init__.py's _COMMANDS to the modules' help"


def test_the_help_lists_every_command_whether_registered_in_full_or_not():
    assert build_parser(full=()).format_help() == build_parser().format_help()


@pytest.mark.parametrize("command", ["uci", "train"])
def test_a_command_is_registered_in_full_and_the_others_bare(command):
    parser = build_parser(full=(command,))
    subparsers = next(action for action in parser._actions if action.dest == "command")
    full = {name for name, child in subparsers.choices.items() if len(child._actions) > 1}
    assert full == {command}


def _loaded_after(argvs: list[list[str]], wanted: str) -> str:
    """The sorted names of the modules matching the expression ``wanted`` (of ``name``) that a fresh
    interpreter holds after running ``iam`` with each of ``argvs``."""
    script = (
        "import sys\n"
        "from iam.cli import main\n"
        f"for argv in {argvs!r}:\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"loaded = sorted(name for name in sys.modules if {wanted})\n"
        "print(loaded, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    return done.stderr.strip().splitlines()[-1]


def test_version_and_help_import_no_command_module():
    wanted = "name.startswith('iam.cli.') or name in ('sklearn', 'numba')"
    assert _loaded_after([["--version"], ["--help"]], wanted) == "[]"


@pytest.mark.parametrize("command", ["match", "analyse"])
def test_a_command_that_fits_no_model_loads_no_model_library(command):
    """Playing engines against each other or judging moves with one needs neither scikit-learn nor SciPy: its
    options are read (the command module and the shared options imported) without them."""
    wanted = "name in ('sklearn', 'scipy', 'iam.cli._common')"
    assert _loaded_after([[command, "--help"]], wanted) == "['iam.cli._common']"


def test_an_unknown_command_is_refused_as_before(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["bogus"])
    assert stop.value.code == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_the_number_options_are_checked_for_the_command_that_runs(capsys):
    assert iam.cli.main(["uci", "--exploit", "nan"]) == 2
    assert capsys.readouterr().err == "iam: error: --exploit must be a finite number, not nan\n"


def test_an_interrupt_while_the_command_loads_is_one_line(monkeypatch, capsys):
    """Ctrl-C while a command's libraries are imported (seconds on a busy machine) prints no traceback."""

    def interrupted(full=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(iam.cli, "build_parser", interrupted)
    assert main(["train", "--help"]) == 130
    assert capsys.readouterr().err == "iam: interrupted\n"
