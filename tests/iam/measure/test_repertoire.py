"""The opening repertoire as identification evidence: the posterior by hand, where it speaks, and where it does not."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.chunks.rote import RoteEntry, RoteMemory
from iam.games.pgn import load_player_games
from iam.measure.identify import LikelihoodScorer, game_positions
from iam.measure.repertoire import RepertoireScorer, memory_of
from iam.priors.positions import position_of
from iam.ranker import MoveRanker

START = chess.Board()
E4, D4, NF3 = (chess.Move.from_uci(uci) for uci in ("e2e4", "d2d4", "g1f3"))


def _memory(board: chess.Board, counts: dict[str, int]) -> RoteMemory:
    return RoteMemory(positions={board.epd(): RoteEntry(board.epd(), counts)})


def test_the_posterior_of_each_candidate_matches_the_hand_computation():
    scorer = RepertoireScorer(
        [_memory(START, {"e2e4": 3}), _memory(START, {"d2d4": 2}), None], strength=5.0, base_strength=1.0
    )
    # pooled: 5 games; the base of a move nobody chose: (0 + 1/20) / (5 + 1)
    base = (1 / 20) / 6
    found = np.exp(scorer.position(position_of(START, NF3)))
    assert np.allclose(found, [5 * base / 8, 5 * base / 7, base])
    # the move the first candidate chose: base (3 + 1/20) / 6
    base = (3 + 1 / 20) / 6
    found = np.exp(scorer.position(position_of(START, E4)))
    assert np.allclose(found, [(3 + 5 * base) / 8, 5 * base / 7, base])
    assert found[0] > found[2] > found[1]


def test_positions_nobody_remembers_and_unlabelled_positions_are_left_to_the_models():
    scorer = RepertoireScorer([_memory(START, {"e2e4": 3}), None])
    after = START.copy()
    after.push(E4)
    assert scorer.position(position_of(after, chess.Move.from_uci("e7e5"))) is None
    assert scorer.position(position_of(START)) is None
    assert len(scorer) == 1
    assert RepertoireScorer([None, None]).position(position_of(START, E4)) is None


def test_strengths_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        RepertoireScorer([None], strength=0.0)


@pytest.fixture(scope="module")
def fitted(synthetic_players, synthetic_models):
    """Two IAM models of the synthetic players (fitted on their training games, shared and read-only) and the test
    games of each."""
    models, tests = [], []
    for name in ("Alpha Ann", "Beta Bob"):
        games, _ = load_player_games([synthetic_players[name]], player=name)
        models.append(synthetic_models[name])
        tests.append([g for g in games if g.split == "test"])
    return models, tests


def test_the_scorer_uses_the_repertoire_where_remembered_and_the_models_elsewhere(fitted):
    models, tests = fitted
    plain, with_openings = LikelihoodScorer(models), LikelihoodScorer(models, repertoire=True)
    repertoire = RepertoireScorer([memory_of(model) for model in models])
    remembered = elsewhere = 0
    for game in tests[0] + tests[1]:
        for position in game_positions(game):
            opening = repertoire.position(position)
            if opening is None:
                elsewhere += 1
                assert np.array_equal(with_openings.position(position), plain.position(position))
            else:
                remembered += 1
                assert np.array_equal(with_openings.position(position), opening)
    assert remembered and elsewhere
    # the first move from the start is each player's own habit (pawns against knights)
    white = next(g for g in tests[0] if g.color == chess.WHITE)
    first = game_positions(white)[0]
    assert first.ply == 0 and np.argmax(with_openings.position(first)) == 0


def test_memory_of_reads_an_iam_model_and_nothing_from_a_ranker_without_habits(fitted, synthetic_players):
    models, _ = fitted
    assert memory_of(models[0]) is models[0].rote_
    games, _ = load_player_games([synthetic_players["Alpha Ann"]], player="Alpha Ann", max_games=4)
    bare = MoveRanker(families=("move",), max_positions=10, prior="none").fit(games)
    assert bare.iam_ is None and memory_of(bare) is None
