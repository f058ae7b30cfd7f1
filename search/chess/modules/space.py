"""The space of depth and ordering modules: a few integers that say how deep a node is searched and in what order.

A module is one value for each :data:`GENES` entry: a depth module (:class:`DepthRules`, with its
pruning rules in :class:`PruningRules`) and an ordering module (:class:`OrderWeights`), as EvoChess
split its individuals. The depth rules extend or reduce the
remaining depth from facts of the node (in check, zero window, depth left, how late a move
comes); the ordering weights rank a node's moves. :meth:`DepthOrdering.default` is the
play search's own rules (:mod:`search.chess.play`), so the search with the default module
is the play search, node for node.

Depth rules:

- ``check_extension``: plies added to a node whose side to move is in check (0 or 1);
- ``null_from``, ``null_reduction``, ``null_deep_depth``: a pass (null move) is tried from
  that depth left, its reply searched ``1 + null_reduction`` plies shallower, one more from
  ``null_deep_depth`` on;
- ``lmr_from``, ``lmr_after``, ``lmr_deep_after``, ``lmr_deep_depth``: late-move reductions
  from that depth left, for quiet moves after the first ``lmr_after`` legal moves (one ply),
  after the first ``lmr_deep_after`` at ``lmr_deep_depth`` or more (two plies);
- ``futility_depth``, ``futility_margin``: futility pruning up to that depth left, with that
  many centipawns a ply (a ``futility_depth`` of 0 turns it off);
- ``static_null_depth``, ``static_null_margin``: a zero-window node not in check, up to that
  depth left, whose evaluation less ``static_null_margin`` a ply is still at least beta returns
  that value unsearched (0 turns it off);
- ``late_prune_depth``, ``late_prune_moves``: at a zero-window node not in check, up to that
  depth left, quiet moves that give no check after the first ``late_prune_moves + depth ** 2``
  legal moves are not searched (0 turns it off);
- ``no_hint_reduction``: a node of at least that depth left (and at least 3) without a table
  move is searched one ply shallower (0 turns it off).

The five pruning genes (:class:`PruningRules`) are off in the play search's module (their
defaults), so that module is still the play search.

Ordering weights (the table's move first, then captures, killers, quiet moves by history):

- ``history_power``: a quiet move that fails high gains ``depth ** history_power`` history;
- ``attacker_weight``: captures are ranked by ``100 * victim - attacker_weight * attacker``
  (pawn 1, knight and bishop 3, rook 5, queen 9; promotions count the piece made);
- ``killers``: how many of the two killer moves of a ply come before the history-ranked moves;
- ``bad_captures_late``: 1 puts captures of a piece worth less than its taker after the killers.

A vector of floats (what evolution mutates) becomes a module by rounding each gene and
clipping it to its bounds (:meth:`DepthOrdering.from_vector`).

>>> module = DepthOrdering.default()
>>> module.depth.lmr_after, module.depth.futility_margin
(3, 150)
>>> DepthOrdering.from_vector(module.vector() + 0.4) == module
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

import numpy as np

__all__ = ["GENES", "DepthOrdering", "DepthRules", "Gene", "OrderWeights", "PruningRules", "bounds"]


@dataclass(frozen=True)
class Gene:
    """One parameter of the space: its name, the play search's value and the bounds it is kept in."""

    name: str
    default: int
    low: int
    high: int


GENES: tuple[Gene, ...] = (
    Gene("check_extension", 1, 0, 1),
    Gene("null_from", 3, 2, 8),
    Gene("null_reduction", 2, 1, 4),
    Gene("null_deep_depth", 7, 3, 12),
    Gene("lmr_from", 3, 2, 8),
    Gene("lmr_after", 3, 1, 12),
    Gene("lmr_deep_after", 12, 2, 30),
    Gene("lmr_deep_depth", 6, 3, 12),
    Gene("futility_depth", 2, 0, 4),
    Gene("futility_margin", 150, 25, 600),
    Gene("static_null_depth", 0, 0, 6),
    Gene("static_null_margin", 120, 25, 400),
    Gene("late_prune_depth", 0, 0, 6),
    Gene("late_prune_moves", 8, 1, 30),
    Gene("no_hint_reduction", 0, 0, 12),
    Gene("history_power", 2, 0, 3),
    Gene("attacker_weight", 1, 0, 150),
    Gene("killers", 2, 0, 2),
    Gene("bad_captures_late", 0, 0, 1),
)
"""The genes in the order of a module's vector (and of the array the compiled search reads)."""
_BY_NAME = {gene.name: gene for gene in GENES}


