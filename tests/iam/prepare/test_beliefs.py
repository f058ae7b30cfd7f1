"""His beliefs in the dossier (iam.prepare.beliefs): his games counted once on the model alone, sidelines floored."""

from __future__ import annotations

import math

import chess
import numpy as np
import pytest

from iam.games.pgn import PlayerGame
from iam.prepare.beliefs import HisLineBeliefs, ModelAlone, floor_sidelines, model_alone
from iam.prepare.dossier import BeliefSettings, PrepareConfig, prepare
from iam.prepare.lines import LineSettings
from iam.prepare.tree import PRIOR_STRENGTH, build_repertoire
from iam.ranker import MoveRanker
from iam.ranker.own_lines import OWN_LINES_STRENGTH

from .stubs import StubPredictor, StubScorer, after

E5, C5, G6 = (chess.Move.from_uci(uci) for uci in ("e7e5", "c7c5", "g7g6"))


def _game(index: int, *ucis: str, date: str = "") -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=index, color=chess.BLACK, start_fen=chess.STARTING_FEN, moves=moves, result="draw",
                      date=date)


def _model_sure_of_e5() -> StubPredictor:
    """After 1. e4 the model all but rules c5 and g6 out."""
    return StubPredictor({("e2e4",): {"e7e5": 0.98, "c7c5": 0.01, "g7g6": 0.01}})


def test_his_games_count_once_on_the_prior():
    """Without a sideline to lift: the Dirichlet posterior of his games with the prior ``strength`` games strong."""
    games = [_game(i, "e2e4", "e7e5") for i in range(10)] + [_game(10, "e2e4", "c7c5")]
    tree = build_repertoire(games, chess.BLACK, plies=2)
    beliefs = HisLineBeliefs(tree, _model_sure_of_e5(), strength=16.0).predict_proba(after("e2e4"))
    assert beliefs[E5] == pytest.approx((10 + 16 * 0.98) / 27)
    assert beliefs[C5] == pytest.approx((1 + 16 * 0.01) / 27)  # 1 game in 11 is below the 10% of a sideline
    assert sum(beliefs.values()) == pytest.approx(1.0)
    assert list(beliefs) == sorted(beliefs, key=lambda move: -beliefs[move])


def test_a_sideline_he_plays_is_never_believed_below_half_its_frequency():
    """3 games of 10 with c5 and 2 with g6 against a model that all but rules them out: at least 15% and 10%."""
    games = ([_game(i, "e2e4", "e7e5") for i in range(5)] + [_game(5 + i, "e2e4", "c7c5") for i in range(3)]
             + [_game(8 + i, "e2e4", "g7g6") for i in range(2)])
    tree = build_repertoire(games, chess.BLACK, plies=2)
    beliefs = HisLineBeliefs(tree, _model_sure_of_e5(), strength=64.0).predict_proba(after("e2e4"))
    unfloored = (3 + 64 * 0.01) / 74
    assert unfloored < 0.15 and beliefs[C5] == pytest.approx(0.15) and beliefs[G6] == pytest.approx(0.10)
    assert sum(beliefs.values()) == pytest.approx(1.0)


def test_the_floor_reads_his_plain_frequency_not_the_recency_weights():
    """His old games weigh less in the posterior, yet the floor is half his share of games: 4 of 10 old ones."""
    games = ([_game(i, "e2e4", "c7c5", date="1940.01.01") for i in range(4)]
             + [_game(4 + i, "e2e4", "e7e5", date="1960.01.01") for i in range(6)])
    tree = build_repertoire(games, chess.BLACK, plies=2, half_life_years=2.5)
    beliefs = HisLineBeliefs(tree, _model_sure_of_e5(), strength=16.0).predict_proba(after("e2e4"))
    assert beliefs[C5] == pytest.approx(0.2)


def test_floor_sidelines_leaves_beliefs_above_their_floor_alone_and_lifts_in_passes():
    e4, d4, c4 = (chess.Move.from_uci(uci) for uci in ("e2e4", "d2d4", "c2c4"))
    kept = {e4: 0.5, d4: 0.3, c4: 0.2}
    assert floor_sidelines(kept, {"e2e4": 5, "d2d4": 3, "c2c4": 2}) == kept
    assert floor_sidelines(kept, {}) == kept
    lifted = floor_sidelines({e4: 0.98, d4: 0.01, c4: 0.01}, {"e2e4": 2, "d2d4": 4, "c2c4": 4})
    assert lifted[d4] == pytest.approx(0.2) and lifted[c4] == pytest.approx(0.2) and lifted[e4] == pytest.approx(0.6)


class _RecordingRanker(MoveRanker):
    """A ranker whose beliefs are fixed, noting the weight of his own lines each call asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[float] = []

    def beliefs(self, board, *, own_lines=OWN_LINES_STRENGTH):
        self.asked.append(own_lines)
        moves = tuple(sorted(board.legal_moves, key=lambda move: move.uci()))
        probs = np.full(len(moves), 1.0 / len(moves))
        if own_lines != math.inf:
            probs[0] += 1.0  # his lines counted inside the ranker: not what the dossier wants
            probs /= probs.sum()
        return moves, probs, np.zeros((len(moves), 0))


def test_a_ranker_is_asked_for_the_model_alone_and_other_models_stand():
    ranker = _RecordingRanker()
    alone = model_alone(ranker)
    assert isinstance(alone, ModelAlone)
    beliefs = alone.predict_proba(chess.Board())
    assert ranker.asked == [math.inf] and list(beliefs.values()) == pytest.approx([1 / 20] * 20)
    stub = StubPredictor({})
    assert model_alone(stub) is stub


def test_the_dossier_builds_its_beliefs_on_the_model_alone_with_his_games_once():
    """prepare: the ranker asked without its own lines, the beliefs his games update two games strong."""
    games = [_game(i, "e2e4", "e7e5") for i in range(3)]
    ranker = _RecordingRanker()
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=2),
                           beliefs=BeliefSettings(population_strength=None), quiet=True)
    assert config.beliefs.prior_strength == PRIOR_STRENGTH == 2.0
    (side,) = prepare(games, ranker, config, scorer=StubScorer({})).sides
    assert isinstance(side.beliefs, HisLineBeliefs) and isinstance(side.beliefs.model, ModelAlone)
    assert set(ranker.asked) == {math.inf}
    believed = side.beliefs.predict_proba(after("e2e4"))
    legal = after("e2e4").legal_moves.count()
    assert (3 + 2 / legal) / 5 > 0.5 and believed[E5] == pytest.approx((3 + 2 / legal) / 5)


def test_his_sideline_is_floored_where_the_model_abstains():
    """At a position he reached in 10 games, 3 of them with c5: a model that names e5 alone (a chunk model abstains)
    still leaves c5 believed at least 15%, half his 30%."""
    games = [_game(i, "e2e4", "e7e5") for i in range(7)] + [_game(7 + i, "e2e4", "c7c5") for i in range(3)]
    tree = build_repertoire(games, chess.BLACK, plies=2)
    abstaining = StubPredictor({("e2e4",): {"e7e5": 0.9}})
    beliefs = HisLineBeliefs(tree, abstaining, strength=64.0).predict_proba(after("e2e4"))
    assert beliefs[C5] == pytest.approx(0.15) and beliefs[E5] > 0.8
    # Nowhere named by the model: his games alone, c5 above its floor (3 of 12 with the prior's 2 unnamed).
    assert HisLineBeliefs(tree, StubPredictor({}), strength=2.0).predict_proba(after("e2e4"))[C5] == (
        pytest.approx(3 / 12))
