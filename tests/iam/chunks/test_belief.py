"""iam.chunks.belief: the source notes' rule belief by hand, normalisation, the learned belief and its file form."""

import numpy as np
import pytest

from iam.chunks.belief import LearnedBelief, RuleWeights, learn_belief, normalise, rule_beliefs
from iam.chunks.features import FEATURES, RULE_FEATURES


def _quantities(**columns):
    """Rows of RULE_FEATURES quantities; unnamed columns are 0."""
    length = len(next(iter(columns.values())))
    return np.column_stack([np.asarray(columns.get(name, [0.0] * length), dtype=float) for name in RULE_FEATURES])


def test_rule_contributions_by_hand():
    q = _quantities(frequency=[0.2, 0.1], size=[5, 12], major=[1, 0], temporal=[0.5, 1.0], winning=[-0.4, 1.0])
    parts = RuleWeights().contributions(q)
    assert parts["frequency"] == pytest.approx([0.2, 0.1])
    assert parts["large_patterns"] == pytest.approx([0.15 * 3 / 6, 0.15])  # capped at eight pieces
    assert parts["major_pieces"] == pytest.approx([0.05, 0.0])
    assert parts["temporal_similarity"] == pytest.approx([0.05, 0.10])
    assert parts["winning_patterns"] == pytest.approx([-0.02, 0.05])
    belief = RuleWeights().chunk_belief(q)
    assert belief == pytest.approx([0.2 + 0.075 + 0.05 + 0.05 - 0.02, 0.1 + 0.15 + 0.1 + 0.05])


def test_chunk_belief_stays_in_zero_to_one_and_dissolved_patterns_get_zero():
    q = _quantities(
        frequency=[0.95, 0.0, 0.5], size=[8, 2, 4], major=[1, 0, 0], winning=[1, -1, 0], dissolved=[0, 0, 1]
    )
    assert RuleWeights().chunk_belief(q) == pytest.approx([1.0, 0.0, 0.0])
    kept = RuleWeights(eliminate_dissolved=False).chunk_belief(q)
    assert kept[2] == pytest.approx(0.5 + 0.15 * 2 / 6)


def test_rule_weights_round_trip_and_refuse_bad_values():
    weights = RuleWeights(large_patterns=0.3, eliminate_dissolved=False)
    assert RuleWeights.from_dict(weights.to_dict()) == weights
    assert RuleWeights.from_dict({}) == RuleWeights()
    for bad, words in [
        ({"nonsense": 1.0}, "unknown"),
        ({"major_pieces": "0.1"}, "must be a number"),
        ({"major_pieces": float("nan")}, "finite"),
        ({"major_pieces": 1e7}, "beyond"),
        ({"major_pieces": True}, "must be a number"),
        ({"eliminate_dissolved": 1}, "true or false"),
    ]:
        with pytest.raises(ValueError, match=words):
            RuleWeights.from_dict(bad)
    with pytest.raises(ValueError, match="object"):
        RuleWeights.from_dict([])


def test_normalise_clips_and_scales_down_only_past_one():
    assert normalise(np.array([0.2, 0.3])) == pytest.approx([0.2, 0.3])
    assert normalise(np.array([0.6, 0.9, 1.5])) == pytest.approx([0.6 / 2.5, 0.9 / 2.5, 1.0 / 2.5])
    assert normalise(np.array([-1.0, np.nan, 0.5])) == pytest.approx([0.0, 0.0, 0.5])


def test_rule_beliefs_combine_chunks_and_rote_memory_by_noisy_or():
    rows = np.zeros((3, len(FEATURES)))
    rows[:, FEATURES.index("iam_score")] = [0.5, 0.0, 0.2]
    rows[:, FEATURES.index("rote_share")] = [0.5, 0.3, 0.0]
    assert rule_beliefs(rows) == pytest.approx(np.array([0.75, 0.3, 0.2]) / 1.25)


def _belief(coef, intercept=0.0, calibration=((0.0, 1.0), (0.0, 1.0))):
    n = len(FEATURES)
    return LearnedBelief(
        FEATURES, np.zeros(n), np.ones(n), np.asarray(coef, dtype=float), intercept,
        np.asarray(calibration[0], dtype=float), np.asarray(calibration[1], dtype=float),
    )