def _check_genes(values: object) -> None:
    """ValueError for a field out of its gene's bounds."""
    for field in fields(values):  # type: ignore[arg-type]
        gene = _BY_NAME[field.name]
        value = getattr(values, field.name)
        if not gene.low <= value <= gene.high:
            raise ValueError(f"{gene.name} must be within {gene.low}..{gene.high}, got {value}")


@dataclass(frozen=True)
class DepthRules:
    """The depth module: how much deeper or shallower a node is searched (the module docstring)."""

    check_extension: int
    null_from: int
    null_reduction: int
    null_deep_depth: int
    lmr_from: int
    lmr_after: int
    lmr_deep_after: int
    lmr_deep_depth: int
    futility_depth: int
    futility_margin: int

    def __post_init__(self) -> None:
        _check_genes(self)


@dataclass(frozen=True)
class PruningRules:
    """The depth module's pruning rules, each off at a depth of 0 (the module docstring)."""

    static_null_depth: int
    static_null_margin: int
    late_prune_depth: int
    late_prune_moves: int
    no_hint_reduction: int

    def __post_init__(self) -> None:
        _check_genes(self)


@dataclass(frozen=True)
class OrderWeights:
    """The ordering module: how a node's moves are ranked (the module docstring)."""

    history_power: int
    attacker_weight: int
    killers: int
    bad_captures_late: int

    def __post_init__(self) -> None:
        _check_genes(self)


@dataclass(frozen=True)
class DepthOrdering:
    """A depth module and an ordering module: one value per gene of :data:`GENES`."""

    depth: DepthRules
    order: OrderWeights
    pruning: PruningRules

    @classmethod
    def default(cls) -> DepthOrdering:
        """The play search's rules and order."""
        return cls.from_dict({gene.name: gene.default for gene in GENES})

    @classmethod
    def from_dict(cls, genes: Mapping[str, int]) -> DepthOrdering:
        """The module of a value for every gene, by name (ValueError for a missing or unknown name)."""
        if set(genes) != set(_BY_NAME):
            raise ValueError(f"a module names the genes {', '.join(_BY_NAME)}; got {', '.join(genes)}")
        depth = DepthRules(**{f.name: int(genes[f.name]) for f in fields(DepthRules)})
        pruning = PruningRules(**{f.name: int(genes[f.name]) for f in fields(PruningRules)})
        return cls(depth, OrderWeights(**{f.name: int(genes[f.name]) for f in fields(OrderWeights)}), pruning)

    @classmethod
    def from_vector(cls, vector: np.ndarray | list[float]) -> DepthOrdering:
        """The module of a vector of floats: each gene rounded and clipped to its bounds."""
        values = np.asarray(vector, dtype=float)
        if values.shape != (len(GENES),):
            raise ValueError(f"a module's vector has {len(GENES)} numbers, got shape {values.shape}")
        return cls.from_dict({gene.name: int(np.clip(round(float(value)), gene.low, gene.high))
                              for gene, value in zip(GENES, values)})

    def as_dict(self) -> dict[str, int]:
        """The genes by name, in the order of :data:`GENES` (for JSON and tables)."""
        return {**asdict(self.depth), **asdict(self.pruning), **asdict(self.order)}

    def vector(self) -> np.ndarray:
        """The genes as floats, in the order of :data:`GENES`."""
        return np.array(list(self.as_dict().values()), dtype=float)

    def array(self) -> np.ndarray:
        """The genes as the int64 array the compiled search reads."""
        return np.array(list(self.as_dict().values()), dtype=np.int64)


def bounds() -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of every gene, as float vectors."""
    return (np.array([gene.low for gene in GENES], dtype=float), np.array([gene.high for gene in GENES], dtype=float))
