"""The glance family: the engine's depth-1 scores beside its deep ones."""

from __future__ import annotations

import shutil

import chess
import numpy as np
import pytest

from iam.engines.analysis import EngineAnalyser
from iam.evidence.evidence import Evidence
from iam.evidence.registry import ENGINE_FAMILIES, FAMILIES, family_columns, with_engine, without_engine
from iam.evidence.scorefeatures import score_features
from iam.evidence.settings import GLANCE_DEPTH, EngineSettings
from iam.priors.positions import position_of

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def test_engine_families_are_added_and_removed_together_in_canonical_order():
    assert with_engine(("habits", "move")) == ("move", "engine", "glance", "habits")
    assert with_engine(("move", "glance")) == ("move", "engine", "glance")
    assert without_engine(("population", "glance", "engine", "search")) == ("search", "population")
    assert set(ENGINE_FAMILIES) < set(FAMILIES)
    assert family_columns("glance")[0].startswith("glance_") and len(family_columns("glance")) == len(
        family_columns("engine")
    )


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish is not installed")
def test_the_glance_family_reads_the_engine_at_depth_one_from_the_same_cache(tmp_path):
    # Black's queen on d5 is guarded by the e6 pawn: taking it costs White a rook for a queen.
    board = chess.Board("4k3/8/4p3/3q4/8/8/8/3RK2R w K - 0 1")
    position = position_of(board)
    cache = str(tmp_path / "cache.sqlite")
    evidence = Evidence(families=("engine", "glance"), engine=EngineSettings(STOCKFISH, depth=6, cache=cache))
    try:
        found = evidence.features(position)
    finally:
        evidence.close()
    with EngineAnalyser(STOCKFISH, depth=GLANCE_DEPTH, cache=cache) as analyser:
        shallow = analyser.analyse(board).scores
        assert analyser._engines == [None]  # served from the cache: the family stored it where the engine's go
    expected = score_features(shallow, position.moves, "glance")
    assert set(found) == set(family_columns("engine")) | set(family_columns("glance"))
    for name, column in expected.items():
        np.testing.assert_array_equal(found[name], column)
    with EngineAnalyser(STOCKFISH, depth=6, cache=cache) as analyser:
        deep = score_features(analyser.analyse(board).scores, position.moves, "engine")
    for name, column in deep.items():
        np.testing.assert_array_equal(found[name], column)
