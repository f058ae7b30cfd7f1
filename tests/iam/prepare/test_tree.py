"""His repertoire from a small hand-written PGN: counts, scores, recency weights, a transposition merged."""

from __future__ import annotations

import chess
import pytest

from iam.player_games import read_games
from iam.prepare.tree import build_repertoire, game_weights

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
    assert (d4.games, d4.score, c4.games, c4.score) == (2, 0.5, 1, 0.5)
    assert d4.weight == pytest.approx(0.5 ** 2 + 1.0)  # the 2000 game is two half-lives older
    assert (d4.first_date, d4.last_date) == ("2000.01.01", "2010.01.01")
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
    tree = build_repertoire(games, chess.WHITE, plies=4, branch_games=1, predictor=StubPredictor(beliefs), predicted_belief=0.2)
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
