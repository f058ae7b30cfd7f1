"""His repertoire from a small hand-written PGN: counts, scores, recency weights, a transposition merged."""

from __future__ import annotations

import chess
import pytest

from iam.games.pgn import PlayerGame
from iam.games.player_games import read_games
from iam.prepare.tree import RepertoireBeliefs, build_repertoire, game_weights

from .stubs import StubPredictor, after

PGN = """
[White "X"]
[Black "A"]
[Date "2000.01.01"]
[Result "1-0"]

1. d4 Nf6 2. c4 e6 1-0

[White "X"]
[Black "B"]
[Date "2010.01.??"]
[Result "1/2-1/2"]

1. c4 e6 2. d4 Nf6 1/2-1/2

[White "X"]
[Black "C"]
[Date "2010.01.01"]
[Result "0-1"]

1. d4 d5 0-1

[White "D"]
[Black "X"]
[Date "2010.01.01"]
[Result "0-1"]

1. e4 c5 0-1
"""


@pytest.fixture
def games(tmp_path):
    path = tmp_path / "x.pgn"
    path.write_text(PGN, encoding="utf-8")
    found, _ = read_games([path], player="X", quiet=True)
    return found


def test_counts_scores_and_weights(games):
    tree = build_repertoire(games, chess.WHITE, plies=4, half_life_years=5.0, branch_games=1)
    assert tree.games == 3  # his black game is left out
    root = tree.nodes[chess.Board().epd()]
    d4, c4 = root.edges["d2d4"], root.edges["c2c4"]
    assert (d4.played.games, d4.played.score, c4.played.games, c4.played.score) == (2, 0.5, 1, 0.5)
    assert d4.played.weight == pytest.approx(0.5 ** 2 + 1.0)  # the 2000 game is two half-lives older
    assert (d4.played.first_date, d4.played.last_date) == ("2000.01.01", "2010.01.01")
    assert tree.usual_move(chess.Board()) == chess.Move.from_uci("d2d4")


def test_a_transposition_is_one_node(games):
    tree = build_repertoire(games, chess.WHITE, plies=4, branch_games=1)
    merged = tree.nodes[after("d2d4", "g8f6", "c2c4", "e7e6").epd()]
    assert merged.epd == after("c2c4", "e7e6", "d2d4", "g8f6").epd()
    assert merged.games == 2
    shown = [edge.uci for _, edge, _ in tree.shown()]
    assert len(shown) == len(set((node.epd, edge.uci) for node, edge, _ in tree.shown()))


def test_the_model_continues_where_his_games_run_out(games):
    # After 1. d4 d5 (one game) he is to move, his games stop: with branch_games=1 the node
    # was reached in enough games and no move of his follows, so the model's beliefs continue.
    beliefs = {("d2d4", "d7d5"): {"c2c4": 0.7, "g1f3": 0.25, "e2e3": 0.05}}
    tree = build_repertoire(
        games, chess.WHITE, plies=4, branch_games=1, predictor=StubPredictor(beliefs), predicted_belief=0.2
    )
    node = tree.nodes[after("d2d4", "d7d5").epd()]
    predicted = {uci: edge.belief for uci, edge in node.edges.items() if edge.predicted}
    assert predicted == {"c2c4": 0.7, "g1f3": 0.25}
    assert tree.named_move(after("d2d4", "d7d5"), StubPredictor(beliefs)) == chess.Move.from_uci("c2c4")
    assert tree.usual_move(after("d2d4", "d7d5")) is None  # counting alone knows nothing there


def test_game_weights_undated_and_half_life(games):
    assert game_weights(games[:0], 5.0) == []
    weights = game_weights(games, 10.0)
    assert weights[0] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        game_weights(games, 0.0)


