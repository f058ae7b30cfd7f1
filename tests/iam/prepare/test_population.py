"""The model's beliefs updated by the population book: the posterior's arithmetic, and its place in the dossier."""

from __future__ import annotations

import chess
import pytest

from iam.games.pgn import PlayerGame
from iam.prepare.dossier import BeliefSettings, PrepareConfig, prepare
from iam.prepare.lines import LineSettings
from iam.prepare.population import BookBeliefs
from iam.priors.population import PopulationBook, bundled_prior

from .stubs import StubPredictor, StubScorer, after

E4, D4, C4 = (chess.Move.from_uci(uci) for uci in ("e2e4", "d2d4", "c2c4"))


class Fixed:
    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        return {E4: 0.6, D4: 0.3, C4: 0.1} if board.ply() == 0 else {}


def test_the_book_updates_the_model_as_a_dirichlet_posterior():
    book = PopulationBook({"A": {chess.Board().epd(): {"d2d4": 3, "c2c4": 1}}, "B": {chess.Board().epd(): {"d2d4": 2}}})
    beliefs = BookBeliefs(Fixed(), book, strength=2.0).predict_proba(chess.Board())
    # six games (d4 five times, c4 once) beside the model's belief two games strong
    assert (
        beliefs[E4] == pytest.approx(1.2 / 8)
        and beliefs[D4] == pytest.approx(5.6 / 8)
        and beliefs[C4] == pytest.approx(1.2 / 8)
    )
    assert sum(beliefs.values()) == pytest.approx(1.0)
    # a strong prior barely moves
    assert BookBeliefs(Fixed(), book, strength=1000.0).predict_proba(chess.Board())[E4] > 0.59


def test_where_the_book_is_silent_the_model_stands():
    book = PopulationBook({"A": {after("e2e4").epd(): {"e7e5": 9}}})
    assert BookBeliefs(Fixed(), book).predict_proba(chess.Board()) == Fixed().predict_proba(chess.Board())
    # a book move the model does not list (not legal for it) is not invented
    odd = PopulationBook({"A": {chess.Board().epd(): {"a2a3": 4}}})
    assert BookBeliefs(Fixed(), odd).predict_proba(chess.Board()) == Fixed().predict_proba(chess.Board())
    with pytest.raises(ValueError, match="strength must be positive"):
        BookBeliefs(Fixed(), book, strength=0.0)


def test_the_dossier_believes_the_masters_where_his_games_never_went():
    """After 1. e4, where none of his games went, the dossier's beliefs are the stub's updated by the bundled book
    without him."""
    book = bundled_prior().book
    if not book.masters:
        pytest.skip("no bundled population book")
    e4 = after("e2e4")
    replies = [move for move in e4.legal_moves]
    stub = {("e2e4",): {move.uci(): 1 / len(replies) for move in replies}}
    games = [
        PlayerGame(
            index=0,
            color=chess.BLACK,
            start_fen=chess.STARTING_FEN,
            moves=(D4, chess.Move.from_uci("d7d5")),
            result="draw",
        )
    ]
    lines = LineSettings(plies=2)
    plain = prepare(
        games,
        StubPredictor(stub),
        PrepareConfig(
            "Botvinnik", colors=("black",), lines=lines, beliefs=BeliefSettings(population_strength=None), quiet=True
        ),
        scorer=StubScorer({}),
    ).sides[0].beliefs.predict_proba(e4)
    config = PrepareConfig(
        "Botvinnik", colors=("black",), lines=lines, beliefs=BeliefSettings(population_strength=4.0), quiet=True
    )
    updated = prepare(games, StubPredictor(stub), config, scorer=StubScorer({})).sides[0].beliefs.predict_proba(e4)
    counts = book.without("Botvinnik").lookup(e4)
    total = sum(counts.values())
    # he is in the book, and dropped
    assert total > 10 and "Botvinnik" in book.masters and book.masters["Botvinnik"].get(e4.epd())
    e5 = chess.Move.from_uci("e7e5")
    assert plain[e5] == pytest.approx(1 / len(replies))
    assert updated[e5] == pytest.approx((counts.get("e7e5", 0) + 4.0 / len(replies)) / (total + 4.0))
    assert max(updated, key=updated.get).uci() == max(counts, key=counts.get)
