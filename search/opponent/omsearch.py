"""Opponent-model-guided alpha-beta (source note 001: "develop tree along more likely moves").

The plain search assumes the opponent plays the move that is worst for us. When a
model predicts what this opponent actually plays, the search can spend its nodes
where the game is likely to go. At the modelled player's nodes this policy

* searches the predicted moves first, most believed first (after the move ordering's
  own first choice, the transposition table's move, when ``keep_first`` is set; that
  move is then never reduced or pruned, as late-move reductions spare the first move,
  unless ``reduce_first`` allows it: the nominal depth then rises because the main
  line itself is searched shallower);
* extends every move believed at least ``extend_at`` by ``extension`` plies;
* reduces every move believed less than ``reduce_below`` by ``reduction`` plies, but
  only where the predicted moves together hold at least ``confidence`` of the belief
  (where the model is unsure, nothing is reduced, so the search is never blindly
  shallower). With ``reduce_below == extend_at`` every move is either extended or
  reduced; the default reduces only the moves the model gives little chance;
* optionally prunes, under the same confidence condition, every move believed less
  than ``prune_below``: source note 001's "prune the search tree". A reduced move is still
  searched, shallower, so the minimizing side can still choose it; a pruned move is
  not searched at all, which is exact against a player who never plays it and
  unsound against one the model misjudges. Off by default.

At our own nodes nothing changes: the guided search is the plain alpha-beta (same
evaluation, quiescence, ordering and transposition table) with this policy plugged
into :mod:`search.policy`'s hook, so a comparison measures the model alone. A
predictor that predicts nothing leaves every node as the plain search has it.

Predictions cost far more than a node, so they are cached per position (the
cursor's transposition key, together with the predictor's ``context_key`` of the
state when it has one: what besides the position its beliefs depend on) and asked
for only at nodes with at least ``min_depth`` plies still to search; the time spent
predicting is reported.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from search.evaluation import Evaluator
from search.game import Action, Cursor, Game, State
from search.opponent.predictor import MovePredictor, abilities_of, checked_beliefs
from search.ordering import MoveOrderer
from search.probe import DepthProbe
from search.result import Limits, SearchResult
from search.searcher import Searcher
from search.transposition import TranspositionTable

__all__ = [
    "Guidance", "ModelledPlayer", "PredictionStats", "ModelPolicy", "GuidedResult", "guided_searcher", "guided_search",
]


@dataclass(frozen=True)
class Guidance:
    """How predictions change the search at the modelled player's nodes.

    Beliefs are probabilities in [0, 1]; depths are in plies. Invalid settings raise
    ``ValueError`` on construction. The defaults are the settings chosen by
    ``iam experiment guidance-tuning`` (:mod:`experiments.guidance_tuning`) on
    development games, never on test games; its figures are in
    ``docs/results/guided-search.md``.
    """

    extend_at: float = 0.3
    """Moves believed at least this much are *likely* and get extended."""
    extension: int = 1
    """Plies added to a likely move's search."""
    reduce_below: float = 0.10
    """Moves believed less than this get reduced (when the model is confident)."""
    reduction: int = 1
    """Plies taken from a reduced move's search."""
    confidence: float = 0.5
    """Reduce (or prune) only where the predicted moves together hold at least this much belief."""
    prune_below: float = 0.0
    """Moves believed less than this are not searched at all (when the model is confident)."""
    keep_first: bool = True
    """Leave the move ordering's first move (the table's move) in front of the predictions."""
    reduce_first: bool = False
    """Let that first move be reduced like any other (it never is by default)."""
    min_depth: float = 2.0
    """Ask the predictor only at nodes with at least this many plies left to search."""
    cache_size: int = 200_000
    """Predictions kept (the cache is emptied when full)."""

    def __post_init__(self) -> None:
        if not 0.0 < self.extend_at <= 1.0:
            raise ValueError(f"extend_at must be in (0, 1], got {self.extend_at}")
        if not 0.0 <= self.reduce_below <= self.extend_at:
            raise ValueError(f"reduce_below must be in [0, extend_at], got {self.reduce_below}")
        if not 0.0 <= self.prune_below <= self.extend_at:
            raise ValueError(f"prune_below must be in [0, extend_at], got {self.prune_below}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {self.confidence}")
        if self.extension < 0 or self.reduction < 0:
            raise ValueError("extension and reduction are numbers of plies, at least 0")
        if self.min_depth < 1 or self.cache_size < 1:
            raise ValueError("min_depth and cache_size must be at least 1")


@dataclass(frozen=True)
class ModelledPlayer:
    """The player a guided search models: his move predictor, which player he is, and how the predictions guide."""

    predictor: MovePredictor
    player: int
    """His index among the game's players (what :meth:`~search.game.Game.to_move` gives at his nodes)."""
    guidance: Guidance = Guidance()


@dataclass(frozen=True)
class PredictionStats:
    """What the predictor cost during one search."""

    calls: int
    """Positions the predictor was asked about (cache misses)."""
    cache_hits: int
    seconds: float
    """Time spent inside the predictor."""
    guided_nodes: int
    """Nodes of the modelled player where the plan differed from the plain search's
    (another order, or a move extended or reduced)."""


