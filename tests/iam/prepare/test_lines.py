"""Expectimax over his beliefs, checked against values computed by hand on a tiny tree."""

from __future__ import annotations

import chess
import pytest

from iam.prepare.lines import LineSettings, prepare_lines

from .stubs import BatchScorer, StubPredictor, StubScorer, after

# We are White, he is Black, two plies. Our candidates at the start: e4 (50) and d4 (40),
# within the 30 cp margin; c4 (-100) is not.
SCORES = {
    (): {"e2e4": 50, "d2d4": 40, "c2c4": -100},
    ("e2e4",): {"c7c5": 20, "e7e5": 10, "a7a6": -5},  # he to move: worth 20 to him, -20 to us
    ("e2e4", "e7e5"): {"g1f3": 30},
    ("e2e4", "c7c5"): {"g1f3": 10},
    ("d2d4",): {"d7d5": 5, "g8f6": 0},
    ("d2d4", "d7d5"): {"c2c4": 40},
    ("d2d4", "g8f6"): {"c2c4": 0},
}
BELIEFS = {
    ("e2e4",): {"e7e5": 0.6, "c7c5": 0.3, "a7a6": 0.1},
    ("d2d4",): {"d7d5": 0.5, "g8f6": 0.5},
}
SETTINGS = LineSettings(
    plies=2, our_width=2, our_margin=30, reply_min=0.2, reply_width=3, min_probability=0.01, alternative_margin=None
)


def plan():
    return prepare_lines(chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), SETTINGS)


def test_expectimax_values_by_hand():
    root = plan().root
    e4 = root.children["e2e4"][1]
    d4 = root.children["d2d4"][1]
    # e4: 0.6 * 30 + 0.3 * 10, and a7a6 (0.1, below reply_min) valued as the position: -20.
    assert e4.value == pytest.approx(0.6 * 30 + 0.3 * 10 + 0.1 * -20)
    assert e4.rest == pytest.approx(0.1)
    assert d4.value == pytest.approx(0.5 * 40 + 0.5 * 0)
    assert root.choice == "d2d4" and root.value == pytest.approx(20.0)
    assert "c2c4" not in root.children


def test_lines_carry_his_probabilities_and_end_values():
    lines = plan().lines
    assert [(line.moves, line.probability, line.value) for line in lines] == [
        (("d2d4", "d7d5"), 0.5, 40),
        (("d2d4", "g8f6"), 0.5, 0),
    ]
    assert lines[0].text() == "1. d4 d5"


def test_reference_is_the_scorers_main_line():
    reference = plan().reference
    assert reference.moves == ("e2e4", "c7c5") and reference.value == 10


def test_our_moves_and_his_nodes():
    prepared = plan()
    ours = prepared.our_moves()
    assert [(board.epd(), move.uci(), reach) for board, move, reach in ours] == [(chess.Board().epd(), "d2d4", 1.0)]
    assert list(prepared.his_nodes()) == [
        chess.Board("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1").epd()
    ]


def test_a_line_below_the_probability_floor_is_not_followed():
    thin = LineSettings(
        plies=2, our_width=2, our_margin=30, reply_min=0.2, min_probability=0.55, alternative_margin=None
    )
    prepared = prepare_lines(chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), thin)
    e4 = prepared.root.children["e2e4"][1]
    assert list(e4.children) == ["e7e5"]
    assert e4.value == pytest.approx(0.6 * 30 + 0.4 * -20)
    d4 = prepared.root.children["d2d4"][1]
    assert d4.children == {} and d4.value == -5  # nothing followed: a leaf at the scorer's value
    assert prepared.root.choice == "e2e4"


def test_settings_refuse_nonsense():
    with pytest.raises(ValueError):
        LineSettings(plies=0)
    with pytest.raises(ValueError):
        LineSettings(reply_min=0)


def test_moves_his_opponents_played_join_within_the_known_margin():
    wide = LineSettings(plies=2, our_width=1, our_margin=0, known_margin=200, reply_min=0.2, min_probability=0.01)
    known = lambda board: [chess.Move.from_uci("c2c4")] if board.ply() == 0 else []  # noqa: E731
    prepared = prepare_lines(chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), wide, known=known)
    assert sorted(prepared.root.children) == ["c2c4", "e2e4"]  # d4 is outside our_margin 0
    narrow = LineSettings(plies=2, our_width=1, our_margin=0, known_margin=100, reply_min=0.2, min_probability=0.01)
    prepared = prepare_lines(
        chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), narrow, known=known
    )
    assert sorted(prepared.root.children) == ["e2e4"]  # c4 loses 150 cp


def test_his_opponents_most_played_move_is_chosen_when_worth_nearly_as_much():
    # e4 is worth 19 to us, d4 20: the familiar e4 is chosen within a 25 cp margin, not within 0.
    known = lambda board: [chess.Move.from_uci("e2e4")] if board.ply() == 0 else []  # noqa: E731
    familiar = prepare_lines(
        chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), SETTINGS, known=known
    )
    assert familiar.root.choice == "e2e4" and familiar.root.value == pytest.approx(19.0)
    strict = LineSettings(**{**SETTINGS.__dict__, "familiar_margin": 0})
    assert prepare_lines(
        chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), strict, known=known
    ).root.choice == "d2d4"


