"""Sideline floor: his test games' choices at positions he reached in five of them, against the beliefs."""

import chess
import pytest

from experiments.development.sideline_floor import sideline_rows

from ...iam.prepare.stubs import StubPredictor
from ...iam.prepare.test_habits import game

# After 1. e4 he (Black) chose e5 in 6 games, c5 in 3 and f6 in 1 of 10: f6 is 10%, the edge of a sideline.
TEST = [game(i, "e2e4", "e7e5") for i in range(6)] + [game(6 + i, "e2e4", "c7c5") for i in range(3)] + [
    game(9, "e2e4", "f7f6")
] + [game(10 + i, "d2d4", "d7d5") for i in range(4)]  # 1. d4 reached in 4 games only: left out


@pytest.mark.parametrize(("c5", "violations"), [(0.15, 0), (0.149, 1)])
def test_a_move_believed_below_half_its_share_is_a_violation(c5, violations):
    beliefs = StubPredictor({("e2e4",): {"e7e5": 0.8 - c5, "c7c5": c5, "f7f6": 0.2}})
    rows = sideline_rows(TEST, chess.BLACK, beliefs, plies=4)
    assert rows[["move", "played", "games"]].values.tolist() == [["c5", 3, 10], ["e5", 6, 10], ["f6", 1, 10]]
    assert rows["share"].tolist() == [0.3, 0.6, 0.1] and int(rows["violation"].sum()) == violations
    assert rows.loc[rows["move"] == "e5", "belief"].item() == pytest.approx(0.8 - c5)


def test_games_of_the_other_colour_and_rare_positions_are_left_out():
    beliefs = StubPredictor({})
    assert sideline_rows(TEST, chess.WHITE, beliefs, plies=4).empty
    rows = sideline_rows(TEST, chess.BLACK, beliefs, plies=4, min_games=11)
    assert rows.empty and list(rows.columns)[-1] == "violation"
    # A move he never is believed in at all is a violation of any floor.
    assert sideline_rows(TEST, chess.BLACK, beliefs, plies=4)["violation"].all()


def test_each_game_meets_its_own_dossier_and_the_belief_is_their_mean():
    """The first five games after 1. e4 meet a dossier believing c5 at 0.05, the other five one believing it at
    0.45: the mean, 0.25, is above half his 30%; games without a dossier are left out."""
    from experiments.development.sideline_floor import dated_sideline_rows

    early = StubPredictor({("e2e4",): {"e7e5": 0.95, "c7c5": 0.05}})
    late = StubPredictor({("e2e4",): {"e7e5": 0.35, "c7c5": 0.45, "f7f6": 0.2}})
    rows = dated_sideline_rows(TEST, chess.BLACK, lambda g: early if g.index < 5 else late, plies=4).set_index("move")
    assert rows.loc["c5", "belief"] == pytest.approx(0.25) and not rows.loc["c5", "violation"]
    assert rows.loc["e5", "belief"] == pytest.approx(0.65) and rows.loc["f6", "belief"] == pytest.approx(0.1)
    assert bool(rows.loc["f6", "violation"]) is False  # 0.1 against half of 10%
    # Games 0 to 4 without a dossier: five games are left after 1. e4 (e5 once, c5 three times, f6 once).
    rows = dated_sideline_rows(TEST, chess.BLACK, lambda g: None if g.index < 5 else late, plies=4).set_index("move")
    assert rows["played"].to_dict() == {"c5": 3, "e5": 1, "f6": 1}
    assert rows.loc["c5", "belief"] == pytest.approx(0.45) and rows.loc["c5", "share"] == pytest.approx(0.6)


def _dossier(e5: int, c5: int, floored: bool = True):
    """Beliefs from his games after 1. e4 (``e5`` and ``c5`` games) over a model that all but rules c5 and f6 out."""
    from iam.prepare.beliefs import HisLineBeliefs
    from iam.prepare.tree import RepertoireBeliefs, build_repertoire

    games = [game(i, "e2e4", "e7e5") for i in range(e5)] + [game(100 + i, "e2e4", "c7c5") for i in range(c5)]
    model = StubPredictor({("e2e4",): {"e7e5": 0.98, "c7c5": 0.01, "f7f6": 0.01}})
    return (HisLineBeliefs if floored else RepertoireBeliefs)(build_repertoire(games, chess.BLACK, plies=2), model,
                                                              64.0)


@pytest.mark.parametrize(("early", "late", "cause", "floored"), [
    ((5, 0), (5, 0), "never played there before", 0.0),
    ((19, 1), (19, 1), "below the sideline share before", 0.0),
    ((19, 1), (9, 1), "floored for some of the games", 0.5),
    ((9, 1), (9, 1), "floored for all the games", 1.0),
])
def test_a_violation_says_what_the_dossiers_knew_of_the_move(early, late, cause, floored):
    """His test games choose c5 in 3 of 10 after 1. e4; the dossiers met knew it from none to 10% of his games."""
    from experiments.development.sideline_floor import CAUSES, dated_sideline_rows

    first, second = _dossier(*early), _dossier(*late)
    rows = dated_sideline_rows(TEST, chess.BLACK, lambda g: first if g.index < 5 else second, plies=4)
    c5 = rows.set_index("move").loc["c5"]
    assert bool(c5["violation"]) and c5["cause"] == cause and cause in CAUSES
    assert c5["floored"] == floored
    assert c5["known_games"] == pytest.approx((sum(early) + sum(late)) / 2)
    assert c5["known_share"] == pytest.approx((early[1] + late[1]) / (sum(early) + sum(late)))
    e5 = rows.set_index("move").loc["e5"]
    assert not e5["violation"] and e5["cause"] == ""


def test_the_floor_on_the_games_each_dossier_knew():
    """At 1. e4 the dossier knew 9 games with e5 and 1 with c5: c5 is floored at 5%; unfloored, it is below."""
    from experiments.development.sideline_floor import known_rows

    rows = known_rows([_dossier(9, 1), _dossier(9, 1, floored=False)])
    assert rows[["dossier", "move", "games", "played"]].values.tolist() == [
        [0, "c5", 10, 1], [0, "e5", 10, 9], [1, "c5", 10, 1], [1, "e5", 10, 9]]
    assert rows["violation"].tolist() == [False, False, True, False]
    assert rows.loc[0, "belief"] == pytest.approx(0.05)
    assert known_rows([_dossier(3, 1)]).empty  # four games there, fewer than five
