"""What every experiment shares (experiments.common): the games a config names, and the files a result is written as,
read back."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from matplotlib.figure import Figure

from experiments.common import ExperimentResult, GameSource, HeldOutConfig, load_games, write_result
from iam.errors import DataError
from iam.games.filters import GameConditions, GameFilter


def test_the_games_of_a_config_are_its_players_passing_its_filter(botvinnik40):
    """The file and player of the config, with its filter counted in the report; a bad position cap is refused
    before any reading."""
    whole = load_games(HeldOutConfig(source=GameSource(pgn=str(botvinnik40), player="Botvinnik"), quiet=True))
    assert len(whole.games) == 40 and len(whole.test) == 8 and len(whole.training) == 32
    long = GameFilter(conditions=GameConditions(min_plies=60))
    kept = load_games(HeldOutConfig(source=GameSource(str(botvinnik40), "Botvinnik", long), quiet=True))
    assert [g.index for g in kept.games] == [g.index for g in whole.games if len(g.moves) >= 60]
    assert sum(kept.report.filtered.values()) == 40 - len(kept.games) > 0
    with pytest.raises(DataError, match="max_positions must be at least 1 .* not 0"):
        load_games(HeldOutConfig(max_positions=0))


def test_a_result_is_written_as_csv_json_markdown_and_png(tmp_path):
    """One CSV per table (without the index), the payload as JSON with NaN as null, the summary with one final
    newline, one PNG per figure; the folder is created."""
    figure = Figure()
    figure.add_subplot().plot([0, 1], [1, 0])
    table = pd.DataFrame({"size": [10, 20], "accuracy": [0.25, 0.5]})
    result = ExperimentResult("x", {"accuracy": table}, {"a": float("nan"), "b": [1, 2]}, "# X\n\nDone.\n\n\n",
                              {"curve": figure})
    out = tmp_path / "new" / "folder"
    written = write_result(result, out)
    assert [path.name for path in written] == ["accuracy.csv", "results.json", "summary.md", "curve.png"]
    assert pd.read_csv(out / "accuracy.csv").equals(table)
    assert json.loads((out / "results.json").read_text()) == {"a": None, "b": [1, 2]}
    assert (out / "summary.md").read_text() == "# X\n\nDone.\n"
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
