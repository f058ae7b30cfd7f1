"""The dossier experiment's checks on test games, with a stub model and scorer on a tiny prepared tree."""

from __future__ import annotations

import sys
from pathlib import Path

import chess
import numpy as np
import pandas as pd
import pytest

from experiments.common import GameSource
from experiments.prepare import dated_sides, ece, game_rows, opening_rows, step_rows
from iam.errors import DataError
from iam.games.pgn import PlayerGame
from iam.prepare.dossier import BeliefSettings, PrepareConfig, ScoringSettings, prepare
from iam.prepare.lines import LineSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "iam" / "prepare"))
from stubs import StubPredictor, StubScorer, after  # noqa: E402


def game(index: int, *ucis: str) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=index, color=chess.BLACK, start_fen=chess.STARTING_FEN, moves=moves, result="draw")


TRAINING = [game(0, "e2e4", "e7e5", "g1f3", "b8c6"), game(1, "e2e4", "e7e5", "g1f3", "b8c6")]
BELIEFS = {
    ("e2e4",): {"e7e5": 0.8, "c7c5": 0.2},
    ("e2e4", "e7e5", "g1f3"): {"b8c6": 0.6, "d7d6": 0.4},
    ("d2d4",): {"d7d5": 1.0},
}
SCORES = {
    (): {"e2e4": 40, "d2d4": 0},
    ("e2e4",): {"e7e5": -30, "c7c5": -40},
    ("e2e4", "e7e5"): {"g1f3": 35, "f1c4": 0},
    ("e2e4", "e7e5", "g1f3"): {"b8c6": -35, "d7d6": -50},
}


@pytest.fixture(scope="module")
def setup():
    # The model's beliefs alone (no update by the masters' book or his games), so the steps' beliefs are the stub's.
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=4, our_width=1, reply_min=0.1),
                           beliefs=BeliefSettings(prior_strength=None, population_strength=None), quiet=True)
    scorer = StubScorer(SCORES)
    side = prepare(TRAINING, StubPredictor(BELIEFS), config, scorer=scorer).sides[0]
    return side, scorer


def test_entered_and_exit(setup):
    side, scorer = setup
    tests = [
        game(4, "e2e4", "e7e5", "g1f3", "d7d6", "d2d4"),  # enters at ply 3, stays to the end of the tree
        game(9, "e2e4", "e7e5", "f1c4", "g8f6"),  # we leave at ply 2: never reaches his node at ply 3
        game(14, "e2e4", "c7c5", "g1f3"),  # enters at ply 1 only: before the entry ply
    ]
    rows = game_rows(side, tests, scorer, entry_ply=2).set_index("game")
    assert rows["entered"].tolist() == [True, False, False] and rows["entered_main"].tolist() == [True, False, False]
    first = rows.loc[4]
    assert (first.entry_ply, first.exit_ply, first.left) == (3, 4, "end")
    # After 1. e4 e5 2. Nf3 d6, White to move: the stub scores every move 0 there.
    assert first.exit_value == 0
    # The reference (the scorer's main line, e4 e5 Nf3 Nc6) at ply 4: White to move, unscored: 0.
    assert first.reference_value == 0 and first.gain == 0


def test_he_leaves_the_line(setup):
    side, scorer = setup
    rows = game_rows(side, [game(4, "e2e4", "e7e5", "g1f3", "g8f6")], scorer, entry_ply=2)
    assert rows.loc[0, "left"] == "him" and rows.loc[0, "exit_ply"] == 3
    assert rows.loc[0, "exit_value"] == 35  # our value with him to move after 2. Nf3: his best -35


def test_opening_moves_named(setup):
    side, _ = setup
    rows = opening_rows(side, [game(4, "e2e4", "e7e5", "g1f3", "d7d6"), game(9, "e2e4", "c7c5")], moves=10)
    assert rows["known"].tolist() == [True, True, True]
    assert rows["dossier"].tolist() == [True, False, False] and rows["counting"].tolist() == [True, False, False]
    beyond = opening_rows(side, [game(4, "d2d4", "d7d5")], moves=10)
    assert beyond[["known", "dossier", "counting"]].values.tolist() == [[False, True, False]]
    # The stub believes 1...e5 0.8, 2...d6 0.4 and 1...c5 0.2: his moves' log loss is minus their logarithms.
    assert rows["belief"].tolist() == pytest.approx([0.8, 0.4, 0.2])
    assert rows["log_loss"].tolist() == pytest.approx([-np.log(0.8), -np.log(0.4), -np.log(0.2)])
    unseen = opening_rows(side, [game(4, "e2e4", "g8f6")], moves=10)  # 1...Nf6: no belief, floored
    assert unseen["log_loss"].tolist() == pytest.approx([-np.log(1e-4)])


def dated(index: int, date: str, *ucis: str) -> PlayerGame:
    return PlayerGame(index=index, color=chess.BLACK, start_fen=chess.STARTING_FEN, result="draw", date=date,
                      moves=tuple(chess.Move.from_uci(uci) for uci in ucis))


