"""The ablation experiment: every variant on the same positions, and removing evidence costs."""

from __future__ import annotations

import json

import pytest

from experiments.ablation import AblationConfig, ablation, variants
from iam.cli import main


def test_variants_remove_each_family_and_keep_each_alone():
    assert variants(("habits", "move")) == [
        ("all families", ("move", "habits")),
        ("without move", ("habits",)),
        ("without habits", ("move",)),
        ("move alone", ("move",)),
        ("habits alone", ("habits",)),
    ]
    assert variants(("move",)) == [("all families", ("move",))]


def test_removing_the_move_features_costs_and_every_variant_sees_the_same_positions(botvinnik_games):
    config = AblationConfig(
        families=("move", "habits"), train_games=25, train_positions=250, test_positions=120, resamples=100, prior="none"
    )
    table = ablation(botvinnik_games, "Botvinnik", config).set_index("variant")
    assert set(table["test_positions"]) == {120}
    assert table.loc["all families", "log_loss"] < table.loc["without move", "log_loss"]
    assert table.loc["all families", "top1"] > table.loc["without move", "top1"]
    # "without habits" is "move alone": the same columns, the same fit.
    assert table.loc["without habits", "log_loss"] == pytest.approx(table.loc["move alone", "log_loss"])
    for figure in ("top1", "log_loss"):
        assert (table[f"{figure}_lo"] <= table[figure]).all() and (table[figure] <= table[f"{figure}_hi"]).all()


def test_the_cli_writes_the_ablation(tmp_path, capsys):
    code = main(
        ["experiment", "ablation", "--families", "move,habits", "--train-games", "12", "--train-positions", "120",
         "--max-positions", "40", "--resamples", "20", "--prior", "none", "--json", "--quiet", "--out", str(tmp_path)]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert [row["variant"] for row in payload["rows"]][:1] == ["all families"]
    assert (tmp_path / "ablation.csv").is_file()
