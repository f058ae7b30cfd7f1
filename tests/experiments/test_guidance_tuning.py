"""The guidance-tuning experiment: its grid of settings, its recommendation rule, a tiny run on development positions
through its command line, and bad settings refused before any game is read."""

from __future__ import annotations

from dataclasses import asdict, fields

import numpy as np
import pandas as pd
import pytest

from experiments.common import GameSource
from experiments.guidance_tuning import GuidanceTuningConfig, recommend, run, settings
from iam.cli import main
from iam.errors import DataError
from iam.games.heldout import DEVELOPMENT_REMAINDER
from search.opponent.omsearch import Guidance

from .conftest import run_on


@pytest.fixture(scope="module")
def botvinnik60(bundled_head):
    """Botvinnik's first 60 games (48 training, of them 12 development games; 12 test games)."""
    return bundled_head(60)


def test_guidance_tuning_compares_settings_on_development_positions(botvinnik60):
    payload = run_on(
        botvinnik60, "guidance-tuning", "--only", "base,no reductions", "--budget", "1500", "--max-positions", "2",
        "--no-reference",
    )
    assert [s["guidance"] for s in payload["summary"]] == ["base", "no reductions"]
    assert payload["recommended"] in {"base", "no reductions"}
    assert sum(s["recommended"] for s in payload["summary"]) == 1
    assert all(row["game"] % 5 == DEVELOPMENT_REMAINDER for row in payload["rows"])
    assert {s["guidance"]: s["reduction"] for s in payload["settings"]} == {"base": 1, "no reductions": 0}


def test_the_recommendation_rule():
    """The largest mean gain among the settings the reference does not judge worse; without a reference, the
    largest gain."""
    summary = pd.DataFrame(
        {
            "guidance": ["a", "b", "c"],
            "mean_ply_gain_pct": [10.0, 30.0, 20.0],
            "reference_mean_cp_difference": [0.0, -50.0, np.nan],
        }
    )
    assert recommend(summary) == "c"  # b gains most but plays worse moves; c changed no judged move
    assert recommend(summary.drop(columns="reference_mean_cp_difference")) == "b"


def test_each_setting_of_the_grid_changes_one_knob_of_the_base():
    """Every named setting but the base differs from it in exactly one field of the guidance, and no two settings
    are the same."""
    grid = settings()
    base = asdict(grid["base"])
    assert list(grid)[0] == "base" and len(grid) == 12
    for name, guidance in grid.items():
        assert isinstance(guidance, Guidance)
        changed = [field.name for field in fields(Guidance) if asdict(guidance)[field.name] != base[field.name]]
        assert len(changed) == (0 if name == "base" else 1), name
    assert len({tuple(asdict(g).items()) for g in grid.values()}) == len(grid)
    assert grid["no reductions"].reduction == 0 and grid["reduce by 2"].reduction == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"only": ("base", "sharper")}, "unknown setting(s) ['sharper']"),
        ({"only": (" ",)}, "unknown setting(s) []"),
        ({"budget": 9}, "budget must be at least 10 nodes, not 9"),
    ],
)
def test_bad_settings_are_refused_before_any_game_is_read(change, message):
    """An unknown setting name, an empty subset and a budget below 10 are DataErrors, even for a missing file."""
    config = GuidanceTuningConfig(source=GameSource(pgn="/no/such/file.pgn", player="X"), **change)
    with pytest.raises(DataError) as raised:
        run(config)
    assert message in str(raised.value)


def test_the_command_line_refuses_a_small_budget_in_one_line(botvinnik60, capsys):
    """``--budget`` below 10 and an unknown ``--only`` name are one error line with exit code 2."""
    base = ["experiment", "guidance-tuning", "--pgn", str(botvinnik60), "--no-reference", "--quiet"]
    assert main([*base, "--budget", "5"]) == 2
    assert capsys.readouterr().err == "iam: error: --budget must be at least 10 nodes, not 5\n"
    assert main([*base, "--only", "nothing", "--budget", "100"]) == 2
    err = capsys.readouterr().err
    assert "unknown setting(s) ['nothing']" in err and err.count("\n") == 1
