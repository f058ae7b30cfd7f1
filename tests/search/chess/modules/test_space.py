"""search.chess.modules.space: the module space's default is the play search's rules; vectors round and clip."""

import numpy as np
import pytest

from search.chess import play
from search.chess.modules.space import GENES, DepthOrdering, bounds


def test_the_default_module_holds_the_play_search_constants():
    module, order = DepthOrdering.default().depth, DepthOrdering.default().order
    assert (module.null_from, module.lmr_from, module.lmr_after) == (play._NULL_FROM, play._LMR_FROM, play._LMR_AFTER)
    assert (module.lmr_deep_after, module.lmr_deep_depth) == (play._LMR_DEEP_AFTER, play._LMR_DEEP_DEPTH)
    assert (module.futility_depth, module.futility_margin) == (play._FUTILE_DEPTH, play._FUTILITY_MARGIN)
    assert (module.check_extension, module.null_reduction, module.null_deep_depth) == (1, 2, 7)
    assert (order.history_power, order.attacker_weight, order.killers, order.bad_captures_late) == (2, 1, 2, 0)
    pruning = DepthOrdering.default().pruning
    assert (pruning.static_null_depth, pruning.late_prune_depth, pruning.no_hint_reduction) == (0, 0, 0)


def test_every_default_lies_within_its_bounds_and_the_array_follows_the_genes():
    low, high = bounds()
    default = DepthOrdering.default()
    assert np.all(low <= default.vector()) and np.all(default.vector() <= high)
    assert default.array().dtype == np.int64
    assert default.array().tolist() == [gene.default for gene in GENES]
    assert list(default.as_dict()) == [gene.name for gene in GENES]


def test_a_vector_is_rounded_and_clipped_to_the_bounds():
    low, high = bounds()
    assert DepthOrdering.from_vector(low - 5) == DepthOrdering.from_dict({g.name: g.low for g in GENES})
    assert DepthOrdering.from_vector(high + 5) == DepthOrdering.from_dict({g.name: g.high for g in GENES})
    vector = DepthOrdering.default().vector()
    vector[9] = 212.6  # futility margin
    assert DepthOrdering.from_vector(vector).depth.futility_margin == 213


def test_a_value_out_of_bounds_or_a_short_vector_is_refused():
    with pytest.raises(ValueError, match="lmr_after must be within 1..12, got 0"):
        DepthOrdering.from_dict({**DepthOrdering.default().as_dict(), "lmr_after": 0})
    with pytest.raises(ValueError, match="19 numbers"):
        DepthOrdering.from_vector([1.0, 2.0])
    with pytest.raises(ValueError, match="a module names the genes"):
        DepthOrdering.from_dict({"lmr_after": 3})
