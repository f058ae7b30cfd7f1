"""From a player's games to the ranker's training table, with out-of-fold habits.

The habit features of a training position must come from an IAM model (and move
pattern counts) that never saw that position's game: the training games are dealt
into folds (:func:`deal_folds`) and each fold's positions
are described by an IAM model and pattern counts of the other folds. The other families do not depend on the player's
games (the population book holds other masters only) and are computed directly.
Feature rows are computed where a :class:`~iam.runtime.Runtime` says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from iam.chunks.model import OpponentModel
from iam.evidence.evidence import Evidence
from iam.games.pgn import PlayerGame
from iam.priors.logit import MoveTable
from iam.priors.patterns import PatternCounts, count_patterns
from iam.priors.positions import PlayerPosition, player_positions
from iam.runtime import Runtime, map_in_order

__all__ = ["deal_folds", "fit_habits", "move_table", "out_of_fold_evidence", "stack_table"]


def deal_folds(game_indices: Iterable[int], folds: int) -> dict[int, int]:
    """Each game's fold: the games in the order of their index, dealt in turn into ``min(folds, games)`` folds.

    The one rule by which the ranker holds games out: the habit features deal the training games,
    the calibration the games its positions come from. A game's fold depends on the indices alone,
    not on the order the games arrive in.
    """
    games = sorted(set(game_indices))
    folds = min(folds, len(games))
    return {game: number % folds for number, game in enumerate(games)}


def out_of_fold_evidence(
    games: Sequence[PlayerGame],
    positions: Sequence[PlayerPosition],
    evidence: Evidence,
    *,
    folds: int,
    iam_params: dict,
    runtime: Runtime = Runtime(),
) -> list[tuple[Evidence, list[PlayerPosition]]]:
    """Pairs (evidence, its positions): each fold's positions with an IAM model and pattern counts without that fold.

    The folds' IAM models are fitted where ``runtime`` says (each fit is seeded: the same models wherever they run).
    """
    if "habits" not in evidence.families or len(games) < 2:
        return [(replace(evidence, sources=replace(evidence.sources, iam=None, own_patterns=None)), list(positions))]
    fold_of = deal_folds((game.index for game in games), folds)
    folds = max(fold_of.values()) + 1
    fold_patterns = [count_patterns(game for game in games if fold_of[game.index] == fold) for fold in range(folds)]
    all_patterns = sum(fold_patterns, PatternCounts())
    positions_of: dict[int, list[PlayerPosition]] = {fold: [] for fold in range(folds)}
    for position in positions:
        positions_of[fold_of[position.game]].append(position)
    held_out = [fold for fold in range(folds) if positions_of[fold]]
    fits = [(iam_params, [game for game in games if fold_of[game.index] != fold]) for fold in held_out]
    pairs = []
    for fold, model in zip(held_out, map_in_order(fit_habits, fits, runtime), strict=True):
        sources = replace(evidence.sources, iam=model, own_patterns=all_patterns - fold_patterns[fold])
        pairs.append((replace(evidence, sources=sources), positions_of[fold]))
    return pairs


def fit_habits(iam_params: dict, games: list[PlayerGame]) -> OpponentModel | None:
    """The IAM model of ``games`` with ``iam_params``, or None when those games cannot be fitted (no move of his)."""
    try:
        return OpponentModel(**iam_params).fit(games)
    except ValueError:
        return None


def _rows(evidence: Evidence, positions: list[PlayerPosition]) -> list[np.ndarray]:
    try:
        return evidence.matrices(positions)
    finally:
        evidence.close()


def stack_table(matrices: Sequence[np.ndarray], positions: Sequence[PlayerPosition]) -> MoveTable:
    """A :class:`MoveTable` from per-position matrices (positions without legal moves dropped)."""
    keep = [i for i, matrix in enumerate(matrices) if len(matrix) and positions[i].played >= 0]
    sizes = np.array([len(matrices[i]) for i in keep], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    played = starts[:-1] + np.array([positions[i].played for i in keep], dtype=np.int64)
    width = matrices[0].shape[1] if len(matrices) else 0
    features = np.concatenate([matrices[i] for i in keep]) if keep else np.zeros((0, width))
    return MoveTable(features=features, starts=starts, played=played)


def move_table(
    games: Sequence[PlayerGame],
    evidence: Evidence,
    *,
    max_positions: int | None,
    folds: int = 5,
    iam_params: dict | None = None,
    random_state: int = 0,
    runtime: Runtime = Runtime(),
    progress: Callable | None = None,
) -> tuple[MoveTable, list[PlayerPosition]]:
    """The training table of ``games`` (a seeded sample of ``max_positions`` positions) and its positions.

    The rows are computed where ``runtime`` says, in pieces: the table is the same whichever runs them.
    """
    positions = player_positions(games, sample=max_positions, random_state=random_state)
    pairs = out_of_fold_evidence(games, positions, evidence, folds=folds, iam_params=iam_params or {}, runtime=runtime)
    tasks: list[tuple[Evidence, list[PlayerPosition]]] = []
    pieces = runtime.workers * 4
    for fold_evidence, mine in pairs:
        size = max(1, -(-len(mine) // pieces))
        tasks.extend((fold_evidence, mine[start : start + size]) for start in range(0, len(mine), size))
    finished = map_in_order(_rows, tasks, runtime)
    if progress is not None:
        finished = progress(finished, total=len(tasks))
    matrices = [matrix for chunk in finished for matrix in chunk]
    ordered = [position for _, chunk in tasks for position in chunk]
    return stack_table(matrices, ordered), ordered
