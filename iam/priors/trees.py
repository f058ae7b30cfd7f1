"""Residual trees: boosted regression trees added to the ranker's linear score.

A linear score weighs each piece of evidence the same in every position; a master
does not (a search's verdict counts for more in a quiet position than in a wild one,
a book move for less once the search disagrees). Regression trees, boosted on what
the linear conditional logit leaves unexplained (its scores are their starting point,
the softmax over each position's legal moves their loss), learn such interactions.
They are fitted on the population's pooled positions, where there are enough of them
(:mod:`iam.ranker.build_prior`; fitted on one player's 2,000 positions they gained
little on development games), and a player's ranker adds them to his own linear score.

Fitting uses LightGBM (installed with the ``prior`` extra: only rebuilding the prior
needs it); the fitted trees are plain arrays kept in JSON and scored with numpy, so
predicting needs nothing beyond the toolkit's own dependencies.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import numpy as np

from iam.priors.logit import MoveTable, position_rows, softmax_by_position, take_positions

__all__ = ["MAX_TREE_SCORE", "ResidualTrees", "RoundChoice", "TreeSettings", "fit_residual_trees"]

_ROWS_PER_CHUNK = 4096
_MAX_NODES = 10**6
MAX_TREE_SCORE = 1e6
"""Largest sum of the leaf values' magnitudes: a bound on any row's score (fitted trees sum to below 100)."""


@dataclass(frozen=True)
class RoundChoice:
    """How many rounds the trees are boosted for: the number of lowest log loss on held-out games."""

    limit: int = 1500
    """Most rounds tried."""
    validation_share: float = 0.2
    """Share of the games held out to choose the number of rounds."""
    step: int = 25
    """The numbers of rounds tried are the multiples of this (from zero)."""


@dataclass(frozen=True)
class TreeSettings:
    """How the residual trees are boosted (chosen on development games of two masters)."""

    learning_rate: float = 0.02
    leaves: int = 15
    min_rows_in_leaf: int = 200
    feature_fraction: float = 0.8
    row_fraction: float = 0.8
    l2: float = 10.0
    rounds: RoundChoice = RoundChoice()
    random_state: int = 0
    threads: int = 2


@dataclass(frozen=True, eq=False)
class ResidualTrees:
    """Binary trees over named feature columns, as flat node arrays.

    Node ``i`` splits on column ``feature[i]`` (``x <= threshold[i]`` goes to
    ``left[i]``, else ``right[i]``), or is a leaf (``feature[i] == -1``) worth
    ``value[i]``. A row's score is the sum, over the trees (``roots``), of the leaf it
    reaches.
    """

    columns: tuple[str, ...]
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResidualTrees) and self.to_dict() == other.to_dict()

    @property
    def trees(self) -> int:
        return len(self.roots)

    def score(self, features: np.ndarray) -> np.ndarray:
        """The trees' summed score of each row of ``features`` (columns as in :attr:`columns`)."""
        features = np.asarray(features, dtype=np.float64)
        if features.ndim != 2 or features.shape[1] != len(self.columns):
            raise ValueError(
                f"residual trees score rows of {len(self.columns)} columns, not an array of shape {features.shape}"
            )
        total = np.zeros(len(features))
        if not self.trees:
            return total
        column, left, right = self._steps
        width = features.shape[1]
        for start in range(0, len(features), _ROWS_PER_CHUNK):
            chunk = features[start : start + _ROWS_PER_CHUNK]
            flat = np.ascontiguousarray(chunk).ravel()  # row r's column c at r * width + c
            node = np.broadcast_to(self.roots.astype(np.int32), (len(chunk), self.trees)).copy()
            line = (np.arange(len(chunk), dtype=np.int32) * width)[:, None]
            for _ in range(self.depth):
                goes_left = flat[line + column[node]] <= self.threshold[node]
                node = np.where(goes_left, left[node], right[node])
            total[start : start + len(chunk)] = self.value[node].sum(axis=1)
        return total

    @functools.cached_property
    def _steps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per node: the column it reads (0 at a leaf) and where a row goes, left or right (a leaf: itself)."""
        leaf = self.feature < 0
        itself = np.arange(len(self.feature))
        column = np.where(leaf, 0, self.feature).astype(np.int32)
        return (column, np.where(leaf, itself, self.left).astype(np.int32),
                np.where(leaf, itself, self.right).astype(np.int32))

    def to_dict(self) -> dict:
        return {
            "columns": list(self.columns),
            "depth": self.depth,
            "roots": self.roots.tolist(),
            "nodes": {
                "feature": self.feature.tolist(),
                "threshold": self.threshold.tolist(),
                "left": self.left.tolist(),
                "right": self.right.tolist(),
                "value": self.value.tolist(),
            },
        }

    @classmethod
    def from_dict(cls, data: dict) -> ResidualTrees:
        """Trees from :meth:`to_dict`'s content; ValueError unless every node and link is sound."""
        columns = tuple(str(name) for name in data["columns"])
        nodes = data["nodes"]
        feature = np.array(nodes["feature"], dtype=np.int64)
        threshold = np.array(nodes["threshold"], dtype=np.float64)
        left = np.array(nodes["left"], dtype=np.int64)
        right = np.array(nodes["right"], dtype=np.int64)
        value = np.array(nodes["value"], dtype=np.float64)
        roots = np.array(data["roots"], dtype=np.int64)
        depth = int(data["depth"])
        count = len(feature)
        if (
            count > _MAX_NODES
            or any(len(a) != count for a in (threshold, left, right, value))
            or feature.ndim != 1
            or roots.ndim != 1
        ):
            raise ValueError("its residual trees' node arrays must be lists of one length")
        if not (np.all(np.isfinite(threshold)) and np.all(np.isfinite(value))):
            raise ValueError("its residual trees' thresholds and values must be finite")
        with np.errstate(over="ignore"):
            leaf_total = float(np.abs(value[feature < 0]).sum())
        if leaf_total > MAX_TREE_SCORE:
            raise ValueError(
                f"its residual trees' leaf values sum to more than {MAX_TREE_SCORE:g} in size (scores would overflow)"
            )
        inner = feature >= 0
        if np.any(feature < -1) or np.any(feature >= len(columns)):
            raise ValueError("its residual trees split on columns they do not name")
        links = np.concatenate([left[inner], right[inner], roots])
        if np.any(links < 0) or np.any(links >= count) or not 0 <= depth <= 64:
            raise ValueError("its residual trees link to nodes that do not exist")
        trees = cls(columns, feature, threshold, left, right, value, roots, depth)
        trees._check_depth()
        return trees

    def _check_depth(self) -> None:
        """ValueError unless every path from a root reaches a leaf within :attr:`depth` steps."""
        node = self.roots.copy()
        for _ in range(self.depth):
            inner = self.feature[node] >= 0
            node = np.concatenate([node[~inner], self.left[node[inner]], self.right[node[inner]]])
            if len(node) > len(self.feature) + len(self.roots):
                raise ValueError("its residual trees are not trees")
        if np.any(self.feature[node] >= 0):
            raise ValueError(f"its residual trees are deeper than their stated depth {self.depth}")


