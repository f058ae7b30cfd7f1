"""A ranker's strongest evidence: ordered by effect (weight times spread), worded by the side it pushes him."""

from __future__ import annotations

from iam.models.words import feature_words
from iam.ranker.strongest import HEADING, WeightedFeature, strongest_evidence, strongest_lines


def test_the_strongest_are_those_of_largest_effect(ranker):
    entries = strongest_evidence(ranker, 6)
    spread = dict(zip(ranker.feature_names_, ranker.scale_.tolist()))
    effects = {name: weight * spread[name] for name, weight in ranker.weights().items()}
    expected = sorted(effects, key=lambda name: -abs(effects[name]))[:6]
    assert [entry.feature for entry in entries] == expected
    assert all(entry.effect == effects[entry.feature] and entry.weight == ranker.weights()[entry.feature]
               for entry in entries)
    assert len(strongest_evidence(ranker)) == min(10, len(effects))


def test_the_words_say_which_way_the_feature_pushes_him():
    drawn = WeightedFeature("left_en_prise", weight=2.0, effect=0.85)
    kept = WeightedFeature("left_en_prise", weight=-2.0, effect=-0.85)
    assert str(drawn) == "drawn to: leaves a piece hanging (+0.85)"
    assert str(kept) == "avoids: leaves a piece hanging (-0.85)"
    assert str(WeightedFeature("check", 0.0, 0.0)) == "indifferent to: a check (+0.00)"
    assert drawn.to_dict() == {
        "feature": "left_en_prise", "words": feature_words("left_en_prise"), "leaning": "drawn to", "effect": 0.85,
        "weight": 2.0,
    }
    assert strongest_lines([drawn, kept]) == [HEADING, f"  {drawn}", f"  {kept}"]
