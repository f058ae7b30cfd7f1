"""The population (iam.priors.population): the masters' book counted and looked up by hand, its features, the choice
of the prior's weights and trees by families, left-out master and depth, and the prior file's round trip, merge and
update."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.games.pgn import PlayerGame
from iam.priors.population import (
    PopulationBook,
    PopulationPrior,
    PriorWeights,
    book_counts,
    book_features,
    load_prior,
    merge_priors,
    save_prior,
    update_prior,
)
from iam.priors.positions import position_of

START = chess.Board().epd()


def _game(ucis: str, color: chess.Color) -> PlayerGame:
    moves = tuple(chess.Move.from_uci(uci) for uci in ucis.split())
    return PlayerGame(index=0, color=color, start_fen=chess.STARTING_FEN, moves=moves, result="draw")


def _after(*ucis: str) -> chess.Board:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board


def test_the_book_counts_the_masters_own_moves_in_positions_he_reached_often_enough():
    """Only the master's moves are counted (White's here, Black's there), within the first plies, and a position
    enters only with at least ``min_games`` of his moves there."""
    games = [_game(ucis, chess.WHITE) for ucis in ("e2e4 e7e5 g1f3", "e2e4 c7c5 g1f3", "d2d4 d7d5")]
    assert book_counts(games) == {START: {"e2e4": 2, "d2d4": 1}}
    assert book_counts(games, min_games=1) == {
        START: {"e2e4": 2, "d2d4": 1},
        _after("e2e4", "e7e5").epd(): {"g1f3": 1},
        _after("e2e4", "c7c5").epd(): {"g1f3": 1},
    }
    assert book_counts(games, max_ply=2, min_games=1) == {START: {"e2e4": 2, "d2d4": 1}}
    black = [_game("e2e4 c7c5", chess.BLACK), _game("e2e4 c7c5", chess.BLACK)]
    assert book_counts(black) == {_after("e2e4").epd(): {"c7c5": 2}}


def test_the_book_sums_the_masters_and_leaves_one_out_by_name():
    """A lookup sums the masters' counts of the position; ``without`` drops the master a name matches."""
    book = PopulationBook({"Tal, Mikhail": {START: {"e2e4": 3}}, "Petrosian, Tigran": {START: {"e2e4": 1, "c2c4": 2}}})
    assert dict(book.lookup(chess.Board())) == {"e2e4": 4, "c2c4": 2}
    assert dict(book.lookup(_after("e2e4"))) == {}
    assert dict(book.without("Tal").lookup(chess.Board())) == {"e2e4": 1, "c2c4": 2}
    assert book.without(None) is book and book.without("Fischer").masters == book.masters
    assert PopulationBook().lookup(chess.Board()) == {}


def test_the_book_features_of_each_legal_move():
    """Share of the games, log(1 + games) and whether the move is the most played, for each legal move; all zero
    where the book has nothing."""
    book = PopulationBook({"A": {START: {"e2e4": 3, "d2d4": 1}}})
    position = position_of(chess.Board())
    features = book_features(book, position)
    index = {move.uci(): i for i, move in enumerate(position.moves)}
    assert features["book_share"][index["e2e4"]] == 0.75 and features["book_share"][index["d2d4"]] == 0.25
    assert features["book_log_games"][index["e2e4"]] == pytest.approx(np.log(4))
    assert features["book_top"][index["e2e4"]] == 1.0 and features["book_top"].sum() == 1.0
    assert features["book_share"].sum() == pytest.approx(1.0) and len(features["book_share"]) == 20
    empty = book_features(book, position_of(_after("e2e4")))
    assert all(not values.any() for values in empty.values())


def _ranker(families, without=None, depth=None, weight=1.0) -> PriorWeights:
    return PriorWeights(families=tuple(families), without=without, weights={"w": weight}, positions=10,
                        search_depth=depth)


PRIOR = PopulationPrior(
    book=PopulationBook({"Tal": {START: {"e2e4": 2}}}),
    rankers=(
        _ranker(("move", "search"), depth=1, weight=1.0),
        _ranker(("move", "search"), depth=2, weight=2.0),
        _ranker(("move",), weight=3.0),
        _ranker(("move", "search"), without="Tal, Mikhail", depth=1, weight=4.0),
    ),
)


