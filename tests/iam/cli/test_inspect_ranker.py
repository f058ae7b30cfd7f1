"""``iam inspect`` on a move ranker: families, weights in words, depth, calibration, opening memory."""

from __future__ import annotations

import json

from iam.cli import main
from iam.measure.predictors import load_predictor
from iam.models.words import feature_words


def test_the_ranker_summary_holds_what_the_model_holds(quick_ranker, capsys):
    assert main(["inspect", str(quick_ranker), "--top", "5", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["ranker"]
    model = load_predictor(quick_ranker)
    assert [entry["family"] for entry in summary["families"]] == list(model.families_) == ["move", "habits"]
    assert summary["search_depth"] == 1 and summary["training_games"] == model.n_games_ == 40
    assert summary["opening_memory"]["positions"] == len(model.iam_.rote_.positions) > 0
    weights, scale = model.weights(), dict(zip(model.feature_names_, model.scale_))
    effects = {name: weight * scale[name] for name, weight in weights.items()}
    expected = sorted(effects, key=lambda name: -abs(effects[name]))[:5]
    assert [entry["feature"] for entry in summary["strongest_evidence"]] == expected
    assert [entry["words"] for entry in summary["strongest_evidence"]] == [feature_words(name) for name in expected]
    assert summary["top_calibration"]["slope"] == model.top_calibration_.slope


def test_the_text_speaks_words(quick_ranker, capsys):
    assert main(["inspect", str(quick_ranker), "--top", "3"]) == 0
    out = capsys.readouterr().out
    model = load_predictor(quick_ranker)
    assert out.startswith(f"move ranker of {model.player_}: trained on 40 games")
    assert "search depth 1 plies" in out and "opening memory: " in out and "his own habits" in out
    assert "_" not in out.split("strongest evidence")[1].split("\n\n")[0]  # no column names in the weights
    repertoire = out.split("his repertoire (from his opening memory):\n")[1].splitlines()
    assert repertoire[0].startswith("  as White: 1. ")  # Botvinnik's first 40 games: most as White, from the start
    assert any(line.startswith("  as Black after 1. ") for line in repertoire)