def fit_residual_trees(
    table: MoveTable,
    base: np.ndarray,
    columns: tuple[str, ...],
    games: np.ndarray,
    settings: TreeSettings = TreeSettings(),
) -> ResidualTrees:
    """Trees boosted on top of the scores ``base`` of ``table``'s rows, softmax per position.

    ``games`` names each position's game: a seeded share of the games is held out to
    choose the number of rounds (lowest log loss; zero rounds when none helps), and the
    trees are then boosted for that many rounds on all positions.
    """
    # OpenMP's waiting threads sleep instead of spinning: on a busy machine the spinning ones take the cores from
    # the threads doing the boosting (seven to ten times slower at a load of 15 on 2 cores), with the same trees.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import lightgbm
    except ImportError:  # pragma: no cover - the prior extra installs it
        raise RuntimeError("fitting residual trees needs LightGBM: pip install 'iam-toolkit[prior]'") from None
    params = {
        "learning_rate": settings.learning_rate,
        "num_leaves": settings.leaves,
        "min_data_in_leaf": settings.min_rows_in_leaf,
        "feature_fraction": settings.feature_fraction,
        "bagging_fraction": settings.row_fraction,
        "bagging_freq": 1,
        "lambda_l2": settings.l2,
        "seed": settings.random_state,
        "deterministic": True,
        "force_row_wise": True,
        "num_threads": settings.threads,
        "verbose": -1,
    }
    rounds = settings.rounds
    unique = np.unique(games)
    held_games = np.random.default_rng(settings.random_state).permutation(unique)[
        : max(1, int(len(unique) * rounds.validation_share))
    ]
    held = np.isin(games, held_games)
    if held.all():  # one game alone: nothing left to fit on once its positions are held out, so no tree
        return _from_lightgbm({"tree_info": []}, columns)
    fitting, validation = _positions(table, np.flatnonzero(~held)), _positions(table, np.flatnonzero(held))
    booster = _boost(lightgbm, params, fitting, base, rounds.limit)
    rows = validation.rows
    losses = [
        _log_loss(
            base[rows] + (booster.predict(table.features[rows], num_iteration=n, raw_score=True) if n else 0.0),
            validation,
        )
        for n in range(0, rounds.limit + 1, rounds.step)
    ]
    chosen = int(np.argmin(losses)) * rounds.step
    if chosen == 0:
        return _from_lightgbm({"tree_info": []}, columns)
    everything = _positions(table, np.arange(table.positions))
    return _from_lightgbm(_boost(lightgbm, params, everything, base, chosen).dump_model(), columns)


