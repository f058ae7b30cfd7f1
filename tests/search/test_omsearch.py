"""The opponent-model-guided search: exact models help, empty models change nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import chess
import pytest

from search import HeuristicOrderer, Limits, NullPredictor, TranspositionTable, search
from search.chesseval import material_pst_evaluator
from search.chessgame import ChessGame
from search.game import Capabilities, Game
from search.omsearch import Guidance, ModelPolicy, guided_search


class UniformTree(Game):
    """Players alternate choosing one of ``branching`` actions for ``length`` plies.

    Leaves carry pseudo-random utilities (from a hash of the path), so nothing
    short of searching to the end knows the value; :func:`noisy` is an evaluator
    that knows nothing either but does not tie (ties make alpha-beta degenerate).
    """

    capabilities = Capabilities(players=2, zero_sum=True, chance=False)

    def __init__(self, branching: int, length: int, seed: int) -> None:
        self.branching, self.length, self.seed = branching, length, seed

    def initial_state(self) -> tuple[int, ...]:
        return ()

    def to_move(self, state) -> int:
        return len(state) % 2

    def actions(self, state) -> Sequence[int]:
        return () if len(state) >= self.length else tuple(range(self.branching))

    def result(self, state, action) -> tuple[int, ...]:
        return state + (action,)

    def is_terminal(self, state) -> bool:
        return len(state) >= self.length

    def utility(self, state, player: int) -> float:
        digest = hashlib.blake2b(repr((self.seed, state)).encode(), digest_size=4).digest()
        value = int.from_bytes(digest, "little") % 201 - 100
        return float(value if player == 0 else -value)


class FixedOpponent:
    """Player 1 always plays the action a hash of the position names; the predictor knows it."""

    def __init__(self, game: UniformTree) -> None:
        self.game = game

    def choice(self, state) -> int:
        digest = hashlib.blake2b(repr(("opponent", state)).encode(), digest_size=2).digest()
        return int.from_bytes(digest, "little") % self.game.branching

    def predict_proba(self, state) -> dict[int, float]:
        if self.game.to_move(state) != 1 or self.game.is_terminal(state):
            return {}
        return {self.choice(state): 1.0}


def value_against(game: UniformTree, opponent: FixedOpponent, state) -> float:
    """Player 0's value when player 1 follows its fixed policy and player 0 plays best."""
    if game.is_terminal(state):
        return game.utility(state, 0)
    if game.to_move(state) == 1:
        return value_against(game, opponent, game.result(state, opponent.choice(state)))
    return max(value_against(game, opponent, game.result(state, a)) for a in game.actions(state))


def noisy(state) -> float:
    """A made-up evaluation: pseudo-random per position, uncorrelated with the leaves."""
    digest = hashlib.blake2b(repr(("eval", state)).encode(), digest_size=2).digest()
    return float(int.from_bytes(digest, "little") % 101 - 50)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_exact_model_sees_deeper_and_chooses_no_worse(seed):
    game = UniformTree(branching=4, length=10, seed=seed)
    opponent = FixedOpponent(game)
    limits = Limits(nodes=3000)
    plain = search(game, (), evaluator=noisy, limits=limits)
    guidance = Guidance(extend_at=0.5, reduce_below=0.5, extension=0, reduction=10, min_depth=1)
    guided = guided_search(game, (), predictor=opponent, modelled_player=1, evaluator=noisy, limits=limits, guidance=guidance)
    assert guided.result.depth > plain.depth
    assert guided.result.nodes <= limits.nodes + 1 and plain.nodes <= limits.nodes + 1
    assert value_against(game, opponent, (guided.result.move,)) >= value_against(game, opponent, (plain.move,))
    assert guided.predictions.calls > 0 and guided.predictions.cache_hits > 0  # iterations reuse predictions


def test_a_model_that_predicts_nothing_changes_nothing():
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
    common = dict(evaluator=material_pst_evaluator(), limits=Limits(depth=3), quiescence=True)
    plain = search(ChessGame(), board, ordering=HeuristicOrderer(), table=TranspositionTable(), **common)
    guided = guided_search(
        ChessGame(), board, predictor=NullPredictor(), modelled_player=1,
        ordering=HeuristicOrderer(), table=TranspositionTable(), **common,
    )
    same = ("nodes", "qnodes", "cutoffs", "tt_hits", "depth", "value", "move", "pv")
    assert {k: getattr(guided.result, k) for k in same} == {k: getattr(plain, k) for k in same}
    assert guided.predictions.calls > 0 and guided.predictions.guided_nodes == 0


