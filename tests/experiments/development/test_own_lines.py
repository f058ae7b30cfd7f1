"""The own-lines experiment: its tables, its rule and the positions it reads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.development.own_lines import TIE, book_positions, calibration_table, choose_strength, strength_table
from iam.measure.evaluation import first_training_games
from iam.ranker import MoveRanker


def _row(player: str, colour: str, model: list[float], counts: list[float], played: int) -> dict:
    return {"player": player, "colour": colour, "played": played,
            "model": np.array(model), "counts": np.array(counts), "games_here": int(sum(counts))}


ROWS = [
    # He plays his sideline (index 1) that the model hardly believes.
    _row("A", "white", [0.9, 0.05, 0.05], [2.0, 2.0, 0.0], 1),
    _row("A", "black", [0.6, 0.3, 0.1], [5.0, 0.0, 0.0], 0),
    _row("B", "white", [0.2, 0.7, 0.1], [0.0, 3.0, 1.0], 1),
]


def test_strength_table_scores_the_move_played_under_each_strength() -> None:
    table = strength_table(ROWS, (0.0, math.inf)).set_index(["player", "colour", "strength"])
    # strength 0: his frequencies; A/white played move 1, believed 2/4
    assert table.loc[("A", "white", 0.0), "log_loss"] == pytest.approx(-math.log(0.5))
    # the model alone believes 0.05 there, and its top move (index 0) misses
    assert table.loc[("A", "white", math.inf), "log_loss"] == pytest.approx(-math.log(0.05))
    assert not table.loc[("A", "white", math.inf), "top1"]
    # A/black: his one choice, believed 1.0 with strength 0 (loss 0), 0.6 by the model
    assert table.loc[("A", "black", 0.0), "log_loss"] == pytest.approx(0.0)
    assert table.loc[("A", "black", math.inf), "log_loss"] == pytest.approx(-math.log(0.6))
    assert set(table["positions"]) == {1}


def test_the_rule_takes_the_least_mean_loss_over_masters_and_a_tie_goes_to_the_model() -> None:
    table = strength_table(ROWS, (0.0, 1.0, math.inf))
    per = table.groupby(["player", "strength"]).apply(
        lambda g: (g["log_loss"] * g["positions"]).sum() / g["positions"].sum(), include_groups=False)
    mean = per.groupby("strength").mean()
    assert choose_strength(table) == mean.idxmin()
    tied = table.copy()
    tied["log_loss"] = 1.0
    tied.loc[tied["strength"] == 0.0, "log_loss"] = 1.0 - TIE / 2
    assert choose_strength(tied) == math.inf


def test_calibration_table_bands_the_top_belief_per_colour() -> None:
    table = calibration_table(ROWS, 0.0)
    white = table[table["colour"] == "white"].set_index("band")
    # White at strength 0: A believes [0.5, 0.5, 0] (the tie's first move, a miss), B [0, 0.75, 0.25] (a hit)
    assert white.loc[">50%", "predictions"] == 2 and white.loc[">50%", "hits"] == 1
    assert white.loc[">50%", "mean_belief"] == pytest.approx(0.625)
    assert white["predictions"].sum() == 2
    black = table[table["colour"] == "black"].set_index("band")
    assert black.loc[">50%", "predictions"] == 1 and black.loc[">50%", "hits"] == 1


def test_book_positions_are_the_development_positions_his_memory_holds(botvinnik_games) -> None:
    training = first_training_games(botvinnik_games, 30)
    ranker = MoveRanker(families=("move", "habits"), max_positions=100, prior="none").fit(training[:24])
    rows = book_positions(ranker, training[24:])
    memory = ranker.opening_memory()
    assert rows, "six later games of his must revisit some of his opening positions"
    for row in rows:
        assert row["games_here"] >= memory.min_games
        assert row["model"].sum() == pytest.approx(1.0)
        assert row["counts"].sum() == row["games_here"]
        assert row["ply"] < memory.max_ply
