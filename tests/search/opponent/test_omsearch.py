"""The opponent-model-guided search: exact models help, empty models change nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import chess
import pytest

from search import HeuristicOrderer, Limits, NullPredictor, TranspositionTable, alphabeta, search
from search.chess.evaluation import material_pst_evaluator
from search.chess.game import ChessGame
from search.game import Capabilities, Game
from search.opponent.omsearch import Guidance, ModelledPlayer, ModelPolicy, guided_search
from search.probe import DepthProbe


def _hash(*parts, modulo: int) -> int:
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") % modulo


class IncrementTree(Game):
    """Players alternate choosing one of ``branching`` actions for ``length`` plies.

    Every action adds a pseudo-random increment in [-10, 10] to player 0's score
    (from a hash of the path), and a finished game is worth its score. The running
    score (:meth:`score`) is an honest but short-sighted evaluation; nothing short
    of searching to the end knows the value.
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

    def score(self, state) -> float:
        return float(sum(_hash(self.seed, state[:i], state[i], modulo=21) - 10 for i in range(len(state))))

    def utility(self, state, player: int) -> float:
        return self.score(state) if player == 0 else -self.score(state)


class FixedOpponent:
    """Player 1 always plays the action a hash of the position names; the predictor knows it."""

    def __init__(self, game: IncrementTree) -> None:
        self.game = game

    def choice(self, state) -> int:
        return _hash("opponent", self.game.seed, state, modulo=self.game.branching)

    def predict_proba(self, state) -> dict[int, float]:
        if self.game.to_move(state) != 1 or self.game.is_terminal(state):
            return {}
        return {self.choice(state): 1.0}


def value_against(game: IncrementTree, opponent: FixedOpponent, state) -> float:
    """Player 0's value when player 1 follows its fixed policy and player 0 plays best."""
    if game.is_terminal(state):
        return game.utility(state, 0)
    if game.to_move(state) == 1:
        return value_against(game, opponent, game.result(state, opponent.choice(state)))
    return max(value_against(game, opponent, game.result(state, a)) for a in game.actions(state))


def test_an_exact_model_sees_deeper_and_chooses_no_worse():
    """Pruning what an exact model rules out: more plies at the same budget, the best move."""
    exploit = Guidance(extend_at=0.5, extension=0, prune_below=0.5, keep_first=False, min_depth=1)
    limits = Limits(nodes=6000)
    plain_worse = 0
    for seed in range(1, 9):
        game = IncrementTree(branching=6, length=8, seed=seed)
        opponent = FixedOpponent(game)
        best = max(value_against(game, opponent, (a,)) for a in game.actions(()))
        plain = search(game, (), evaluator=game.score, limits=limits)
        guided = guided_search(
            game, (), modelled=ModelledPlayer(opponent, 1, exploit), evaluator=game.score, limits=limits
        )
        assert guided.result.depth > plain.depth
        assert guided.result.nodes <= limits.nodes + 1 and plain.nodes <= limits.nodes + 1
        assert value_against(game, opponent, (guided.result.move,)) == best == guided.result.value
        plain_worse += value_against(game, opponent, (plain.move,)) < best
        assert guided.predictions.calls > 0 and guided.predictions.cache_hits > 0  # iterations reuse predictions
    assert plain_worse >= 3  # the plain search, assuming the worst reply, misses what this opponent allows


def test_extensions_and_reductions_move_the_horizon_along_the_predicted_line():
    """Depth arithmetic of the default guidance, read off the probe: predicted replies cost no depth."""
    game = IncrementTree(branching=3, length=12, seed=5)
    line = []
    state = ()
    for _ in range(12):  # player 0 plays action 0, player 1 what the exact model predicts
        action = 0 if game.to_move(state) == 0 else FixedOpponent(game).choice(state)
        line.append(action)
        state = game.result(state, action)
    plain_probe = DepthProbe(game, (), line)
    plain = alphabeta(game, (), depth=4, evaluator=game.score, probe=plain_probe)
    for guidance, expected in ((Guidance(min_depth=2), 6), (Guidance(min_depth=1), 7)):
        probe = DepthProbe(game, (), line)
        policy = ModelPolicy(FixedOpponent(game), modelled_player=1, guidance=guidance)
        guided = alphabeta(game, (), depth=4, evaluator=game.score, policy=policy, probe=probe)
        shape = probe.shape(4)
        assert shape.line_depth == expected  # plies 1, 3 (and 5) extended: each pair of plies costs one
        assert shape.horizon_range[1] == expected and shape.horizon_range[0] == 3  # reduced replies stop early
        assert guided.nodes != plain.nodes
    assert plain_probe.shape(4).line_depth == 4 and plain_probe.shape(4).horizon_range == (4, 4)


