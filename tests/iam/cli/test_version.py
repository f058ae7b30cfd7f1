"""``iam --version`` and the python-chess floor, checked when the package is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

import iam
from iam._install import chess_problem
from iam.cli import main

OLD_CHESS = "import chess; chess.__version__ = '1.9.4'; import sys; sys.argv = [{argv0!r}]; import iam"


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"iam {iam.__version__}\n"


def test_floor():
    assert chess_problem("1.10.0") is None and chess_problem("1.11.2") is None
    assert chess_problem("1.9.4").startswith("python-chess 1.9.4 is older than the 1.10 this toolkit needs; ")


def test_the_command_stops_with_one_line_and_an_import_with_import_error():
    command = subprocess.run(
        [sys.executable, "-c", OLD_CHESS.format(argv0="/usr/bin/iam")], capture_output=True, text=True
    )
    assert command.returncode == 2
    assert command.stderr.startswith("iam: error: python-chess 1.9.4 is older than the 1.10 this toolkit needs; ")
    assert command.stderr.count("\n") == 1
    library = subprocess.run([sys.executable, "-c", OLD_CHESS.format(argv0="-c")], capture_output=True, text=True)
    assert library.returncode == 1
    assert library.stderr.strip().splitlines()[-1].startswith("ImportError: python-chess 1.9.4 is older than the 1.10")