def test_his_beliefs_are_the_model_updated_by_his_games_counted_as_effective_games(games):
    tree = build_repertoire(games, chess.WHITE, plies=4, half_life_years=5.0, branch_games=1)
    model = StubPredictor({(): {"d2d4": 0.5, "c2c4": 0.25, "e2e4": 0.25}, ("d2d4",): {"g8f6": 0.5, "d7d5": 0.5}})
    beliefs = RepertoireBeliefs(tree, model, strength=2.0).predict_proba(chess.Board())
    # d4: games weighing 1/4 (2000) and 1 (2010); c4: one game weighing 1. W = 2.25, S = 1/16 + 1 + 1,
    # so his 3 games count as W^2 / S = 2.45 effective games, each weight scaled by W / S.
    weight, squares = 2.25, 1 / 16 + 2
    games_d4, games_c4, n = 1.25 * weight / squares, 1.0 * weight / squares, weight**2 / squares
    expected = {
        "d2d4": (games_d4 + 2 * 0.5) / (n + 2), "c2c4": (games_c4 + 2 * 0.25) / (n + 2), "e2e4": 2 * 0.25 / (n + 2)
    }
    assert {move.uci(): p for move, p in beliefs.items()} == pytest.approx(expected)
    assert sum(beliefs.values()) == pytest.approx(1.0)
    # His opponent's move (1. d4 with Black to move) and a position he never reached keep the model's beliefs.
    assert RepertoireBeliefs(tree, model).predict_proba(after("d2d4")) == model.predict_proba(after("d2d4"))
    assert RepertoireBeliefs(tree, model).predict_proba(after("e2e4")) == {}
    with pytest.raises(ValueError):
        RepertoireBeliefs(tree, model, strength=0.0)


def test_each_move_order_counts_its_own_games(games):
    tree = build_repertoire(games, chess.WHITE, plies=4)
    # Two move orders reach the position after 1. d4 Nf6 2. c4 e6: one node, one game along each order.
    assert tree.paths[("d2d4",)] == 2 and tree.paths[("c2c4",)] == 1 and tree.paths[()] == 3
    assert tree.paths[("d2d4", "g8f6", "c2c4", "e7e6")] == 1 and tree.paths[("c2c4", "e7e6", "d2d4", "g8f6")] == 1
    assert tree.node(after("d2d4", "g8f6", "c2c4", "e7e6")).games == 2
    longer = [path for path in tree.paths if len(path) > 4]
    assert longer == []


def _white(*ucis: str) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=0, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=moves, result="draw")


def test_a_game_back_at_a_position_counts_its_first_choice_there_once():
    """1. Nf3 Nf6 2. Ng1 Ng8 3. e4 is back at the start: the game chose Nf3 there, not Nf3 and e4."""
    back = _white("g1f3", "g8f6", "f3g1", "f6g8", "e2e4", "e7e5")
    tree = build_repertoire([back] + [_white("e2e4", "e7e5")] * 3, chess.WHITE, plies=6)
    root = tree.nodes[tree.root]
    assert {uci: edge.played.games for uci, edge in root.edges.items()} == {"g1f3": 1, "e2e4": 3}
    assert root.games == sum(edge.played.games for edge in root.edges.values()) == 4
    # After 1. e4 e5 the game is counted where it went on: four games reach it.
    assert tree.node(after("e2e4", "e7e5")).games == 4
    beliefs = RepertoireBeliefs(tree, StubPredictor({(): {"e2e4": 0.5, "g1f3": 0.5}}), 2.0)
    assert beliefs.predict_proba(chess.Board())[chess.Move.from_uci("e2e4")] == pytest.approx((3 + 1) / 6)


def test_a_move_he_played_is_believed_where_the_model_leaves_it_out():
    """A model that abstains names e4 alone; his three games with d4 of four are believed all the same."""
    games = [_white("d2d4")] * 3 + [_white("e2e4")]
    tree = build_repertoire(games, chess.WHITE, plies=1)
    d4 = chess.Move.from_uci("d2d4")
    assert RepertoireBeliefs(tree, StubPredictor({(): {"e2e4": 0.6}}), 2.0).predict_proba(chess.Board())[d4] == (
        pytest.approx(3 / 6))
    # A model naming nothing there: his games alone, the prior's weight left unnamed.
    assert RepertoireBeliefs(tree, StubPredictor({}), 2.0).predict_proba(chess.Board()) == {
        d4: pytest.approx(3 / 6), chess.Move.from_uci("e2e4"): pytest.approx(1 / 6)}
