"""iam.evolution.matches: a match between piece values counts each game once with its colour, scores it
as the games went, and a side that values its queen at a pawn loses to the hand-set values."""

import pytest

from iam.evolution.matches import values_match
from search.chess.match import elo_estimate, likelihood_of_superiority
from search.chess.pst import PieceValues
from search.chess.selfplay import play_pair

BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # White mates at once
OPENINGS = ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 1 3")


def test_each_opening_is_played_with_each_colour_and_scored_as_the_games_went():
    import chess

    match = values_match(None, (100, 320, 330, 500, 900), [BACK_RANK], nodes=300)
    assert match.games[["a_white", "a_score", "ending"]].values.tolist() == [
        [True, 1.0, "checkmate"], [False, 0.0, "checkmate"]]
    assert (match.estimate.wins, match.estimate.draws, match.estimate.losses) == (1, 0, 1)
    assert match.los == 0.5 and match.estimate.elo == 0
    pair = play_pair(None, PieceValues.uniform((100, 320, 330, 500, 900)), chess.Board(BACK_RANK), nodes=300)
    assert tuple(match.games["a_score"]) == pair.scores


def test_a_side_that_gives_its_pieces_away_loses():
    match = values_match(None, (100, 10, 10, 10, 10), OPENINGS, nodes=300, max_plies=120)
    e = match.estimate
    assert e.games == 4 and e.wins > e.losses
    assert e == elo_estimate(e.wins, e.draws, e.losses) and match.los == likelihood_of_superiority(e.wins, e.losses)
    with pytest.raises(ValueError):
        values_match(None, None, [], nodes=300)
