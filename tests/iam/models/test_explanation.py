"""iam.models.explanation: the explanation records and their JSON form."""

import json
import math

import chess

from iam.models.explanation import Explanation, FeatureContribution


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