def test_each_test_game_meets_the_dossier_of_its_date():
    """His games surely played before the test game, recency from the latest of them; lines prepared from those
    beliefs."""
    early = [dated(i, "1950.01.10", "e2e4", "e7e5") for i in range(3)]  # 1...e5 in 1950, 1...c5 in 1960
    late = [dated(i, "1960.06.01", "e2e4", "c7c5") for i in range(3, 6)]
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=2, our_width=1, reply_min=0.1),
                           beliefs=BeliefSettings(prior_strength=2.0, population_strength=None, half_life_years=5.0),
                           quiet=True)
    even = StubPredictor({("e2e4",): {"e7e5": 0.5, "c7c5": 0.5}})
    scorer = StubScorer({(): {"e2e4": 40}})
    side = prepare(early + late, even, config, scorer=scorer).sides[0]
    tests = [dated(4, "1955.03.??", "e2e4", "e7e5"), dated(9, "1961", "e2e4", "e7e5"),
             dated(14, "1950.01.??", "e2e4", "e7e5"), dated(19, "????.??.??", "e2e4", "e7e5")]
    sides = list(dated_sides(side, early + late, tests, scorer, config))
    # by date; the undated game left out
    assert [[game.index for game in group] for _, group in sides] == [[14], [4], [9]]
    assert [dated_side.games for dated_side, _ in sides] == [0, 3, 6]
    rows = pd.concat([opening_rows(dated_side, group, moves=10) for dated_side, group in sides]).set_index("game")
    # 1955: only the three 1950 games were played before it: 1...e5 named, believed (3 + 2 * 0.5) / (3 + 2).
    assert (
        rows.loc[4, ["known", "dossier", "counting"]].tolist() == [True, True, True]
        and rows.loc[4, "belief"] == pytest.approx(0.8)
    )
    # 1961: all six, the 1950 games weighing 0.5 ** (10.4 years / 5) beside the 1960 ones, so 1...c5 is named.
    w = 0.5 ** ((1960 + 5 / 12 - 1950) / 5.0)
    weight, squares = 3 + 3 * w, 3 + 3 * w * w
    expected = (3 * w * weight / squares + 2 * 0.5) / (weight**2 / squares + 2)
    assert (
        rows.loc[9, ["known", "dossier", "counting"]].tolist() == [True, False, False]
        and rows.loc[9, "belief"] == pytest.approx(expected)
    )
    # January 1950: the games of that month are not surely before it, so none is known;
    # the model alone names 1...c5 (UCI order).
    assert (
        rows.loc[14, ["known", "dossier", "counting"]].tolist() == [False, False, False]
        and rows.loc[14, "belief"] == 0.5
    )
    # One dossier dated at his last game names 1...c5 for every game.
    assert opening_rows(side, tests, moves=10)["dossier"].tolist() == [False] * 4
    # The lines are prepared from each date's beliefs: after 1. e4, his replies as believed in 1955.
    (_, (belief_e5, _)), = [
        (uci, step) for uci, step in sides[1][0].plan.his_nodes()[after("e2e4").epd()].children.items() if uci == "e7e5"
    ]
    assert belief_e5 == pytest.approx(0.8) and sides[1][0].habits == []


def test_steps_and_ece(setup):
    side, _ = setup
    steps = step_rows(side, [game(4, "e2e4", "e7e5", "g1f3", "d7d6")])
    assert sorted(zip(steps["belief"], steps["hit"])) == [(0.2, False), (0.4, True), (0.6, False), (0.8, True)]
    assert ece(np.array([0.8, 0.8]), np.array([1.0, 1.0])) == pytest.approx(0.2)
    assert ece(np.array([0.5, 0.5]), np.array([1.0, 0.0]), np.array([3.0, 3.0])) == pytest.approx(0.0)


