"""The exports (iam.prepare.exports): the repertoire PGN and the polyglot book read back by python-chess, and the
prepared tree's JSON."""

from __future__ import annotations

import io
import json
import re

import chess
import chess.pgn
import chess.polyglot
import pytest

from iam.games.pgn import PlayerGame
from iam.prepare.book import write_book
from iam.prepare.dossier import BeliefSettings, Dossier, PrepareConfig, build_side
from iam.prepare.exports import (
    ALTERNATIVE_WEIGHT,
    PREPARED_FORMAT,
    REPLY_SHARE,
    book_moves,
    prepared_dict,
    repertoire_pgn,
    replies_at,
)
from iam.prepare.lines import LineSettings

from .stubs import StubPredictor, StubScorer


def _game(index: int, *ucis: str) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis)
    return PlayerGame(index=index, color=chess.BLACK, start_fen=chess.STARTING_FEN, moves=moves, result="draw")


# His Black games: after 1. e4 he played e5 six times, c5 three times and g6 once (10%, a sideline).
GAMES = ([_game(i, "e2e4", "e7e5", "g1f3") for i in range(6)] + [_game(6 + i, "e2e4", "c7c5") for i in range(3)]
         + [_game(9, "e2e4", "g7g6")] + [_game(10, "d2d4", "d7d5")])
BELIEFS = {
    ("e2e4",): {"e7e5": 0.55, "c7c5": 0.3, "a7a6": 0.12, "g7g6": 0.03},
    ("d2d4",): {"d7d5": 0.7, "g8f6": 0.3},
    ("e2e4", "e7e5", "g1f3"): {"b8c6": 0.8, "g8f6": 0.2},
    ("d2d4", "d7d5", "c2c4"): {"e7e6": 0.6, "c7c6": 0.4},
}
SCORES = {(): {"e2e4": 30, "d2d4": 20}, ("e2e4", "e7e5"): {"g1f3": 40}, ("d2d4", "d7d5"): {"c2c4": 30}}


@pytest.fixture(scope="module")
def dossier() -> Dossier:
    config = PrepareConfig("X", colors=("black",), lines=LineSettings(plies=4, min_probability=0.01),
                           beliefs=BeliefSettings(population_strength=None), quiet=True)
    side = build_side(GAMES, chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), config, habits=False)
    return Dossier("X", "stub scores", "a stub", config, [side])


def _paths(node: chess.pgn.GameNode, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every path from ``node`` along its variations (each prefix too)."""
    found = {path}
    for child in node.variations:
        found |= _paths(child, (*path, child.move.uci()))
    return found


def test_the_repertoire_is_one_game_with_every_prepared_line_and_his_probabilities(dossier):
    (side,) = dossier.sides
    stream = io.StringIO(repertoire_pgn(dossier))
    game = chess.pgn.read_game(stream)
    assert chess.pgn.read_game(stream) is None
    assert game.headers["Black"] == "X" and game.headers["White"] == "Prepared" and not game.errors
    # Main line: our chosen move first, our alternative as a variation.
    root = side.plan.root
    assert [child.move.uci() for child in game.variations] == [root.choice, *root.alternatives]
    assert root.alternatives == ["d2d4"]
    paths = _paths(game)
    assert side.plan.lines and all(tuple(line.moves) in paths for line in side.plan.lines)
    # His replies after 1. e4: most believed first, each with his probability in its comment, g6 (10% of his games)
    # among them though the lines do not follow it.
    after_e4 = game.variations[0]
    replies = {child.move.uci(): child.comment for child in after_e4.variations}
    beliefs = side.replies[after_e4.board().epd()]
    assert [child.move.uci() for child in after_e4.variations][0] == "e7e5" and "g7g6" in replies
    for uci, comment in replies.items():
        shown = re.search(r"his probability (\d+)%", comment)
        assert shown is not None and int(shown.group(1)) == round(100 * beliefs[uci])
    assert "his games: 6 of 10" in replies["e7e5"] and "not prepared" in replies["g7g6"]
    assert "his games: 1 of 10" in replies["g7g6"]
    e5, nf3 = chess.Move.from_uci("e7e5"), chess.Move.from_uci("g1f3")
    beyond = after_e4.variation(e5).variation(nf3).variations  # his games end before his second move
    assert beyond and all("(the model)" in child.comment for child in beyond)


def test_the_book_holds_our_prepared_moves_and_his_replies_by_their_weights(dossier, tmp_path):
    (side,) = dossier.sides
    path = tmp_path / "book.bin"
    write_book(book_moves(side), path)
    checked = 0
    with chess.polyglot.open_reader(path) as reader:
        for node in side.plan.nodes_on_lines().values():
            board = node.board
            entries = {entry.move.uci(): entry.weight for entry in reader.find_all(board)}
            if node.our_turn and node.choice is not None:
                assert reader.find(board).move.uci() == node.choice
                assert set(entries) == {node.choice, *node.alternatives}
                assert all(entries[uci] == round(1000 * ALTERNATIVE_WEIGHT) for uci in node.alternatives)
            elif not node.our_turn and node.children:
                believed = side.replies[board.epd()]
                his = side.repertoire.node(board)
                games = {uci: edge.played.games for uci, edge in his.edges.items()} if his else {}
                wanted = {uci for uci, p in believed.items() if p >= REPLY_SHARE} | set(node.children)
                wanted |= {uci for uci, n in games.items() if n >= REPLY_SHARE * sum(games.values())}
                assert set(entries) == wanted
                assert all(entries[uci] == max(1, round(1000 * believed[uci])) for uci in wanted)
                checked += 1
    assert checked >= 3


def test_a_reply_he_plays_often_enough_is_listed_even_below_the_belief_share(dossier):
    (side,) = dossier.sides
    node = side.plan.root.children["e2e4"][1]
    listed = {reply.uci: reply for reply in replies_at(side, node)}
    # a6: the model's 12% weighed with his ten games, none of them a6, is below the share: left out.
    assert set(listed) == {"e7e5", "c7c5", "g7g6"}
    g6 = listed["g7g6"]
    assert (g6.games, g6.position_games, g6.followed) == (1, 10, False) and g6.belief >= 0.05  # floored: half of 10%
    assert listed["c7c5"].source() == "his games: 3 of 10"


def test_the_prepared_json_names_every_position_by_its_path(dossier):
    data = json.loads(json.dumps(prepared_dict(dossier)))
    assert (data["format"], data["version"], data["player"]) == (PREPARED_FORMAT, 1, "X")
    (side,) = data["sides"]
    nodes = {row["path"]: row for row in side["nodes"]}
    for row in side["nodes"]:
        board = chess.Board()
        for uci in row["path"].split():
            board.push_uci(uci)
        assert board.fen() == row["fen"] and board.turn == (chess.WHITE if row["our_turn"] else chess.BLACK)
    assert nodes[""]["choice"] == "e2e4" and nodes[""]["alternatives"] == ["d2d4"]
    replies = {reply["move"]: reply for reply in nodes["e2e4"]["replies"]}
    assert replies["e7e5"]["followed"] and replies["e7e5"]["games"] == 6 and not replies["g7g6"]["followed"]
