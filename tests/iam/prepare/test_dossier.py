"""The dossier (iam.prepare.dossier): its config's checks, the colours with too few games refused, a dossier built on
a few hand-written games with a stub model (and the toolkit's own shallow search when no scorer is given), and the
default model's parameters and runtime."""

from __future__ import annotations

import chess
import chess.pgn
import pytest

from iam.errors import DataError, ParameterError
from iam.prepare.dossier import (
    DEFAULT_MODEL,
    GLANCE_FAMILIES,
    BeliefSettings,
    HabitSettings,
    PrepareConfig,
    RepertoireSettings,
    ScoringSettings,
    build_side,
    default_model_params,
    default_model_runtime,
    judges_habits,
    open_scorer,
    prepare,
)
from iam.prepare.lines import LineSettings
from iam.prepare.scoring import SearchScorer
from iam.ranker import DEFAULT_FAMILIES
from iam.runtime import Runtime

from .stubs import StubPredictor, StubScorer, after
from .test_habits import GAMES

BELIEFS = {("e2e4",): {"f7f6": 0.7, "e7e5": 0.3}, ("d2d4",): {"d7d5": 1.0}}
SCORES = {(): {"e2e4": 30, "d2d4": 10}, ("e2e4",): {"e7e5": 20, "f7f6": -90}}


def test_too_few_games_is_a_data_error():
    with pytest.raises(DataError, match="no games with white"):
        prepare(GAMES, StubPredictor({}), PrepareConfig("X", colors=("white",)), scorer=StubScorer({}))
    with pytest.raises(
        ParameterError, match=r"^min_games must be at most \d+, not 5: X has \d+ games with black$"
    ) as caught:
        prepare(GAMES, StubPredictor({}), PrepareConfig("X", colors=("black",), min_games=5), scorer=StubScorer({}))
    assert isinstance(caught.value, DataError) and (caught.value.parameter, caught.value.value) == ("min_games", 5)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"colors": ("white", "red")}, DataError, "colours are white and black, not red"),
        ({"colors": ()}, DataError, "colours are white and black, not none"),
        ({"min_games": 0}, ParameterError, "min_games must be at least 1, not 0"),
        ({"repertoire": RepertoireSettings(branch_games=0)}, ParameterError, "branch_games must be at least 1"),
        ({"habits": HabitSettings(habit_games=0)}, ParameterError, "habit_games must be at least 1"),
        ({"beliefs": BeliefSettings(half_life_years=0)}, ParameterError, "half_life_years must be a positive number"),
        ({"beliefs": BeliefSettings(prior_strength=0)}, DataError, "the prior's strength must be positive, not 0"),
        ({"beliefs": BeliefSettings(population_strength=-1)}, DataError, "population's strength must be positive"),
        ({"scoring": ScoringSettings(search_depth=0)}, DataError, "search_depth must be from 1 to 12, not 0"),
        ({"scoring": ScoringSettings(engine_depth=0)}, DataError, "engine_depth must be from 1 to 60, not 0"),
        ({"scoring": ScoringSettings(search_depth=13)}, DataError, "search_depth must be from 1 to 12, not 13"),
        ({"scoring": ScoringSettings(engine_lines=0)}, DataError, "engine_lines must be at least 1"),
    ],
)
def test_a_config_that_cannot_build_a_dossier_is_refused(change, error, message):
    """Each setting out of range is refused when the config is made, naming the setting."""
    with pytest.raises(error, match=message):
        PrepareConfig("X", **change)


def test_a_side_is_his_tree_his_updated_beliefs_the_lines_and_his_habits():
    """Against him with Black: his four games, the model's beliefs updated by his games two games strong (f6 after
    1. e4: (2 + 2 * 0.7) / 5), the lines prepared on them, and his costly f6 found as a habit; without habits or with
    the model alone, the rest is the same."""
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=2), beliefs=BeliefSettings(2.0, None))
    model = StubPredictor(BELIEFS)
    side = build_side(GAMES, chess.BLACK, model, StubScorer(SCORES), config)
    assert side.color == chess.BLACK and side.games == 4 and side.repertoire.games == 4
    f6 = chess.Move.from_uci("f7f6")
    assert side.beliefs.predict_proba(after("e2e4"))[f6] == pytest.approx(0.68)
    assert [(h.usual_san, h.best_san, h.cost) for h in side.habits] == [("f6", "e5", 110)]
    assert side.plan.lines[0].moves == ("e2e4", "f7f6")
    plain = build_side(GAMES, chess.BLACK, model, StubScorer(SCORES), config, habits=False)
    assert plain.habits == [] and [line.moves for line in plain.plan.lines] == [line.moves for line in side.plan.lines]
    alone = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=2), beliefs=BeliefSettings(None, None))
    assert build_side(GAMES, chess.BLACK, model, StubScorer(SCORES), alone).beliefs is model


