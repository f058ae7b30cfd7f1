"""Game-tree search over a small game protocol (source notes 000-004).

Games implement :class:`Game` (S0, PLAYER, ACTIONS, RESULT, TERMINAL-TEST, UTILITY);
the algorithms below see nothing else. Chess is one adapter among small games:

- :mod:`search.games`: tic-tac-toe, Nim, explicit trees (the source notes' worked examples);
- :mod:`search.chess`: everything that knows python-chess (no other module here
  imports it): the chess adapter and its evaluations, the fast chess core and
  :func:`~search.chess.scoring.score_root_moves`, pawnless endgames for the
  retrograde solver, the UCI engine and engine matches.

A :class:`Searcher` owns one search's parts (evaluator, ordering, table, quiescence,
policy, probe) and answers ``search(state, limits)``; :func:`search`, :func:`iterate`
and :func:`alphabeta` are one-call shorthands. A guided search plugs in through
:class:`SearchPolicy` (depth adjustments per action) and :class:`MovePredictor`
(beliefs over the legal moves): :func:`guided_searcher` is a Searcher with the model
policy of :mod:`search.opponent.omsearch`.
"""

from search.alphabeta import alphabeta
from search.evaluation import Evaluator, LinearEvaluator
from search.expectiminimax import expectiminimax
from search.game import CHANCE, Capabilities, Cursor, Game, PathCursor, require
from search.iterative import iterate, search
from search.maxn import maxn
from search.minimax import minimax
from search.opponent.omsearch import (
    Guidance,
    GuidedResult,
    ModelledPlayer,
    ModelPolicy,
    PredictionStats,
    guided_search,
    guided_searcher,
)
from search.opponent.predictor import Abilities, MovePredictor, NullPredictor, abilities_of, checked_beliefs
from search.ordering import HeuristicOrderer, MoveOrderer
from search.policy import PlainPolicy, SearchPolicy
from search.result import Limits, SearchResult
from search.retrograde import Solution, best_action, retrograde
from search.searcher import Searcher
from search.transposition import Bound, TranspositionTable
from search.zobrist import ZobristKeys

__all__ = [
    "Game",
    "Capabilities",
    "CHANCE",
    "Cursor",
    "PathCursor",
    "require",
    "Evaluator",
    "LinearEvaluator",
    "Limits",
    "SearchResult",
    "Searcher",
    "minimax",
    "alphabeta",
    "iterate",
    "search",
    "expectiminimax",
    "maxn",
    "retrograde",
    "best_action",
    "Solution",
    "MoveOrderer",
    "HeuristicOrderer",
    "TranspositionTable",
    "Bound",
    "ZobristKeys",
    "SearchPolicy",
    "PlainPolicy",
    "Guidance",
    "ModelPolicy",
    "ModelledPlayer",
    "PredictionStats",
    "GuidedResult",
    "guided_search",
    "guided_searcher",
    "MovePredictor",
    "Abilities",
    "abilities_of",
    "NullPredictor",
    "checked_beliefs",
]
