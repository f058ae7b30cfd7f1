"""The predictor contract: abilities read once, closing, and what an abstaining model's beliefs mean."""

from __future__ import annotations

import chess
import pytest

from search.opponent.predictor import Closeable, NullPredictor, abilities_of, in_use


class Bare:
    def predict_proba(self, board):
        return {}


class Full(Closeable):
    search_depth = 2
    reply_policy_ = None

    def __init__(self) -> None:
        self.closed = 0

    def predict_proba(self, board):
        return {}

    def context_key(self, board):
        return len(board.move_stack)

    def use_root_scores(self, cache):
        pass

    def explain(self, board, *, top=None):
        return []

    blunder_rate_ = 0.04

    def close(self):
        self.closed += 1


def test_abilities_are_read_once_from_the_protocols():
    bare = abilities_of(Bare())
    assert not bare.abstains and bare.context_key is bare.use_root_scores is bare.explain is bare.close is None
    full = Full()
    able = abilities_of(full)
    assert able.context_key(chess.Board()) == 0 and able.root_score_depth == 2 and able.reply_policy is None
    assert able.explain is not None and not able.abstains
    assert bare.blunder_rate is None and able.blunder_rate == 0.04
    assert abilities_of(NullPredictor()).abstains


def test_in_use_closes_a_closing_predictor_and_leaves_others_alone():
    full = Full()
    with in_use(full) as used:
        assert used is full
    with pytest.raises(RuntimeError), in_use(full):
        raise RuntimeError("the work failed")
    assert full.closed == 2
    with in_use(Bare()) as bare:
        assert bare.predict_proba(chess.Board()) == {}
    with Full() as managed:
        pass
    assert managed.closed == 1


def test_the_iam_model_abstains_and_says_how_much(small_model):
    board = chess.Board()
    board.push_san("e4")
    beliefs = small_model.predict_proba(board)
    assert abilities_of(small_model).abstains
    assert small_model.abstention(board) == pytest.approx(1.0 - sum(beliefs.values()))
    empty = chess.Board("8/8/8/8/8/2k5/8/K7 w - - 0 60")  # nothing of his openings or chunks applies
    assert small_model.predict_proba(empty) == {} and small_model.abstention(empty) == 1.0
