"""Zobrist keys: a position's key is the XOR of one random 64-bit number per feature
(a piece on a square, the side to move), so keys of small games are cheap and
collisions rare. Chess uses python-chess's polyglot keys instead (the same idea)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["ZobristKeys"]


class ZobristKeys:
    """``n_features`` random 64-bit numbers drawn from an explicit ``seed``."""

    __slots__ = ("_table",)

    def __init__(self, n_features: int, *, seed: int = 0) -> None:
        if n_features < 1:
            raise ValueError(f"need at least one feature, got {n_features}")
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, 2**63, size=n_features, dtype=np.int64, endpoint=False)
        self._table = tuple(int(x) * 2 + 1 for x in draws)  # odd: never zero

    def __len__(self) -> int:
        return len(self._table)

    def key(self, features: Iterable[int]) -> int:
        """The XOR of the numbers of the present features (indices into the table)."""
        result = 0
        for index in features:
            result ^= self._table[index]
        return result