class ModelPolicy:
    """A :class:`~search.policy.SearchPolicy` that follows a move predictor.

    It keeps its prediction cache and counters, so use one policy per search (or
    per game, to reuse predictions across moves).
    """

    def __init__(self, predictor: MovePredictor, *, modelled_player: int, guidance: Guidance = Guidance()) -> None:
        self.predictor = predictor
        self.modelled_player = modelled_player
        self.guidance = guidance
        self._context = abilities_of(predictor).context_key
        self._cache: dict[object, dict[Action, float]] = {}
        self._calls = 0
        self._hits = 0
        self._seconds = 0.0
        self._guided = 0

    def plan(
        self, cursor: Cursor, actions: Sequence[Action], *, ply: int, depth: float
    ) -> Sequence[tuple[Action, int]] | None:
        guidance = self.guidance
        if cursor.to_move() != self.modelled_player or depth < guidance.min_depth:
            return None
        beliefs = self._beliefs(cursor, actions)
        if not beliefs:
            return None
        predicted = sorted(beliefs, key=beliefs.__getitem__, reverse=True)
        kept = actions[0] if guidance.keep_first and actions else None
        if kept is not None:
            predicted = [kept, *(action for action in predicted if action != kept)]
        confident = sum(beliefs.values()) >= guidance.confidence
        chosen = set(predicted)
        order = predicted + [action for action in actions if action not in chosen]
        plan = []
        for action in order:
            belief = beliefs.get(action, 0.0)
            if action == kept and not guidance.reduce_first:
                plan.append((action, max(self._adjustment(belief, confident), 0)))
            elif not (confident and belief < guidance.prune_below):
                plan.append((action, self._adjustment(belief, confident)))
        if not plan:  # everything pruned: keep the most believed move
            most = max(beliefs, key=beliefs.__getitem__)
            plan.append((most, self._adjustment(beliefs[most], confident)))
        if len(plan) < len(order) or any(adjustment for _, adjustment in plan) or order != list(actions):
            self._guided += 1
        return plan

    def _adjustment(self, belief: float, confident: bool) -> int:
        guidance = self.guidance
        if belief >= guidance.extend_at:
            return guidance.extension
        if confident and belief < guidance.reduce_below:
            return -guidance.reduction
        return 0

    def _beliefs(self, cursor: Cursor, actions: Sequence[Action]) -> dict[Action, float]:
        key = cursor.key() if self._context is None else (cursor.key(), self._context(cursor.state))
        cached = self._cache.get(key)
        if cached is not None:
            self._hits += 1
            return cached
        started = time.perf_counter()
        raw = self.predictor.predict_proba(cursor.state)
        self._seconds += time.perf_counter() - started
        self._calls += 1
        beliefs = {action: belief for action, belief in checked_beliefs(raw, actions).items() if belief > 0}
        if len(self._cache) >= self.guidance.cache_size:
            self._cache.clear()
        self._cache[key] = beliefs
        return beliefs

    def stats(self) -> PredictionStats:
        return PredictionStats(self._calls, self._hits, self._seconds, self._guided)


@dataclass(frozen=True)
class GuidedResult:
    """A guided search's result and what its predictions cost."""

    result: SearchResult
    predictions: PredictionStats


def guided_searcher(
    game: Game,
    *,
    modelled: ModelledPlayer,
    evaluator: Evaluator,
    ordering: MoveOrderer | None = None,
    table: TranspositionTable | None = None,
    quiescence: bool = False,
    probe: DepthProbe | None = None,
) -> Searcher:
    """The guided search: a :class:`Searcher` whose policy is a :class:`ModelPolicy` of ``modelled``.

    The policy (``searcher.policy``) keeps its prediction cache and counts across the
    searches of this Searcher; ``searcher.policy.stats()`` reports them.
    """
    if modelled.player not in range(game.capabilities.players):
        raise ValueError(f"modelled_player must be a player of the game, got {modelled.player}")
    policy = ModelPolicy(modelled.predictor, modelled_player=modelled.player, guidance=modelled.guidance)
    return Searcher(
        game, evaluator=evaluator, ordering=ordering, table=table, quiescence=quiescence,
        policy=policy, probe=probe,
    )


def guided_search(
    game: Game,
    state: State,
    *,
    modelled: ModelledPlayer,
    evaluator: Evaluator,
    limits: Limits,
    ordering: MoveOrderer | None = None,
    table: TranspositionTable | None = None,
    quiescence: bool = False,
    probe: DepthProbe | None = None,
) -> GuidedResult:
    """Iterative-deepening alpha-beta under ``limits``, guided at the ``modelled`` player's nodes.

    One search of a fresh :func:`guided_searcher`; every option but the modelled player
    means what it means in :class:`~search.searcher.Searcher`.
    """
    searcher = guided_searcher(
        game, modelled=modelled, evaluator=evaluator, ordering=ordering, table=table, quiescence=quiescence,
        probe=probe,
    )
    result = searcher.search(state, limits)
    policy = searcher.policy
    assert isinstance(policy, ModelPolicy)  # guided_searcher's policy
    return GuidedResult(result, policy.stats())
