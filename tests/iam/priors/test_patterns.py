"""Move patterns: keys from the mover's side, counts against python-chess, smoothed rates, lift, out-of-fold counts."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.evidence.evidence import Evidence, EvidenceSources
from iam.measure.evaluation import first_training_games
from iam.priors.patterns import (
    OWN_SMOOTHING,
    PATTERN_CELLS,
    MovePatterns,
    PatternCounts,
    count_patterns,
    pattern_keys,
    pattern_lift,
    population_rates,
)
from iam.priors.positions import player_positions, position_of
from iam.ranker.training import out_of_fold_evidence


def _key(fen: str, uci: str) -> int:
    return int(pattern_keys(chess.Board(fen), [chess.Move.from_uci(uci)])[0])


def test_a_black_move_has_the_key_of_its_white_mirror():
    white = _key("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4", "f1b5")
    black = _key("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4", "f8b4")
    assert white == black
    assert white != _key("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4", "f1c4")


def test_the_phase_follows_the_move_counter_and_the_material():
    opening = _key("4k3/8/8/8/8/8/8/R3K3 w - - 0 5", "a1a7")  # ply 8
    endgame = _key("4k3/8/8/8/8/8/8/R3K3 w - - 0 40", "a1a7")  # ply 78, one rook: 2 units
    middlegame = _key("rn1qk2r/8/8/8/8/8/8/RN1QK2R w - - 0 40", "a1a7")  # 2 x (1 + 4 + 4) = 18 units
    phase = lambda key: key // (6 * 64 * 64)  # noqa: E731
    assert [phase(opening), phase(middlegame), phase(endgame)] == [0, 1, 2]


def test_counts_match_python_chess_position_by_position(botvinnik_games):
    games = first_training_games(botvinnik_games, 3)
    counts = count_patterns(games)
    positions = player_positions(games)
    assert counts.positions == len(positions)
    assert int(counts.legal.sum()) == sum(position.board.legal_moves.count() for position in positions)
    played = np.zeros(PATTERN_CELLS, dtype=np.int64)
    for position in positions:
        played[pattern_keys(position.board, [position.played_move])[0]] += 1
    assert np.array_equal(counts.played, played)
    assert np.all(counts.played <= counts.legal)


def test_counts_survive_their_file_form_and_bad_counts_are_refused(botvinnik_games):
    counts = count_patterns(first_training_games(botvinnik_games, 2))
    again = PatternCounts.from_dict(counts.to_dict())
    assert np.array_equal(again.played, counts.played) and np.array_equal(again.legal, counts.legal)
    with pytest.raises(ValueError, match="between 0 and its legal count"):
        PatternCounts.from_dict({"cells": [5], "played": [3], "legal": [2]})
    with pytest.raises(ValueError, match="distinct indices"):
        PatternCounts.from_dict({"cells": [PATTERN_CELLS], "played": [0], "legal": [1]})


def test_rates_are_smoothed_towards_the_mean_of_the_piece_and_phase():
    counts = PatternCounts()
    counts.played[7], counts.legal[7] = 1000, 1000  # always chosen when legal, often legal
    counts.legal[8] = 1000  # never chosen
    rates = population_rates(counts)
    base = 1001 / 2001
    assert rates[7] == pytest.approx((1000 + 5 * base) / 1005)
    assert rates[8] == pytest.approx(5 * base / 1005)
    assert rates[9] == pytest.approx(base)  # never seen: the mean rate of its group
    assert np.all(rates > 0)


def test_lift_is_zero_without_evidence_and_follows_the_players_own_rate():
    population = np.log(np.full(PATTERN_CELLS, 0.1))
    own = PatternCounts()
    own.played[3], own.legal[3] = 40, 50  # chosen 80% of the time, the population 10%
    own.legal[4] = 50  # never chosen
    lift = pattern_lift(own, population)
    assert lift[3] == pytest.approx(np.log((40 + OWN_SMOOTHING * 0.1) / (50 + OWN_SMOOTHING)) - np.log(0.1))
    assert lift[3] > 1.5 and lift[4] < -1.0
    assert lift[5] == pytest.approx(0.0)


def test_a_master_is_left_out_of_the_population_patterns():
    one, two = PatternCounts(), PatternCounts()
    one.legal[1], two.legal[2] = 3, 4
    patterns = MovePatterns({"Botvinnik, Mikhail": one, "Smyslov, Vassily": two})
    kept = patterns.without("Botvinnik")
    assert list(kept.masters) == ["Smyslov, Vassily"]
    assert kept.pooled.legal[1] == 0 and patterns.pooled.legal[1] == 3


def test_training_positions_see_pattern_counts_without_their_own_game(botvinnik_games):
    games = first_training_games(botvinnik_games, 10)
    positions = player_positions(games, sample=40, random_state=0)
    pairs = out_of_fold_evidence(games, positions, Evidence(families=("habits",)), folds=5, iam_params={})
    fold_of = {game.index: number % 5 for number, game in enumerate(games)}
    for evidence, mine in pairs:
        fold = fold_of[mine[0].game]
        expected = count_patterns([game for game in games if fold_of[game.index] != fold])
        assert np.array_equal(evidence.sources.own_patterns.played, expected.played)
        assert np.array_equal(evidence.sources.own_patterns.legal, expected.legal)


def test_evidence_gives_the_population_rate_and_the_players_lift_by_name(botvinnik_games):
    games = first_training_games(botvinnik_games, 6)
    own = count_patterns(games)
    population = MovePatterns({"others": count_patterns(first_training_games(botvinnik_games, 20)[6:])})
    sources = EvidenceSources(patterns=population, own_patterns=own)
    evidence = Evidence(families=("habits", "population"), sources=sources)
    position = position_of(chess.Board())
    found = evidence.features(position)
    keys = pattern_keys(position.board, position.moves)
    assert np.allclose(found["pattern_rate"], population.log_rates[keys])
    assert np.allclose(found["pattern_lift"], pattern_lift(own, population.log_rates)[keys])
    assert found["pattern_lift"].any()
