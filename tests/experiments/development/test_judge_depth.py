"""The judge-depth experiment end to end, small: two masters, a few positions, a shallow reference."""

import shutil

import pytest

from experiments.development import judge_depth
from experiments.development.judge_depth import JudgeDepthConfig
from iam.cli import main as iam_main
from iam.cli.experiment import experiments
from iam.errors import DataError
from iam.runtime import Runtime

from ..conftest import run_json

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def test_registry_knows_judge_depth():
    assert experiments()["judge-depth"].run is judge_depth.run


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_the_cli_judges_each_master_s_development_moves_at_each_depth(tmp_path):
    payload = run_json(
        "experiment", "judge-depth", "--players", "Capablanca,Lasker", "--positions", "3", "--depths", "1,2",
        "--engine", STOCKFISH, "--engine-depth", "6", "--engine-cache", str(tmp_path / "cache.sqlite"),
    )
    assert payload["players"] == ["Capablanca", "Lasker"] and payload["reference_depth"] == 6
    rows = payload["rows"]
    assert [(row["depth"], row["moves"]) for row in rows] == [(1, "all"), (1, "played"), (2, "all"), (2, "played")]
    assert all(row["positions"] == 6 for row in rows)
    assert [row["judged"] for row in rows] == [12, 6, 12, 6]
    assert payload["chosen_depth"] in (1, 2)


def test_without_an_engine_the_experiment_refuses():
    with pytest.raises(DataError, match="reference engine"):
        judge_depth.judge_depth(JudgeDepthConfig(runtime=Runtime()))


def test_a_depth_below_one_is_refused():
    with pytest.raises(DataError, match="at least 1"):
        judge_depth.judge_depth(JudgeDepthConfig(depths=(0, 2), runtime=Runtime(engine="stockfish")))


def test_the_cli_refuses_a_bad_depth_list(capsys):
    assert iam_main(["experiment", "judge-depth", "--depths", "two", "--quiet"]) != 0
    assert "--depths takes comma-separated whole numbers, not 'two'" in capsys.readouterr().err
