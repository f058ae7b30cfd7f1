"""The depths the evidence searches at and the engine settings: their values and what the settings object allows."""

from __future__ import annotations

import dataclasses

import pytest

from iam.evidence.settings import DEFAULT_SEARCH_DEPTH, FAST_SEARCH_DEPTH, GLANCE_DEPTH, EngineSettings


def test_the_depths_are_whole_plies_in_order_glance_fast_default():
    """The glance looks least far, the quick prior's depth less far than the default one."""
    assert (GLANCE_DEPTH, FAST_SEARCH_DEPTH, DEFAULT_SEARCH_DEPTH) == (1, 2, 3)
    assert all(isinstance(depth, int) and not isinstance(depth, bool)
               for depth in (GLANCE_DEPTH, FAST_SEARCH_DEPTH, DEFAULT_SEARCH_DEPTH))


def test_engine_settings_default_to_depth_8_without_cache_or_timeout():
    settings = EngineSettings("/usr/bin/stockfish")
    assert (settings.path, settings.depth, settings.cache, settings.timeout) == ("/usr/bin/stockfish", 8, None, None)


def test_engine_settings_are_frozen_values():
    """Equal settings are equal and hash alike (usable as keys); a field cannot be changed in place."""
    first = EngineSettings("sf", depth=12, cache="a.sqlite", timeout=2.5)
    same = EngineSettings("sf", 12, "a.sqlite", 2.5)
    assert first == same and hash(first) == hash(same) and len({first, same}) == 1
    assert first != EngineSettings("sf", depth=11, cache="a.sqlite", timeout=2.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.depth = 3
    deeper = dataclasses.replace(first, depth=20)
    assert deeper.depth == 20 and first.depth == 12 and deeper.cache == "a.sqlite"


def test_the_path_is_required():
    with pytest.raises(TypeError):
        EngineSettings()