def test_dev_games_build_on_fitting_games_and_check_on_development_games(tmp_path, monkeypatch):
    """--games dev: the model and the dossier see the fitting games only; the checks run on the development games."""
    import experiments.prepare as experiment

    openings = ["e2e4 c7c5 g1f3", "d2d4 d7d5 c2c4", "e2e4 e7e5 g1f3", "c2c4 e7e5 b1c3", "g1f3 d7d5 d2d4"]
    records = []
    for index in range(10):  # X has White: games 3 and 8 are development games, 4 and 9 test games
        records.append(
            f'[White "X"]\n[Black "Y{index}"]\n[Result "1/2-1/2"]\n\n'
            f'1. {" ".join(_numbered(openings[index % 5]))} 1/2-1/2\n'
        )
    pgn = tmp_path / "x.pgn"
    pgn.write_text("\n".join(records))
    fitted_on: list[list[int]] = []

    class Stub(StubPredictor):
        def close(self) -> None:
            pass

    def fake_fit(games, player, **_):
        fitted_on.append(sorted(game.index for game in games))
        return Stub({})

    monkeypatch.setattr(experiment, "fit_default_model", fake_fit)
    dossier = PrepareConfig(
        "", colors=("white",), lines=LineSettings(plies=4), scoring=ScoringSettings(search_depth=1),
        beliefs=BeliefSettings(population_strength=None),
    )
    config = experiment.PrepareExperimentConfig(
        source=GameSource(pgn=str(pgn), player="X"), dossier=dossier, checks=experiment.DossierChecks(resamples=20),
        games="dev", quiet=True,
    )
    result = experiment.run(config)
    assert fitted_on == [[0, 1, 2, 5, 6, 7]]
    # The stub believes nothing, so his first moves are believed from his fitting games alone (1. e4 in 4, 1. d4 in
    # 2): the two prepared lines start there, and both development games (1. c4, never fitted on) miss them.
    (summary,) = result.payload["rows"]
    assert summary["log_loss"] == pytest.approx(-np.log(1e-4)) and summary["steps"] == 4
    steps = result.tables["steps"]
    assert not steps["hit"].any() and (steps["ply"] == 0).all()
    for _, beliefs in steps.groupby("game")["belief"]:
        high, low = sorted(beliefs, reverse=True)
        assert low > 0 and high == pytest.approx(2 * low)
    assert sorted(result.tables["openings"]["game"].unique()) == [3, 8]
    # These games carry no date: the check on his date leaves them out and says so.
    assert (
        result.tables["openings_dated"].empty
        and summary["test_games_dated"] == 0
        and "| white | 0 | 0 = - |" in result.markdown
    )
    # Games 3 and 8 open 1. c4, which the fitting games never played: counting names 1. e4 there, and knows
    # nothing after 1. c4 e5 (a development game would be known had it been fitted on).
    openings = result.tables["openings"]
    assert openings.query("ply == 0")["known"].all() and not openings.query("ply == 0")["counting"].any()
    assert not openings.query("ply == 2")["known"].any()
    assert result.payload["games"] == "dev" and result.tables["summary"]["test_games"].tolist() == [2]
    assert result.payload["population_strength"] is None and result.payload["prior_strength"] == 2.0
    assert "development games" in result.markdown and "bundled masters" not in result.markdown
    assert "updated by his games where he has been (the belief before them counting as 2 games)" in result.markdown
    with pytest.raises(DataError, match="games must be one of test, dev"):
        experiment.run(
            experiment.PrepareExperimentConfig(source=GameSource(pgn=str(pgn), player="X"), games="train", quiet=True)
        )


def test_the_model_cache_fits_once_for_two_runs(tmp_path, monkeypatch):
    """--model-cache: the second run on the same games reads the model the first kept."""
    import experiments.prepare as experiment
    from iam.prepare import model_cache
    from iam.ranker import MoveRanker

    records = [f'[White "X"]\n[Black "Y{index}"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n' for index in range(10)]
    pgn = tmp_path / "x.pgn"
    pgn.write_text("\n".join(records))
    fits = []

    def small_fit(games, player, **_):
        fits.append(len(games))
        return MoveRanker(families=("move",), max_positions=20, prior="none").fit(games, player=player)

    monkeypatch.setattr(model_cache, "fit_default_model", small_fit)
    monkeypatch.setattr(experiment, "fit_default_model", lambda *_, **__: pytest.fail("fitted outside the cache"))
    dossier = PrepareConfig(
        "", colors=("white",), lines=LineSettings(plies=2), scoring=ScoringSettings(search_depth=1),
        beliefs=BeliefSettings(population_strength=None),
    )
    config = experiment.PrepareExperimentConfig(
        source=GameSource(pgn=str(pgn), player="X"), dossier=dossier, checks=experiment.DossierChecks(resamples=10),
        model_cache=str(tmp_path / "models"), quiet=True,
    )
    first, second = experiment.run(config), experiment.run(config)
    assert fits == [8] and len(list((tmp_path / "models").glob("x-*.json.gz"))) == 1
    pd.testing.assert_frame_equal(first.tables["openings"], second.tables["openings"])
    assert first.payload["rows"][0]["log_loss"] == second.payload["rows"][0]["log_loss"] < 1.0


def _numbered(moves: str) -> list[str]:
    ucis, board, words = moves.split(), chess.Board(), []
    for number, uci in enumerate(ucis):
        move = chess.Move.from_uci(uci)
        words.append((f"{number // 2 + 1}. " if number % 2 == 0 else "") + board.san(move))
        board.push(move)
    return words


def test_the_command_line_names_the_model_cache():
    from iam.cli import build_parser
    from iam.cli.experiments.prepare import config

    args = build_parser().parse_args(
        ["experiment", "prepare", "--player", "X", "--model-cache", "models", "--games", "dev"]
    )
    assert config(args).model_cache == "models" and config(args).games == "dev"
    assert config(build_parser().parse_args(["experiment", "prepare"])).model_cache is None


def test_the_ece_calibrated_beliefs_would_show():
    from experiments.prepare import _calibrated

    belief = np.full(400, 0.5)
    # 400 fair coins in one bin: the hit rate strays from 0.5 by about 0.02, never by 0.3.
    far, none = _calibrated(belief, 0.3, seed=0), _calibrated(belief, 0.0, seed=0)
    assert 0.01 < far["ece_floor"] < 0.03 and far["ece_p"] == 0.0 and none["ece_p"] == 1.0
    assert np.isnan(_calibrated(np.array([]), 0.1, seed=0)["ece_p"])