def test_a_model_that_predicts_nothing_changes_nothing():
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
    for limits in (Limits(depth=3), Limits(nodes=4000)):
        common = dict(evaluator=material_pst_evaluator(), limits=limits, quiescence=True)
        plain = search(ChessGame(), board, ordering=HeuristicOrderer(), table=TranspositionTable(), **common)
        guided = guided_search(
            ChessGame(), board, modelled=ModelledPlayer(NullPredictor(), 1, Guidance(min_depth=1)),
            ordering=HeuristicOrderer(), table=TranspositionTable(), **common,
        )
        same = ("nodes", "qnodes", "cutoffs", "tt_hits", "depth", "value", "move", "pv")
        assert {k: getattr(guided.result, k) for k in same} == {k: getattr(plain, k) for k in same}
        assert guided.predictions.calls > 0 and guided.predictions.guided_nodes == 0


def test_a_probe_watches_without_changing_the_search():
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
    line = [chess.Move.from_uci(uci) for uci in ("c4d5", "e6d5", "f1d3")]
    common = dict(evaluator=material_pst_evaluator(), limits=Limits(depth=3), quiescence=True)
    bare = search(ChessGame(), board, ordering=HeuristicOrderer(), table=TranspositionTable(), **common)
    probe = DepthProbe(ChessGame(), board, line)
    watched = search(ChessGame(), board, ordering=HeuristicOrderer(), table=TranspositionTable(), probe=probe, **common)
    assert (watched.nodes, watched.value, watched.move, watched.pv) == (bare.nodes, bare.value, bare.move, bare.pv)
    shape = probe.shape(3)
    assert probe.line_length == 3 and shape.horizon_range == (3, 3) and shape.horizon_mean == 3.0
    assert 1 <= shape.line_entered <= 3 and shape.line_depth == 3  # plain search: the nominal depth
    assert [probe.shape(d).depth for d in (1, 2, 3)] == [1, 2, 3] and probe.shape(4) is None
    illegal = DepthProbe(ChessGame(), board, [chess.Move.from_uci("e1g1"), *line])
    assert illegal.line_length == 0  # a line is followed only while it stays legal


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
    actions = ["a", "b", "c", "d"]  # "a" is the move ordering's first choice (the table's move)
    guidance = Guidance(extend_at=0.3, reduce_below=0.05, confidence=0.5)
    confident = ModelPolicy(Scripted({"c": 0.6, "b": 0.1, "d": 0.01}), modelled_player=1, guidance=guidance)
    assert confident.plan(StubCursor(1), actions, ply=1, depth=3) == [("a", 0), ("c", 1), ("b", 0), ("d", -1)]
    unsure = ModelPolicy(Scripted({"c": 0.35, "b": 0.1}), modelled_player=1, guidance=guidance)
    assert unsure.plan(StubCursor(1), actions, ply=1, depth=3) == [("a", 0), ("c", 1), ("b", 0), ("d", 0)]
    first = ModelPolicy(Scripted({"c": 0.6}), modelled_player=1, guidance=Guidance(keep_first=False))
    assert first.plan(StubCursor(1), actions, ply=1, depth=3) == [("c", 1), ("a", -1), ("b", -1), ("d", -1)]
    split = Guidance(extend_at=0.2, reduce_below=0.2, confidence=0.0)  # every move extended or reduced
    both = ModelPolicy(Scripted({"b": 0.25, "c": 0.15}), modelled_player=1, guidance=split)
    assert both.plan(StubCursor(1), actions, ply=1, depth=3) == [("a", 0), ("b", 1), ("c", -1), ("d", -1)]
    reducible = ModelPolicy(Scripted({"c": 0.6, "b": 0.1}), modelled_player=1, guidance=Guidance(reduce_first=True))
    assert reducible.plan(StubCursor(1), actions, ply=1, depth=3)[:2] == [("a", -1), ("c", 1)]
    extended_first = ModelPolicy(Scripted({"a": 0.7}), modelled_player=1, guidance=guidance)
    assert extended_first.plan(StubCursor(1), actions, ply=1, depth=3)[0] == ("a", 1)


