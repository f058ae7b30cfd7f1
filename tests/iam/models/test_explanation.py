"""iam.models.explanation: the explanation records and their JSON form."""

import json
import math

import chess

from iam.models.explanation import SHOWN_FEATURES, Explanation, FeatureContribution


def test_feature_contribution_writes_nan_values_as_null():
    assert FeatureContribution("completion", "belief", math.nan, -0.5).to_dict() == {
        "feature": "completion", "family": "belief", "value": None, "contribution": -0.5,
    }
    assert FeatureContribution("mobility", "move", 3.0, 0.25).to_dict()["value"] == 3.0


def test_explanation_to_dict_is_json_with_the_move_in_uci():
    features = (FeatureContribution("a", "move", 1.0, 0.75), FeatureContribution("b", "shape", math.nan, -0.25))
    explanation = Explanation(
        chess.Move.from_uci("g1f3"), "Nf3", 0.4, sources=({"kind": "rote", "games": 4},), chunk_sources=2,
        features=features,
    )
    data = json.loads(json.dumps(explanation.to_dict(), allow_nan=False))
    assert data == {
        "move": "g1f3", "san": "Nf3", "belief": 0.4, "sources": [{"kind": "rote", "games": 4}], "chunk_sources": 2,
        "features": [
            {"feature": "a", "family": "move", "value": 1.0, "contribution": 0.75},
            {"feature": "b", "family": "shape", "value": None, "contribution": -0.25},
        ],
    }
    assert explanation.learned == {"a": 0.75, "b": -0.25}


def test_without_features_nothing_was_learned():
    bare = Explanation(chess.Move.from_uci("e2e4"), "e4", 0.1)
    assert bare.learned is None
    assert bare.to_dict()["sources"] == [] and bare.to_dict()["features"] == []


def test_a_printed_feature_reads_in_words_with_its_value_and_what_it_added():
    assert str(FeatureContribution("rote_share", "belief", 0.7916, 4.749)) == (
        "+4.75  his own opening move (how often he chose it), value 0.792"
    )
    assert str(FeatureContribution("capture", "move", math.nan, -0.25)) == "-0.25  a capture, no value reported"


def test_a_printed_explanation_names_the_move_its_belief_its_sources_and_the_strongest_features():
    features = tuple(FeatureContribution("capture", "move", 1.0, 1.0 - i / 10) for i in range(SHOWN_FEATURES + 2))
    explanation = Explanation(
        chess.Move.from_uci("g8f6"), "Nf6", 0.857,
        sources=({"kind": "chunk", "games": 55, "belief": 0.877}, {"kind": "rote", "games": 24, "chosen": 19}),
        chunk_sources=11, features=features,
    )
    lines = str(explanation).splitlines()
    assert lines[:4] == [
        "Nf6: belief 0.857",
        "  opening memory: he chose it in 19 of 24 games",
        "  chunks: 11 propose it; the strongest, seen in 55 of his games, with belief 0.88",
        "  what it added to the move's score:",
    ]
    assert lines[4:] == [
        *(f"    {feature}" for feature in features[:SHOWN_FEATURES]), "    and 2 weaker features",
    ]
    assert repr(explanation) == "Explanation(Nf6, belief=0.857, chunk_sources=11, features=5)"


def test_a_bare_explanation_prints_as_its_move_and_belief():
    assert str(Explanation(chess.Move.from_uci("e2e4"), "e4", 0.125)) == "e4: belief 0.125"