def test_without_an_engine_the_dossier_is_judged_by_the_toolkits_own_search():
    """No scorer and no engine: the dossier is judged by the toolkit's search at the config's depth, named in it."""
    config = PrepareConfig(
        "X", colors=("black",), lines=LineSettings(plies=2), scoring=ScoringSettings(search_depth=1),
        beliefs=BeliefSettings(population_strength=None), quiet=True,
    )
    scorer = open_scorer(config)
    assert isinstance(scorer, SearchScorer) and scorer.depth == 1
    dossier = prepare(GAMES, StubPredictor(BELIEFS), config, model_name="a stub")
    assert (dossier.player, dossier.model, dossier.scorer) == ("X", "a stub", SearchScorer(1).description)
    (side,) = dossier.sides
    assert side.color == chess.BLACK and side.games == 4
    first = chess.Move.from_uci(side.plan.lines[0].moves[0])
    assert first in chess.Board().legal_moves


def test_without_an_engine_his_habits_are_not_looked_for():
    """The own search is not trusted with his costly habits (measured against stockfish): a dossier it judges lists
    none and says it did not judge them; a scorer that judges them (an engine, a stub) finds his costly f6."""
    config = PrepareConfig(
        "X", colors=("black",), lines=LineSettings(plies=2), scoring=ScoringSettings(search_depth=1),
        beliefs=BeliefSettings(population_strength=None), quiet=True,
    )
    assert not judges_habits(SearchScorer(1)) and judges_habits(StubScorer(SCORES))
    (side,) = prepare(GAMES, StubPredictor(BELIEFS), config).sides
    assert side.habits == [] and not side.habits_judged
    assert side.first_move_agreement == SearchScorer.first_move_agreement[False]  # he has Black
    (judged,) = prepare(GAMES, StubPredictor(BELIEFS), config, scorer=StubScorer(SCORES)).sides
    assert judged.habits_judged and [h.usual_san for h in judged.habits] == ["f6"]
    assert judged.first_move_agreement is None


def test_the_side_holds_the_judges_value_of_every_position_its_repertoire_shows():
    """Every position of his games reached in two of them, and every position of the prepared tree, has the
    judge's value for us (we have White here: he has Black); without values none is looked for."""
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=1), beliefs=BeliefSettings(2.0, None))
    side = build_side(GAMES, chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), config)
    shown = [node.epd for node in side.repertoire.nodes.values() if node.games >= 2]
    assert shown and all(epd in side.values for epd in shown)
    # After 1. e4 he is to move: the stub's best there is e5 at 20 for him, so -20 for us.
    assert side.values[after("e2e4").epd()] == -20
    assert side.values[chess.Board().epd()] == 30  # on the prepared tree: its own value
    assert build_side(GAMES, chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), config, values=False).values == {}


def test_the_default_model_reads_the_glance_only_with_an_engine():
    """Without an engine the default ranker's parameters are DEFAULT_MODEL; with one its families add the glance,
    and it runs on the runtime's engine and cache and jobs only."""
    assert default_model_params() == DEFAULT_MODEL and default_model_params() is not DEFAULT_MODEL
    assert default_model_params("sf") == {**DEFAULT_MODEL, "families": (*DEFAULT_FAMILIES, *GLANCE_FAMILIES)}
    full = Runtime(engine="sf", engine_cache="c.sqlite", engine_timeout=9.0, search_cache="s.sqlite", jobs=2)
    assert default_model_runtime(full) == Runtime(jobs=2, engine="sf", engine_cache="c.sqlite")
    assert default_model_runtime(Runtime(engine_cache="c.sqlite", jobs=3)) == Runtime(jobs=3)


def test_python_chess_games_are_refused_naming_player_games():
    with pytest.raises(TypeError, match=r"prepare expects PlayerGame records .*not chess\.pgn\.Game"):
        prepare([chess.pgn.Game()], StubPredictor({}), PrepareConfig("X"), scorer=StubScorer({}))
