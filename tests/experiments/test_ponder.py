"""The ponder experiment: the model's expected reply against the plain search's, on the player's test games."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.ponder import PonderConfig, ponder_records, run, summary
from iam.games import heldout
from iam.priors.positions import player_positions
from search import Limits
from search.chess import ChessSearch

from .conftest import run_json


@pytest.fixture(scope="module")
def model_file(small_model, tmp_path_factory):
    path = tmp_path_factory.mktemp("ponder") / "botvinnik.json.gz"
    small_model.save(path)
    return path


def test_each_position_holds_both_replies_and_whether_each_was_his_move(small_model, botvinnik_games):
    positions = player_positions(heldout.sample_test_games(heldout.test_games(botvinnik_games), 12, seed=0))
    records = ponder_records(small_model, positions, depth=2)
    assert len(records) == 12 and set(records["game"]) <= {p.game for p in positions}
    for position, row in zip(positions, records.itertuples()):
        assert row.played == position.played_move.uci()
        predicted = small_model.predict(position.board, top=1)
        assert row.model_reply == (predicted[0].uci() if predicted else None)
        assert row.search_reply == ChessSearch().search(position.board, Limits(depth=2)).move.uci()
        assert row.model_hit == (row.model_reply == row.played) and row.search_hit == (row.search_reply == row.played)


def test_the_summary_gives_hit_rates_and_their_difference_with_intervals_over_games():
    records = pd.DataFrame(
        {"game": [0, 0, 1, 1, 2, 2], "model_hit": [True, True, True, False, True, False],
         "search_hit": [False, True, False, False, True, False]}
    )
    table = summary(records, seed=0).set_index("reply")
    assert table.loc["model", "hit_rate"] == pytest.approx(4 / 6)
    assert table.loc["plain search", "hit_rate"] == pytest.approx(2 / 6)
    assert table.loc["model - plain search", "hit_rate"] == pytest.approx(2 / 6)
    for row in table.itertuples():
        assert row.low <= row.hit_rate <= row.high


def test_the_cli_runs_a_saved_model_on_test_games(model_file, botvinnik40):
    payload = run_json("experiment", "ponder", "--pgn", str(botvinnik40), "--player", "Botvinnik", "--model",
                       str(model_file), "--max-positions", "20", "--depth", "2")
    assert payload["positions"] == 20 and payload["depth"] == 2
    assert [row["reply"] for row in payload["rows"]] == ["model", "plain search", "model - plain search"]
    first, second, difference = (row["hit_rate"] for row in payload["rows"])
    assert difference == pytest.approx(first - second)


def test_a_depth_below_one_is_refused():
    from iam.errors import DataError

    with pytest.raises(DataError, match="^depth must be at least 1, not 0$"):
        run(PonderConfig(depth=0))
