"""The bootstrap over test games on hand-made records with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from iam.measure.bootstrap import (
    GameResamples,
    band_rates,
    interval,
    reliability_bins,
    resample_games,
    resampled_means,
    summary_figures,
)
from iam.measure.evaluation import RECORD_COLUMNS, band_table, summarise


def records(rows) -> pd.DataFrame:
    """Records from (game, top_belief, hit, top3, played_belief, candidates) tuples."""
    data = [
        (
            game, ply, "e2e4", candidates, "e2e4" if candidates else "", top, hit, top3, played, top or 0.0,
            (top or 0.0) ** 2,
        )
        for ply, (game, top, hit, top3, played, candidates) in enumerate(rows)
    ]
    return pd.DataFrame(data, columns=RECORD_COLUMNS)


def coin_records(games: int, per_game: int, rate: float, seed: int) -> pd.DataFrame:
    """Games of ``per_game`` positions, each a hit with probability ``rate``, top belief ``rate``."""
    hits = np.random.default_rng(seed).random(games * per_game) < rate
    game_of = np.repeat(np.arange(games) * 5 + 4, per_game)
    return records([(g, rate, h, h, rate if h else 0.0, 2) for g, h in zip(game_of, hits)])


MIXED = records(
    [
        (4, 0.10, False, False, 0.0, 3),
        (4, 0.20, True, True, 0.2, 3),
        (4, 0.27, True, True, 0.27, 2),
        (9, 0.35, False, True, 0.1, 4),
        (9, 0.45, True, True, 0.45, 2),
        (9, np.nan, False, False, 0.0, 0),
        (14, 0.90, True, True, 0.9, 1),
        (14, 0.60, False, False, 0.0, 2),
        (14, 0.95, True, True, 0.95, 1),
    ]
)


def test_resamples_draw_as_many_games_as_there_are_and_repeat_with_the_seed():
    draws = resample_games([4, 9, 14, 9, 4], resamples=500, seed=3)
    assert draws.games.tolist() == [4, 9, 14]
    assert draws.counts.shape == (500, 3)
    assert (draws.counts.sum(axis=1) == 3).all()
    # each game is drawn once per resample on average
    assert draws.counts.mean(axis=0) == pytest.approx([1, 1, 1], abs=0.1)
    assert (resample_games([4, 9, 14], resamples=500, seed=3).counts == draws.counts).all()
    assert (resample_games([4, 9, 14], resamples=500, seed=4).counts != draws.counts).any()


def test_the_unit_resample_gives_the_evaluation_figures():
    draws = resample_games([4, 9, 14], resamples=10, seed=0).unit()
    figures = summary_figures(MIXED, draws).iloc[0]
    expected = summarise(MIXED)
    for name in ("coverage", "top1", "top3", "ece", "brier", "log_loss"):
        assert figures[name] == pytest.approx(expected[name])
    bands = band_table(MIXED)
    rates = band_rates(MIXED, draws).iloc[0]
    np.testing.assert_allclose(rates.to_numpy(), bands["rate"].to_numpy())


def test_a_game_drawn_twice_counts_twice():
    draws = GameResamples(np.array([4, 9, 14]), np.array([[2, 0, 1]]))
    doubled = pd.concat([MIXED[MIXED["game"] == 4]] * 2 + [MIXED[MIXED["game"] == 14]])
    figures = summary_figures(MIXED, draws).iloc[0]
    expected = summarise(doubled)
    for name in ("coverage", "top1", "top3", "ece", "brier", "log_loss"):
        assert figures[name] == pytest.approx(expected[name])


def test_a_constant_hit_rate_gives_a_zero_width_interval():
    # every game: one hit, one miss -> top-1 is 1/2 in every resample
    rows = [(g, 0.5, hit, hit, 0.5 if hit else 0.0, 2) for g in (4, 9, 14, 19) for hit in (True, False)]
    draws = resample_games([4, 9, 14, 19], resamples=200, seed=1)
    figures = summary_figures(records(rows), draws)
    assert interval(figures["top1"]) == (0.5, 0.5)
    assert interval(figures["coverage"]) == (1.0, 1.0)
    assert interval(figures["ece"]) == pytest.approx((0.0, 0.0))


def test_the_interval_of_a_mean_brackets_it_narrows_with_more_games_and_matches_the_normal_width():
    widths = []
    for games in (40, 400):
        sample = coin_records(games, 1, 0.3, seed=games)
        draws = resample_games(sample["game"], resamples=2000, seed=7)
        low, high = interval(summary_figures(sample, draws)["top1"])
        mean = sample["hit"].mean()
        assert low < mean < high
        # one position per game: the bootstrap interval of a proportion is close to 2 * 1.96 standard errors
        assert high - low == pytest.approx(2 * 1.96 * np.sqrt(mean * (1 - mean) / games), rel=0.15)
        widths.append(high - low)
    assert widths[1] < widths[0] / 2.5


def test_positions_of_one_game_move_together():
    # 20 games of 10 positions, every position of a game hit or missed together: the interval is
    # as wide as for 20 independent positions, not 200
    hits = np.random.default_rng(5).random(20) < 0.5
    rows = [(g * 5 + 4, 0.5, h, h, 0.5 if h else 0.0, 2) for g, h in enumerate(hits) for _ in range(10)]
    clustered = records(rows)
    low, high = interval(summary_figures(clustered, resample_games(clustered["game"], resamples=2000, seed=2))["top1"])
    mean = hits.mean()
    assert high - low == pytest.approx(2 * 1.96 * np.sqrt(mean * (1 - mean) / 20), rel=0.15)


def test_band_rates_only_where_a_resample_reaches_the_band():
    draws = resample_games([4, 9, 14], resamples=300, seed=0)
    rates = band_rates(MIXED, draws)
    # >50% band: only game 14 (2 hits of 3) reaches it -> its rate is 2/3 whenever defined
    assert interval(rates[">50%"]) == pytest.approx((2 / 3, 2 / 3))
    assert rates[">50%"].isna().any()
    # 30-40% and 40-50%: only game 9; one miss, one hit
    assert interval(rates["30-40%"]) == (0.0, 0.0) and interval(rates["40-50%"]) == (1.0, 1.0)
    empty = records([(4, 0.1, False, False, 0.0, 2), (9, 0.2, True, True, 0.2, 2)])
    assert np.isnan(interval(band_rates(empty, resample_games([4, 9], seed=0))[">50%"])).all()


def test_reliability_bins_hold_the_top_predictions():
    unit = resample_games([4, 9, 14], seed=0).unit()
    bins = reliability_bins(MIXED, unit)
    counts = bins["predictions"].iloc[0]
    assert counts.sum() == 8  # every position with a prediction, once
    assert counts[0.9] == 2 and counts[0.6] == 1 and counts[0.2] == 2
    assert bins["mean_belief"].iloc[0][0.9] == pytest.approx(0.925)
    assert bins["rate"].iloc[0][0.9] == 1.0 and bins["rate"].iloc[0][0.6] == 0.0


def test_records_of_games_outside_the_resamples_are_refused():
    with pytest.raises(ValueError, match="not resampled"):
        summary_figures(MIXED, resample_games([4, 9], seed=0))
    with pytest.raises(ValueError):
        resample_games([], seed=0)


def test_resampled_means_weigh_games_by_their_draws_and_skip_undefined_values():
    frame = pd.DataFrame({"game": [4, 4, 9, 14]})
    values = np.array([[1.0, 5.0], [3.0, np.nan], [10.0, 7.0], [20.0, np.nan]])
    draws = GameResamples(np.array([4, 9, 14]), np.array([[1, 1, 1], [2, 0, 1], [0, 3, 0], [0, 0, 3]]))
    means = resampled_means(frame, draws, values)
    # resample 0: all positions; 1: game 4 twice and game 14; 2: game 9 only; 3: game 14 only (column 1 undefined)
    assert means[:, 0] == pytest.approx([34 / 4, (2 * 4 + 20) / 5, 10.0, 20.0])
    assert means[:3, 1] == pytest.approx([6.0, 5.0, 7.0]) and np.isnan(means[3, 1])
    with pytest.raises(ValueError, match="not resampled"):
        resampled_means(pd.DataFrame({"game": [99]}), draws, np.array([1.0]))