def test_pruning_drops_what_a_confident_model_rules_out_but_keeps_the_table_move():
    prune = Guidance(extend_at=0.3, reduce_below=0.05, prune_below=0.05, confidence=0.5)
    policy = ModelPolicy(Scripted({"c": 0.6, "b": 0.1, "d": 0.01}), modelled_player=1, guidance=prune)
    assert policy.plan(StubCursor(1), ["a", "b", "c", "d"], ply=1, depth=3) == [("a", 0), ("c", 1), ("b", 0)]
    unsure = ModelPolicy(Scripted({"c": 0.3}), modelled_player=1, guidance=prune)
    assert len(unsure.plan(StubCursor(1), ["a", "b", "c", "d"], ply=1, depth=3)) == 4  # not confident: all kept
    everything = Guidance(extend_at=0.5, prune_below=0.5, confidence=0.5, keep_first=False)
    spread = ModelPolicy(Scripted({"b": 0.3, "c": 0.3}), modelled_player=1, guidance=everything)
    assert spread.plan(StubCursor(1), ["a", "b", "c"], ply=1, depth=3) == [("b", 0)]  # never an empty plan
    reducible = Guidance(extend_at=0.5, prune_below=0.5, confidence=0.5, reduce_first=True)
    table_move_unpredicted = ModelPolicy(Scripted({"b": 0.3, "c": 0.4}), modelled_player=1, guidance=reducible)
    assert table_move_unpredicted.plan(StubCursor(1), ["a", "b", "c"], ply=1, depth=3) == [("c", 0)]


class Remembering(Scripted):
    """Beliefs that depend on the path as well as the position (declared by ``context_key``)."""

    def context_key(self, state):
        return state


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


def test_the_cache_separates_paths_the_predictor_says_matter():
    model = Remembering({"a": 0.9})
    policy = ModelPolicy(model, modelled_player=1)
    for history in ("via e4", "via d4", "via e4"):
        cursor = StubCursor(1, key="same position")
        cursor.state = history
        policy.plan(cursor, ["a", "b"], ply=1, depth=3)
    assert (model.asked, policy.stats().cache_hits) == (2, 1)


def test_predictions_must_keep_the_protocol():
    policy = ModelPolicy(Scripted({"z": 0.5}), modelled_player=1)
    with pytest.raises(ValueError, match="not legal"):
        policy.plan(StubCursor(1), ["a", "b"], ply=1, depth=3)
    policy = ModelPolicy(Scripted({"a": 0.8, "b": 0.7}), modelled_player=1)
    with pytest.raises(ValueError, match="more than 1"):
        policy.plan(StubCursor(1), ["a", "b"], ply=1, depth=3)


@pytest.mark.parametrize(
    "options",
    [
        dict(extend_at=0.0),
        dict(extend_at=1.5),
        dict(reduce_below=0.5, extend_at=0.3),
        dict(prune_below=0.5, extend_at=0.3),
        dict(prune_below=-0.1),
        dict(confidence=2.0),
        dict(extension=-1),
        dict(min_depth=0),
    ],
)
def test_guidance_refuses_nonsense(options):
    with pytest.raises(ValueError):
        Guidance(**options)


def test_guided_chess_search_with_an_opponent_model(small_model):
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QK2R w KQ - 0 9")
    guided = guided_search(
        ChessGame(), board, modelled=ModelledPlayer(small_model, 1, Guidance(min_depth=2)),
        evaluator=material_pst_evaluator(), limits=Limits(nodes=3000),
        ordering=HeuristicOrderer(), table=TranspositionTable(), quiescence=True,
    )
    assert guided.result.move in board.legal_moves
    assert guided.predictions.calls > 0 and guided.predictions.seconds > 0
    with pytest.raises(ValueError, match="modelled_player"):
        guided_search(
            ChessGame(), board, modelled=ModelledPlayer(small_model, 2), evaluator=material_pst_evaluator(),
            limits=Limits(depth=1),
        )



def test_the_opponent_model_names_what_its_beliefs_depend_on(small_model):
    via_e4, via_d4 = chess.Board(), chess.Board()
    for uci in ("e2e4", "e7e6", "d2d4", "d7d5"):
        via_e4.push_uci(uci)
    for uci in ("d2d4", "e7e6", "e2e4", "d7d5"):
        via_d4.push_uci(uci)
    assert ChessGame().key(via_e4) == ChessGame().key(via_d4)  # one position ...
    assert small_model.context_key(via_e4) != small_model.context_key(via_d4)  # ... two openings
    again = chess.Board()
    for move in via_e4.move_stack:
        again.push(move)
    assert small_model.context_key(again) == small_model.context_key(via_e4)
    assert small_model.predict_proba(again) == small_model.predict_proba(via_e4)
