"""The page's tree: one node per position (transpositions merged), his reply probabilities at every node of his,
row counts that never exceed the row above, the judge's values where the prepared lines go."""

from __future__ import annotations

import chess
import pytest

from iam.games.pgn import PlayerGame
from iam.prepare.dossier import BeliefSettings, PrepareConfig, prepare
from iam.prepare.lines import LineSettings
from iam.prepare.page_tree import side_tree

from .stubs import StubPredictor, StubScorer, after


def game(index: int, *ucis: str) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=index, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=moves, result="win")


# Two games each: 1. d4 Nf6 2. c4 e6, the same position by 1. c4 e6 2. d4 Nf6, and 1. d4 d5 2. c4 e6.
ORDERS = [("d2d4", "g8f6", "c2c4", "e7e6"), ("c2c4", "e7e6", "d2d4", "g8f6"), ("d2d4", "d7d5", "c2c4", "e7e6")]
GAMES = [game(2 * i + k, *moves) for i, moves in enumerate(ORDERS) for k in range(2)]
BELIEFS = {
    (): {"d2d4": 0.5, "c2c4": 0.3, "e2e4": 0.2},
    ("d2d4", "g8f6"): {"c2c4": 0.6, "g1f3": 0.4},
    ("d2d4", "d7d5"): {"c2c4": 0.5, "g1f3": 0.5},
    ("c2c4", "e7e6"): {"d2d4": 0.7, "g1f3": 0.3},
}
SCORES = {("d2d4",): {"d7d5": 10, "g8f6": 0}, ("d2d4", "d7d5"): {"c2c4": 40, "g1f3": 30}}


@pytest.fixture(scope="module")
def tree():
    config = PrepareConfig(
        "X", colors=("white",), lines=LineSettings(plies=4),
        beliefs=BeliefSettings(prior_strength=2.0, population_strength=None), quiet=True,
    )
    dossier = prepare(GAMES, StubPredictor(BELIEFS), config, scorer=StubScorer(SCORES), model_name="a stub")
    return side_tree(dossier.sides[0])


def test_a_position_reached_by_two_move_orders_is_one_node(tree):
    merged = tree.find(after(*ORDERS[0]).fen())
    assert merged is not None and merged.games == 4  # both orders' games
    assert merged.path == ("d4", "Nf6", "c4", "e6")  # shown under the order met first, the most played
    into = [row for row in tree.rows if row.node == merged.key]
    assert [(row.label, row.transposition) for row in into] == [("2... e6", False), ("2... Nf6", True)]
    assert len(tree.by_epd) == len(tree.nodes)


def test_no_row_shows_more_games_than_the_row_above_it(tree):
    above = [tree.nodes[0].games]
    for row in tree.rows:
        del above[row.depth + 1:]
        assert row.games <= above[-1], row
        above.append(row.games)
    assert [row.games for row in tree.rows if row.depth == 0] == [4, 2]


def test_his_replies_carry_his_probabilities_marked_by_their_source(tree):
    root = tree.nodes[0]
    # The stub's beliefs updated by his six games, two games strong: d4 (4 + 2 * 0.5) / 8.
    assert [(r.san, r.games, r.source) for r in root.replies] == [
        ("d4", 4, "games"), ("c4", 2, "games"), ("e4", 0, "model")
    ]
    assert [r.belief for r in root.replies] == pytest.approx([0.625, 0.325, 0.05])
    assert root.other_belief == pytest.approx(0.0)
    for node in tree.nodes:
        if node.his_turn and node.games and len(node.path) < 4:  # his positions before the lines end
            assert node.replies and all(r.belief is not None for r in node.replies), node.title


def test_our_nodes_list_the_prepared_moves_first_with_the_judges_values(tree):
    node = tree.find(after("d2d4").fen())
    assert not node.his_turn
    assert [(r.san, r.prepared, r.games) for r in node.replies] == [("d5", "chosen", 2), ("Nf6", "alternative", 2)]
    # After 1. d4 d5 the judge gives White 40 (its best move): -40 for us, on the node and on the reply.
    assert tree.find(after("d2d4", "d7d5").fen()).value == -40 and node.replies[0].value == -40
    chosen = [row for row in tree.rows if row.label == "1... d5"]
    assert chosen[0].prepared == "chosen" and chosen[0].kind == "played"