def test_alternatives_within_the_margin_are_prepared_lines_too():
    wide = LineSettings(**{**SETTINGS.__dict__, "alternative_margin": 30})
    prepared = prepare_lines(chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), wide)
    assert prepared.root.choice == "d2d4" and prepared.root.alternatives == ["e2e4"]  # 19 is within 30 of 20
    assert [(line.moves, line.probability, line.main) for line in prepared.lines] == [
        (("d2d4", "d7d5"), 0.5, True),
        (("d2d4", "g8f6"), 0.5, True),
        (("e2e4", "e7e5"), 0.6, False),
        (("e2e4", "c7c5"), 0.3, False),
    ]
    after_d4, after_e4 = (chess.Board(prepared.root.children[uci][1].fen).epd() for uci in ("d2d4", "e2e4"))
    assert set(prepared.his_nodes()) == {after_d4, after_e4}
    assert list(prepared.his_nodes(alternatives=False)) == [after_d4]
    assert [move.uci() for _, move, _ in prepared.our_moves()] == ["d2d4"]  # the book holds our chosen moves only
    narrow = LineSettings(**{**SETTINGS.__dict__, "alternative_margin": 0})
    assert prepare_lines(
        chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(SCORES), narrow
    ).root.alternatives == []


def test_a_known_move_outside_the_scorer_lines_is_valued_by_the_position_it_leads_to():
    # The scorer gives only e4 at the start; c4, played by his opponents, leads to a position
    # worth -20 to him, so it scores 20 for us: 30 cp below e4, inside a 40 cp known margin.
    scores = {(): {"e2e4": 50}, ("c2c4",): {"e7e5": -20}, **{key: value for key, value in SCORES.items() if key}}
    known = lambda board: [chess.Move.from_uci("c2c4")] if board.ply() == 0 else []  # noqa: E731
    inside = LineSettings(plies=2, our_width=1, our_margin=0, known_margin=40, reply_min=0.2, min_probability=0.01)
    prepared = prepare_lines(
        chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(scores), inside, known=known
    )
    assert sorted(prepared.root.children) == ["c2c4", "e2e4"]
    outside = LineSettings(plies=2, our_width=1, our_margin=0, known_margin=29, reply_min=0.2, min_probability=0.01)
    prepared = prepare_lines(
        chess.Board(), chess.BLACK, StubPredictor(BELIEFS), StubScorer(scores), outside, known=known
    )
    assert sorted(prepared.root.children) == ["e2e4"]


def test_the_tree_is_scored_a_ply_at_a_time_in_batches():
    """Every position the search reads was handed to the scorer in a batch first (an engine spreads a batch over its
    processes): the tree's positions ply by ply, and where our familiar moves outside the scorer's lines lead."""
    scores = {(): {"e2e4": 50}, ("c2c4",): {"e7e5": -20}, **{key: value for key, value in SCORES.items() if key}}
    known = lambda board: [chess.Move.from_uci("c2c4")] if board.ply() == 0 else []  # noqa: E731
    scorer = BatchScorer(scores)
    settings = LineSettings(plies=2, our_width=1, our_margin=0, known_margin=40, reply_min=0.2, min_probability=0.01)
    prepared = prepare_lines(chess.Board(), chess.BLACK, StubPredictor(BELIEFS), scorer, settings, known=known)
    tree = {chess.Board(node.fen).epd() for node in _nodes(prepared.root)}
    assert len(tree) == 5 and not tree & set(scorer.unbatched)  # the main line past the tree may read alone
    assert scorer.batches[:3] == [
        [chess.Board().epd()],
        [after("c2c4").epd()],  # c4 is outside the scorer's lines: where it leads, before it is weighed
        [after("e2e4").epd(), after("c2c4").epd()],
    ]
    assert sorted(prepared.root.children) == ["c2c4", "e2e4"]


def _nodes(node):
    yield node
    for _, child in node.children.values():
        yield from _nodes(child)


class HistoryPredictor:
    """Beliefs by the moves that reached the position, as a model reading the moves before and the move number."""

    TABLE = {
        ("g1f3",): {"g8f6": 1.0},
        ("g1f3", "g8f6", "f3g1"): {"f6g8": 1.0},
        ("e2e4",): {"c7c5": 1.0},
        ("g1f3", "g8f6", "f3g1", "f6g8", "e2e4"): {"e7e5": 1.0},
    }

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = tuple(move.uci() for move in board.move_stack)
        return {chess.Move.from_uci(uci): p for uci, p in self.TABLE.get(moves, {}).items()}


def test_a_position_met_at_two_plies_is_believed_at_each():
    """1. e4 and 1. Nf3 Nf6 2. Ng1 Ng8 3. e4 are one position, met at plies 1 and 5: his beliefs are asked at each."""
    scores = {(): {"e2e4": 10, "g1f3": 10}, ("g1f3", "g8f6"): {"f3g1": 0}}
    settings = LineSettings(plies=6, our_width=2, our_margin=30, reply_min=0.1, min_probability=0.01)
    root = prepare_lines(chess.Board(), chess.BLACK, HistoryPredictor(), StubScorer(scores), settings).root
    early = root.children["e2e4"][1]
    late = root.children["g1f3"][1].children["g8f6"][1].children["f3g1"][1].children["f6g8"][1].children["e2e4"][1]
    assert chess.Board(early.fen).epd() == chess.Board(late.fen).epd() and (early.ply, late.ply) == (1, 5)
    assert list(early.children) == ["c7c5"] and list(late.children) == ["e7e5"]
