"""The installed versions: the toolkit's own, and the python-chess floor with its one-line messages."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import chess
import pytest

import iam._install as install
from iam._install import CHESS_FLOOR, __version__, check_chess, chess_problem

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_and_the_floor_agree_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert __version__ == project["version"]
    floor = ".".join(map(str, CHESS_FLOOR))
    assert f"chess>={floor}" in project["dependencies"]


@pytest.mark.parametrize("version", ["1.10", "1.10.0", "1.11.2", "2.0", "1.10.0rc1", "10.0.0", "1.999"])
def test_versions_at_or_above_the_floor_are_fine(version):
    assert chess_problem(version) is None


@pytest.mark.parametrize("version", ["1.9.4", "1.1", "0.31.4", "1", "", "unknown", "0"])
def test_versions_below_the_floor_or_unreadable_are_one_line_naming_them(version):
    """Fewer than two numbers read as older (a tuple compared by its parts); the message says how to upgrade."""
    problem = chess_problem(version)
    assert problem is not None and "\n" not in problem
    assert problem.startswith(f"python-chess {version} is older than the 1.10 this toolkit needs; ")
    assert "pip install --upgrade 'chess>=1.10'" in problem


def test_the_versions_are_compared_as_numbers_not_text():
    """"1.9" < "1.10" as numbers although not as text; "1.100" is newer than the floor."""
    assert chess_problem("1.9") is not None and chess_problem("1.100") is None


def test_without_an_argument_the_installed_python_chess_is_read(monkeypatch):
    assert chess_problem() is None  # the installed one runs this suite
    monkeypatch.setattr(chess, "__version__", "1.2.3")
    assert chess_problem().startswith("python-chess 1.2.3 is older")


def test_a_missing_python_chess_is_named_with_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "chess", None)  # import chess now raises ImportError
    assert chess_problem() == "python-chess is not installed; install it with: pip install 'chess>=1.10'"


def test_check_chess_is_silent_with_a_recent_python_chess(capsys):
    assert check_chess() is None
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("argv0", ["/usr/local/bin/iam", "iam", "iam.exe", "-m"])
def test_check_chess_as_the_command_prints_one_line_and_exits_2(monkeypatch, capsys, argv0):
    monkeypatch.setattr(install, "chess_problem", lambda: "python-chess 1.0 is too old")
    monkeypatch.setattr(sys, "argv", [argv0, "train"])
    with pytest.raises(SystemExit) as stop:
        check_chess()
    assert stop.value.code == 2
    assert capsys.readouterr().err == "iam: error: python-chess 1.0 is too old\n"


@pytest.mark.parametrize("argv", [["/usr/bin/python3", "script.py"], ["-c"], ["notebook"], []])
def test_check_chess_as_a_library_raises_import_error(monkeypatch, capsys, argv):
    monkeypatch.setattr(install, "chess_problem", lambda: "python-chess 1.0 is too old")
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(ImportError, match="^python-chess 1.0 is too old$"):
        check_chess()
    assert capsys.readouterr().err == ""
