"""Leave-one-game-out bookkeeping: each game's own share of the chunk counts and of the completion record."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.chunks.features import COUNT_COLUMNS
from iam.chunks.leave_one_out import CompletionRecord, OwnCounts, SampledPosition
from iam.chunks.partial import Completions


def _sampled(game: int, chunk: list[int], kept: list[bool], played: list[bool]) -> SampledPosition:
    n = len(chunk)
    completions = Completions(
        moves=[chess.Move.from_uci("e2e4")], move=np.zeros(n, np.int64), placement=np.arange(n),
        chunk=np.array(chunk, np.int64), dissolved=np.zeros(n, bool), legal_moves=20,
    )
    return SampledPosition(
        game=game, move=chess.Move.from_uci("e2e4"), move_number=1, completions=completions, rote=None,
        own_rote_move=None, own_counts=np.zeros((n, len(COUNT_COLUMNS)), np.int64), kept=np.array(kept),
        played=np.array(played),
    )


def _sample() -> list[SampledPosition]:
    """Game 0 completes chunk 1 once of two chances; game 4 completes chunk 1 and misses chunk 0.

    A proposal not kept (chunk 2 in game 0) counts nowhere.
    """
    return [
        _sampled(0, [1, 2], [True, False], [True, True]),
        _sampled(0, [1], [True], [False]),
        _sampled(4, [0, 1], [True, True], [False, True]),
    ]


def test_the_completion_record_counts_the_kept_proposals_per_chunk():
    record = CompletionRecord(_sample(), chunks=4)
    assert record.completed.tolist() == [0, 2, 0, 0] and record.opportunities.tolist() == [1, 3, 0, 0]
    assert record.completed.dtype == np.int64


def test_each_games_own_record_is_its_share_and_the_shares_add_up():
    record = CompletionRecord(_sample(), chunks=4)
    completed, chances = record.own(np.array([0, 1, 2, 3]), 0)
    assert completed.tolist() == [0, 1, 0, 0] and chances.tolist() == [0, 2, 0, 0]
    completed, chances = record.own(np.array([1, 0, 1]), 4)  # asked per proposal: repeats allowed
    assert completed.tolist() == [1, 0, 1] and chances.tolist() == [1, 1, 1]
    completed, chances = record.own(np.array([0, 1]), 2)  # a game with no sampled position
    assert completed.tolist() == [0, 0] and chances.tolist() == [0, 0]
    shares = [record.own(np.arange(4), game) for game in (0, 4)]
    assert np.array_equal(sum(share[0] for share in shares), record.completed)
    assert np.array_equal(sum(share[1] for share in shares), record.opportunities)


def test_an_empty_sample_records_nothing():
    record = CompletionRecord([], chunks=3)
    assert record.completed.tolist() == [0, 0, 0] and record.opportunities.tolist() == [0, 0, 0]
    completed, chances = record.own(np.array([0, 2]), 0)
    assert completed.tolist() == [0, 0] and chances.tolist() == [0, 0]


@pytest.fixture(scope="module")
def library_parts(botvinnik_games):
    """A library kept whole (no filter) on six training games, with the occurrences and moves it was built from."""
    from iam.chunks.board import planes_from_bitboards
    from iam.chunks.collector import collect
    from iam.chunks.model import OpponentModel
    from iam.chunks.replay import replay
    from iam.measure.evaluation import first_training_games

    games = first_training_games(botvinnik_games, 6)
    model = OpponentModel(belief="rules", min_games=1, min_formed_games=0).fit(games)
    moves = replay(games)
    occurrences = collect(planes_from_bitboards(moves.bitboards), moved_to=moves.moved_to)
    return model, occurrences, moves


def test_the_games_own_counts_add_up_to_the_librarys_counts(library_parts):
    """With no filter, every stored count is the sum of the games' own contributions, column by column."""
    model, occurrences, moves = library_parts
    games = np.unique(moves.game)
    own = OwnCounts(model.library_, occurrences, moves, games_in=games)
    rows = np.arange(len(model.library_))
    shares = [own.lookup(rows, int(game)) for game in games]
    assert np.array_equal(sum(shares), model.facts_.counts)
    games_column, formed_column = COUNT_COLUMNS.index("games"), COUNT_COLUMNS.index("formed_games")
    for share in shares:  # a game is one game of a chunk, or none
        assert set(np.unique(share[:, games_column])) <= {0, 1}
        assert np.all(share[:, formed_column] <= share[:, games_column])
        assert np.all(share[:, COUNT_COLUMNS.index("white_games")] + share[:, COUNT_COLUMNS.index("black_games")]
                      == share[:, games_column])
        assert np.all(share >= 0)


def test_only_the_games_asked_for_are_kept(library_parts):
    """Games of the data outside ``games_in`` give zero rows, as does asking with nothing kept."""
    model, occurrences, moves = library_parts
    everyone = OwnCounts(model.library_, occurrences, moves, games_in=np.unique(moves.game))
    some = OwnCounts(model.library_, occurrences, moves, games_in=np.array([2]))
    rows = np.arange(len(model.library_))
    assert np.array_equal(some.lookup(rows, 2), everyone.lookup(rows, 2)) and some.lookup(rows, 2).any()
    assert not some.lookup(rows, 1).any() and not some.lookup(rows, 5).any() and everyone.lookup(rows, 5).any()
    assert some.lookup(rows, 1).shape == (len(rows), len(COUNT_COLUMNS))
    nobody = OwnCounts(model.library_, occurrences, moves, games_in=np.array([], np.int64))
    assert nobody.lookup(rows[:5], 0).shape == (5, len(COUNT_COLUMNS)) and not nobody.lookup(rows, 0).any()


def test_a_game_outside_the_data_has_no_own_counts(library_parts):
    """A game number past the data's (or negative) gives zeros, not another game's counts under the same key."""
    model, occurrences, moves = library_parts
    own = OwnCounts(model.library_, occurrences, moves, games_in=np.unique(moves.game))
    rows = np.arange(len(model.library_))
    stride = int(moves.game.max()) + 1
    assert own.lookup(rows, 0).any()
    for game in (stride, stride + 3, 99, -1):
        assert not own.lookup(rows, game).any()
    record = CompletionRecord(_sample(), chunks=4)  # games 0 and 4: game 5 would read chunk 1 of game 0
    assert record.own(np.array([0]), 5)[1].tolist() == [0.0] and record.own(np.array([1]), 0)[1].tolist() == [2.0]
