"""Depth-and-ordering modules for the play search, as EvoChess evolved them: a small space of depth rules
(extensions and reductions from facts of the node) and move-order weights (:mod:`~search.chess.modules.space`),
the play search run with one (:mod:`~search.chess.modules.kernels`), and the nodes a module needs to solve a
suite of positions (:mod:`~search.chess.modules.solve`)."""

from search.chess.modules.kernels import ModuleSearch
from search.chess.modules.space import GENES, DepthOrdering, DepthRules, Gene, OrderWeights, PruningRules, bounds

__all__ = ["GENES", "DepthOrdering", "DepthRules", "Gene", "ModuleSearch", "OrderWeights", "PruningRules", "bounds"]