class Scripted:
    """Fixed beliefs for every position; counts how often it is asked."""

    def __init__(self, beliefs: dict) -> None:
        self.beliefs, self.asked = beliefs, 0

    def predict_proba(self, state):
        self.asked += 1
        return self.beliefs


class StubCursor:
    def __init__(self, mover: int, key: object = "k") -> None:
        self.mover, self._key, self.state = mover, key, None

    def to_move(self) -> int:
        return self.mover

    def key(self) -> object:
        return self._key


def test_the_plan_extends_likely_moves_and_reduces_unlikely_ones_when_confident():
    actions = ["a", "b", "c", "d"]  # "a" is the move ordering's first choice
    guidance = Guidance(extend_at=0.3, reduce_below=0.05, confidence=0.5)
    confident = ModelPolicy(Scripted({"c": 0.6, "b": 0.1, "d": 0.01}), modelled_player=1, guidance=guidance)
    assert confident.plan(StubCursor(1), actions, ply=1, depth=3) == [("a", -1), ("c", 1), ("b", 0), ("d", -1)]
    unsure = ModelPolicy(Scripted({"c": 0.35, "b": 0.1}), modelled_player=1, guidance=guidance)
    assert unsure.plan(StubCursor(1), actions, ply=1, depth=3) == [("a", 0), ("c", 1), ("b", 0), ("d", 0)]
    first = ModelPolicy(Scripted({"c": 0.6}), modelled_player=1, guidance=Guidance(keep_first=False))
    assert first.plan(StubCursor(1), actions, ply=1, depth=3) == [("c", 1), ("a", -1), ("b", -1), ("d", -1)]
    split = Guidance(extend_at=0.2, reduce_below=0.2, confidence=0.0)  # every move extended or reduced
    both = ModelPolicy(Scripted({"b": 0.25, "c": 0.15}), modelled_player=1, guidance=split)
    assert both.plan(StubCursor(1), actions, ply=1, depth=3) == [("a", -1), ("b", 1), ("c", -1), ("d", -1)]


def test_our_nodes_shallow_nodes_and_repeated_positions_do_not_ask_again():
    model = Scripted({"a": 0.9})
    policy = ModelPolicy(model, modelled_player=1, guidance=Guidance(min_depth=2))
    assert policy.plan(StubCursor(0), ["a", "b"], ply=0, depth=5) is None  # our own node
    assert policy.plan(StubCursor(1), ["a", "b"], ply=1, depth=1) is None  # too near the horizon
    assert model.asked == 0
    policy.plan(StubCursor(1, key="x"), ["a", "b"], ply=1, depth=3)
    policy.plan(StubCursor(1, key="x"), ["a", "b"], ply=3, depth=2)
    stats = policy.stats()
    assert (model.asked, stats.calls, stats.cache_hits, stats.guided_nodes) == (1, 1, 1, 2)


def test_predictions_must_keep_the_protocol():
    policy = ModelPolicy(Scripted({"z": 0.5}), modelled_player=1)
    with pytest.raises(ValueError, match="not legal"):
        policy.plan(StubCursor(1), ["a", "b"], ply=1, depth=3)
    policy = ModelPolicy(Scripted({"a": 0.8, "b": 0.7}), modelled_player=1)
    with pytest.raises(ValueError, match="more than 1"):
        policy.plan(StubCursor(1), ["a", "b"], ply=1, depth=3)


@pytest.mark.parametrize(
    "options",
    [dict(extend_at=0.0), dict(extend_at=1.5), dict(reduce_below=0.5, extend_at=0.3), dict(confidence=2.0), dict(extension=-1), dict(min_depth=0)],
)
def test_guidance_refuses_nonsense(options):
    with pytest.raises(ValueError):
        Guidance(**options)


def test_guided_chess_search_with_an_opponent_model(small_model):
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QK2R w KQ - 0 9")
    guided = guided_search(
        ChessGame(), board, predictor=small_model, modelled_player=1,
        evaluator=material_pst_evaluator(), limits=Limits(nodes=3000),
        ordering=HeuristicOrderer(), table=TranspositionTable(), quiescence=True,
    )
    assert guided.result.move in board.legal_moves
    assert guided.predictions.calls > 0 and guided.predictions.seconds > 0
    with pytest.raises(ValueError, match="modelled_player"):
        guided_search(ChessGame(), board, predictor=small_model, modelled_player=2, evaluator=material_pst_evaluator(), limits=Limits(depth=1))

