"""The ablation experiment: every variant on the same positions, and removing evidence costs."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest

from experiments.ablation import (
    AblatedRanker,
    AblationConfig,
    ablation,
    ablation_tables,
    ablation_variants,
    variants,
)
from iam.cli import main
from iam.evidence.registry import family_columns
from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights
from iam.priors.trees import ResidualTrees


def test_variants_remove_each_family_and_keep_each_alone():
    assert variants(("habits", "move")) == [
        ("all families", ("move", "habits")),
        ("without move", ("habits",)),
        ("without habits", ("move",)),
        ("move alone", ("move",)),
        ("habits alone", ("habits",)),
    ]
    assert variants(("move",)) == [("all families", ("move",))]


@pytest.fixture(scope="module")
def move_habits_table(botvinnik_games):
    """The ablation of the move and habit families on Botvinnik's games, no prior (shared, read-only)."""
    config = AblationConfig(
        ranker=AblatedRanker(families=("move", "habits"), train_positions=250, prior="none"),
        train_games=25,
        test_positions=120,
        resamples=100,
    )
    return ablation(botvinnik_games, "Botvinnik", config).set_index("variant")


def test_removing_the_move_features_costs_and_every_variant_sees_the_same_positions(move_habits_table):
    table = move_habits_table
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


@pytest.fixture(scope="module")
def residual_tables(botvinnik_games):
    """The features of an ablation of the move and habit families with a prior of residual trees on captures
    (shared, read-only): the tables do not depend on the prior's strength, which only the variants' fits read."""
    families = ("move", "habits")
    columns = tuple(name for family in families for name in family_columns(family))
    trees = ResidualTrees.from_dict(
        {
            "columns": list(columns),
            "depth": 1,
            "roots": [0],
            "nodes": {
                "feature": [columns.index("capture"), -1, -1],
                "threshold": [0.5, 0, 0],
                "left": [1, 0, 0],
                "right": [2, 0, 0],
                "value": [0, 0, 1.5],
            },
        }
    )
    weights = dict.fromkeys(columns, 0.0) | {"recapture": 1.0}
    prior = PopulationPrior(
        book=PopulationBook(), rankers=(PriorWeights(families, None, weights, positions=1, trees=trees),)
    )
    config = AblationConfig(
        ranker=AblatedRanker(families=families, train_positions=250),
        train_games=25,
        test_positions=120,
        resamples=20,
    )
    return ablation_tables(botvinnik_games, "Botvinnik", config, prior=prior)


@pytest.mark.parametrize("strength", [0.0, 1e7])
def test_the_residual_trees_row_adds_the_population_trees_to_the_full_ranker(residual_tables, strength):
    tables = residual_tables.with_prior_strength(strength)
    assert tables.config.ranker.prior_strength == strength and tables.train is residual_tables.train
    table = ablation_variants(tables).set_index("variant")
    plain, boosted = table.loc["all families", "log_loss"], table.loc["all families + residual trees", "log_loss"]
    if strength == 0.0:  # free weights give back what the trees add to captures: the same beliefs
        assert boosted == pytest.approx(plain, abs=1e-3)
    else:  # weights held at the prior's: the trees change the beliefs
        assert abs(boosted - plain) > 0.01


def test_an_ablation_is_its_variants_fitted_on_tables_that_do_not_depend_on_the_prior_strength(botvinnik_games):
    """:func:`ablation` computes the tables and fits the variants on them: the same rows as the two steps apart,
    the tables computed without the strength the variants are fitted with."""
    ranker = AblatedRanker(families=("move",), train_positions=60, prior="none")
    config = AblationConfig(ranker=ranker, train_games=5, test_positions=30, resamples=20)
    tables = ablation_tables(botvinnik_games, "Botvinnik", config)
    for strength in (None, 1000.0):
        pulled = AblationConfig(ranker=replace(ranker, prior_strength=strength), train_games=5, test_positions=30,
                                resamples=20)
        whole = ablation(botvinnik_games, "Botvinnik", pulled)
        pd.testing.assert_frame_equal(whole, ablation_variants(tables.with_prior_strength(strength)))
    fits = [ablation_variants(tables.with_prior_strength(s))["log_loss"].iloc[0] for s in (None, 1000.0)]
    assert fits[0] != fits[1]  # the strength reaches the fits


def test_each_row_without_a_family_says_what_the_family_adds_with_a_paired_interval(move_habits_table):
    table = move_habits_table
    full, without = table.loc["all families"], table.loc["without move"]
    assert (without["kind"], without["family"]) == ("without", "move")
    assert table.loc["habits alone", "kind"] == "alone" and table.loc["all families", "kind"] == "all"
    assert without["top1_gain"] == pytest.approx(full["top1"] - without["top1"])
    assert without["log_loss_gain"] == pytest.approx(without["log_loss"] - full["log_loss"])
    assert without["log_loss_gain"] > 0  # the move features help (the test above)
    for figure in ("top1_gain", "log_loss_gain"):
        assert without[f"{figure}_lo"] <= without[figure] <= without[f"{figure}_hi"]
        assert without[f"{figure}_hi"] - without[f"{figure}_lo"] > 0
    # Paired over the same games, the gain's interval is narrower than the two figures' own intervals side by side.
    assert (without["log_loss_gain_hi"] - without["log_loss_gain_lo"]) < (full["log_loss_hi"] - full["log_loss_lo"])
    assert table.loc[["all families", "move alone"], "top1_gain"].isna().all()