def test_learned_belief_raw_is_the_logistic_of_the_standardised_score():
    coef = np.zeros(len(FEATURES))
    coef[0] = 2.0
    belief = _belief(coef, intercept=-1.0)
    rows = np.zeros((2, len(FEATURES)))
    rows[:, 0] = [0.0, 1.0]
    assert belief.raw(rows) == pytest.approx([1 / (1 + np.exp(1.0)), 1 / (1 + np.exp(-1.0))])
    assert belief.contributions(rows[1])[FEATURES[0]] == pytest.approx(2.0)
    # Identity calibration: beliefs are the raw values scaled to sum at most 1.
    raw = belief.raw(rows)
    assert belief.beliefs(rows) == pytest.approx(raw / raw.sum())
    assert belief.beliefs(np.zeros((0, len(FEATURES)))).shape == (0,)


def test_learned_belief_calibration_maps_the_normalised_values():
    belief = _belief(np.zeros(len(FEATURES)), calibration=((0.0, 0.5, 1.0), (0.0, 0.1, 0.2)))
    rows = np.zeros((2, len(FEATURES)))  # raw 0.5 each: normalised 0.5 each, calibrated 0.1
    assert belief.beliefs(rows) == pytest.approx([0.1, 0.1])


def test_learned_belief_round_trips_and_refuses_damaged_files():
    belief = _belief(np.linspace(-1, 1, len(FEATURES)), intercept=0.25)
    data = belief.to_dict()
    again = LearnedBelief.from_dict(data)
    rows = np.random.default_rng(0).normal(size=(4, len(FEATURES)))
    assert again.beliefs(rows) == pytest.approx(belief.beliefs(rows))
    broken = [
        ({**data, "features": ["x"]}, "differ"),
        ({**data, "coef": data["coef"][:-1]}, "one value per feature"),
        ({**data, "scale": [0.0] * len(FEATURES)}, "scales must be at least"),
        ({**data, "mean": "0"}, "list of numbers"),
        ({**data, "intercept": float("inf")}, "finite"),
        ({**data, "calibration": {"x": [0.0, 1.0], "y": [0.0]}}, "equal, increasing"),
        ({**data, "calibration": {"x": [1.0, 0.0], "y": [0.0, 1.0]}}, "equal, increasing"),
        ({**data, "calibration": {"x": [0.0, 1.0], "y": [0.0, 1.5]}}, r"\[0, 1\]"),
    ]
    for bad, words in broken:
        with pytest.raises(ValueError, match=words):
            LearnedBelief.from_dict(bad)


def _training_rows(seed=0, positions=200, candidates=4):
    """Positions whose played candidate has the highest 'completion' feature most of the time."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(positions * candidates, len(FEATURES)))
    position = np.repeat(np.arange(positions), candidates)
    game = position // 10
    signal = rows[:, FEATURES.index("completion")] + rng.normal(scale=0.5, size=len(rows))
    played = np.zeros(len(rows), dtype=bool)
    for p in range(positions):
        block = slice(p * candidates, (p + 1) * candidates)
        played[p * candidates + int(np.argmax(signal[block]))] = True
    return rows, played, position, game


def test_learn_belief_finds_the_informative_feature_and_calibrates():
    rows, played, position, game = _training_rows()
    belief = learn_belief(rows, played, position, game)
    weights = dict(zip(FEATURES, belief.coef))
    assert weights["completion"] > 1.0
    assert max(abs(w) for name, w in weights.items() if name != "completion") < 0.5 * weights["completion"]
    assert np.all(np.diff(belief.calibration_x) >= 0)
    assert np.all((belief.calibration_y >= 0) & (belief.calibration_y <= 1))
    # The played candidate gets the highest belief in most positions (well above chance, 1 in 4).
    hits = sum(
        int(np.argmax(belief.beliefs(rows[position == p])) == np.flatnonzero(played[position == p])[0])
        for p in range(200)
    )
    assert hits > 120
    assert learn_belief(rows, played, position, game).to_dict() == belief.to_dict()  # deterministic


def test_learn_belief_needs_contrast():
    rows, played, position, game = _training_rows(positions=5)
    with pytest.raises(ValueError, match="no contrast"):
        learn_belief(rows, np.ones(len(rows), dtype=bool), position, game)
    with pytest.raises(ValueError, match="no contrast"):
        learn_belief(rows, np.zeros(len(rows), dtype=bool), position, game)


def test_learn_belief_on_a_single_game_still_fits():
    rows, played, position, _ = _training_rows(positions=30)
    belief = learn_belief(rows, played, position, np.zeros(len(rows), dtype=int))
    assert len(belief.calibration_x) >= 2 and dict(zip(FEATURES, belief.coef))["completion"] > 0