@dataclass(frozen=True)
class _Subset:
    """Some positions of a table (renumbered) and their rows within the whole table."""

    table: MoveTable
    rows: np.ndarray


def _positions(table: MoveTable, chosen: np.ndarray) -> _Subset:
    return _Subset(take_positions(table, chosen), position_rows(table, chosen))


def _boost(lightgbm, params: dict, subset: _Subset, base: np.ndarray, rounds: int):
    """A LightGBM booster whose loss is the log loss of the softmax over each position's moves."""
    label = np.zeros(len(subset.rows))
    label[subset.table.played] = 1.0

    def softmax_loss(scores: np.ndarray, data) -> tuple[np.ndarray, np.ndarray]:
        probs = softmax_by_position(scores, subset.table.starts)
        return probs - label, np.maximum(probs * (1.0 - probs), 1e-6)

    data = lightgbm.Dataset(subset.table.features, label, init_score=base[subset.rows], free_raw_data=False)
    return lightgbm.train({**params, "objective": softmax_loss}, data, num_boost_round=rounds)


def _log_loss(scores: np.ndarray, subset: _Subset) -> float:
    probs = softmax_by_position(scores, subset.table.starts)
    return float(-np.log(np.maximum(probs[subset.table.played], 1e-300)).mean())


def _from_lightgbm(dump: dict, columns: tuple[str, ...]) -> ResidualTrees:
    """Flat node arrays from LightGBM's model dump (numerical ``<=`` splits only)."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []
    deepest = 0

    def add(node: dict, level: int) -> int:
        nonlocal deepest
        index = len(feature)
        for array in (feature, threshold, left, right, value):
            array.append(0)
        if "leaf_value" in node:
            feature[index], value[index] = -1, float(node["leaf_value"])
            deepest = max(deepest, level)
            return index
        if node.get("decision_type") != "<=":
            raise ValueError(f"residual trees take numerical splits only, not {node.get('decision_type')!r}")
        feature[index], threshold[index] = int(node["split_feature"]), float(node["threshold"])
        left[index] = add(node["left_child"], level + 1)
        right[index] = add(node["right_child"], level + 1)
        return index

    for tree in dump["tree_info"]:
        roots.append(add(tree["tree_structure"], 0))
    return ResidualTrees(
        columns=tuple(columns),
        feature=np.array(feature, dtype=np.int64),
        threshold=np.array(threshold, dtype=np.float64),
        left=np.array(left, dtype=np.int64),
        right=np.array(right, dtype=np.int64),
        value=np.array(value, dtype=np.float64),
        roots=np.array(roots, dtype=np.int64),
        depth=deepest,
    )
