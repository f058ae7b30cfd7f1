"""Long commands name each phase of their work on stderr (one line a phase off a terminal), and --quiet says none."""

from __future__ import annotations

from pathlib import Path

import pytest

from iam.cli import main

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny.pgn"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("phases") / "tester.json"
    assert main(["train", "--predictor", "iam", str(TINY), "--player", "Tester", "-o", str(path), "--quiet"]) == 0
    return path


def _commands(model: Path, folder: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Each command on a small input, and the phases it must name, in order."""
    return {
        "train": (["train", "--predictor", "iam", str(TINY), "--player", "Tester", "-o", str(folder / "m.json")],
                  ["reading games", "fitting"]),
        "ranker": (["train", str(TINY), "--player", "Tester", "--families", "move", "--train-positions", "20",
                    "--search-depth", "1", "-o", str(folder / "r.json")],
                   ["reading games", "fitting: scoring his positions"]),
        "compare": (["compare", str(TINY), "--player", "Tester", "--predictor", "opening-memory", "--train-games",
                     "all"], ["reading games", "training and scoring"]),
        "evaluate": (["evaluate", str(model), str(TINY), "--split", "all"], ["reading games", "scoring 14 positions"]),
        "experiment": (["experiment", "node-counts", "--max-depth", "1"], ["running the experiment node-counts"]),
    }


@pytest.mark.parametrize("command", ["train", "ranker", "compare", "evaluate", "experiment"])
def test_the_phases_are_named_on_stderr_and_quiet_says_nothing(command, tiny_model, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("iam.progress.ANNOUNCE_AFTER", 0.0)  # these small inputs end before a phase would be said
    argv, phases = _commands(tiny_model, tmp_path)[command]
    assert main(argv) == 0
    said = [line.removeprefix("iam: ").removesuffix(" ...") for line in capsys.readouterr().err.splitlines()
            if line.startswith("iam: ") and line.endswith(" ...")]
    assert [name for name in said if name in phases] == phases
    assert main([*argv, "--quiet"]) == 0
    assert " ...\n" not in capsys.readouterr().err


def test_bad_input_is_the_error_line_alone_though_a_phase_had_begun(capsys):
    assert main(["compare", str(TINY), "--player", "Nobody Atall"]) == 2  # fails while reading games
    err = capsys.readouterr().err
    assert err.startswith("iam: error: ") and err.count("\n") == 1