def test_the_weights_are_those_that_never_saw_the_player_and_match_the_families_and_depth_best():
    """The master's own leave-one-out fit when there is one, else the fit on all; the best match of families; the
    fit at the ranker's search depth."""
    assert PRIOR.weights_for(("move", "search"), None, 2) == {"w": 2.0}
    assert PRIOR.weights_for(("move", "search"), None, 1) == {"w": 1.0}
    assert PRIOR.weights_for(("move",), "Botvinnik") == {"w": 3.0}
    assert PRIOR.weights_for(("move", "search"), "Tal", 2) == {"w": 4.0}  # his only fit: any depth
    assert PRIOR.fitted_for(("move", "search"), None, 2) and not PRIOR.fitted_for(("move", "search"), None, 3)
    assert PRIOR.fitted_for(("search", "move"), None) and not PRIOR.fitted_for(("move", "habits"), None)
    assert not PRIOR.fitted_for(("move",), "Tal")  # his leave-one-out fit has the search family
    assert PRIOR.search_depths() == (1, 2)
    assert PRIOR.trees_for(("move", "search"), None, 1) is None
    assert PopulationPrior(book=PopulationBook()).weights_for(("move",), None) == {}


def test_a_prior_file_round_trips_and_a_foreign_one_is_an_error(tmp_path):
    """Saved and loaded, the prior is the same; a version 2 file gives its whole-file depth to the search fits; a
    document of another format is a ModelFileError naming the file."""
    path = tmp_path / "prior.json.gz"
    save_prior(PRIOR, path)
    assert load_prior(path) == PRIOR
    document = PRIOR.to_dict()
    document.update(version=2, settings={"search_depth": 5})
    for ranker in document["rankers"]:
        ranker.pop("search_depth")
        ranker.pop("trees")
    old = PopulationPrior.from_dict(document)
    assert [r.search_depth for r in old.rankers] == [5, 5, None, 5]
    document["rankers"][0]["families"] = ["search"]
    document["version"] = 1
    with pytest.raises(ValueError, match="not a population prior of version 2 or 3 or 4"):
        PopulationPrior.from_dict(document)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "iam-population-prior", "version": 4, "rankers": [{"families": ["search"]}]}')
    with pytest.raises(ModelFileError, match=r"population prior .*bad.json is malformed"):
        load_prior(bad)


def test_priors_of_several_depths_merge_and_a_newer_fit_replaces_its_own_kind():
    """Merging keeps the first prior's fits without the search family and every prior's fits with it, each depth
    once; an update replaces the fits of the same families, left-out master and depth, and refuses other books."""
    one = PopulationPrior(book=PRIOR.book, rankers=(_ranker(("move",)), _ranker(("search",), depth=1)))
    two = PopulationPrior(book=PRIOR.book, rankers=(_ranker(("move",), weight=9.0), _ranker(("search",), depth=2)))
    merged = merge_priors([one, two])
    assert [(r.families, r.search_depth, r.weights["w"]) for r in merged.rankers] == [
        (("move",), None, 1.0), (("search",), 1, 1.0), (("search",), 2, 1.0)
    ]
    assert merged.settings["search_depth"] == [1, 2]
    with pytest.raises(ValueError, match="two priors fitted at search depth 1"):
        merge_priors([one, one])
    with pytest.raises(ValueError, match="no priors"):
        merge_priors([])
    newer = PopulationPrior(book=PRIOR.book, rankers=(_ranker(("move",), weight=7.0), _ranker(("value",))))
    updated = update_prior(merged, newer)
    assert [(r.families, r.weights["w"]) for r in updated.rankers] == [
        (("search",), 1.0), (("search",), 1.0), (("move",), 7.0), (("value",), 1.0)
    ]
    with pytest.raises(ValueError, match="different books"):
        update_prior(merged, PopulationPrior(book=PopulationBook()))
