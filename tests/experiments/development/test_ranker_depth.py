"""The ranker-depth experiment: records per development position, the figures and the paired gain, the options."""

import numpy as np
import pytest

from experiments.development import ranker_depth
from experiments.development.ranker_depth import RankerDepthConfig, RankerVariant, variant_records
from iam.cli.experiment import experiments
from iam.errors import DataError
from iam.games.bundled import bundled_pgn
from iam.games.heldout import development_games, fitting_games
from iam.games.pgn import load_player_games

from ..conftest import run_json


@pytest.fixture(scope="module")
def botvinnik_games(bundled_head):
    games, _ = load_player_games([bundled_head(30)], player="Botvinnik")
    return games


def test_registry_knows_ranker_depth():
    assert experiments()["ranker-depth"].run is ranker_depth.run


def test_each_development_position_is_scored_once_with_its_move(botvinnik_games):
    development = development_games(botvinnik_games)[:2]
    records, fit_seconds = variant_records(
        fitting_games(botvinnik_games), development, "Botvinnik", RankerVariant(1), fit_positions=40, seed=0
    )
    assert len(records) == sum(game.player_moves for game in development)
    assert set(records["game"]) == {game.index for game in development}
    first = development[0]
    expected = [ply for ply in range(len(first.moves)) if (ply % 2 == 0) == (first.color == first.board().turn)]
    assert records[records["game"] == first.index]["ply"].tolist() == expected
    assert records["move"].iloc[0] == first.moves[expected[0]].uci()
    assert (records["predict_seconds"] >= 0).all() and fit_seconds > 0
    assert records["belief_mass"].to_numpy() == pytest.approx(np.ones(len(records)))


def test_the_cli_gives_each_variant_its_figures_and_the_gain_over_the_baseline(monkeypatch, tmp_path):
    # The command end to end on a bundled master's games: the first 40 of them (every step sees the same
    # kinds of games, and a fit on his few hundred would only cost time).
    text = bundled_pgn("Capablanca").read_text(encoding="utf-8")
    head = tmp_path / "Capablanca.pgn"
    head.write_text("".join("[Event " + game for game in text.split("[Event ")[1:41]), encoding="utf-8")
    monkeypatch.setattr(ranker_depth, "bundled_pgn", {"Capablanca": head}.__getitem__)
    payload = run_json(
        "experiment", "ranker-depth", "--players", "Capablanca", "--depths", "1,2", "--no-default",
        "--fit-positions", "40", "--dev-positions", "15",
    )
    rows = payload["rows"]
    assert [row["variant"] for row in rows] == ["depth 1, population-linear", "depth 2, population-linear"]
    assert payload["baseline"] == "depth 1, population-linear"
    baseline, deeper = rows
    assert baseline["positions"] == deeper["positions"] == 15
    assert baseline["log_loss_gain"] is None  # no gain over itself (NaN, written as null)
    # the mean of the paired differences is the difference of the means
    assert deeper["log_loss_gain"] == pytest.approx(baseline["log_loss"] - deeper["log_loss"])
    assert deeper["gain_se"] > 0
    for row in rows:
        assert 0 <= row["top1"] <= row["top3"] <= 1 and row["log_loss"] > 0


def test_the_baseline_must_be_measured():
    with pytest.raises(DataError, match="baseline"):
        ranker_depth.ranker_depth(RankerDepthConfig(variants=(RankerVariant(4),), baseline=RankerVariant(3)))


def test_the_light_control_pulls_the_baseline_s_depth_lightly():
    from argparse import Namespace

    from iam.cli.experiments.ranker_depth import config

    args = Namespace(players="Lasker", depths="3,4", fit_positions=10, dev_positions=10, light_control=True,
                     no_default=False, seed=0, jobs=1, quiet=True)
    made = config(args)
    assert [variant.label for variant in made.variants] == [
        "depth 3, population", "depth 3, population-linear", "depth 4, population-linear",
        "depth 3, population-linear, pull 30",
    ]
    assert made.baseline == RankerVariant(3) and made.players == ("Lasker",)
    with pytest.raises(DataError, match="from 1 to 6"):
        config(Namespace(**{**vars(args), "depths": "3,7"}))
