"""iam.games.heldout: the split by game number, the development and fitting games, sizes and the test sample."""

from dataclasses import dataclass

import chess
import pytest

from iam.errors import ParameterError
from iam.games import heldout
from iam.games.pgn import PlayerGame


@dataclass(frozen=True)
class Numbered:
    index: int


GAMES = [Numbered(i) for i in range(13)]


def test_every_fifth_game_is_a_test_game():
    assert [heldout.split_of(i) for i in range(10)] == ["train"] * 4 + ["test"] + ["train"] * 4 + ["test"]
    assert [g.index for g in heldout.test_games(GAMES)] == [4, 9]
    assert [g.index for g in heldout.training_games(GAMES)] == [0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12]


def test_development_and_fitting_games_partition_the_training_games():
    development = [g.index for g in heldout.development_games(GAMES)]
    fitting = [g.index for g in heldout.fitting_games(GAMES)]
    assert development == [3, 8]
    assert fitting == [0, 1, 2, 5, 6, 7, 10, 11, 12]
    assert sorted(development + fitting) == [g.index for g in heldout.training_games(GAMES)]
    assert not set(development) & {g.index for g in heldout.test_games(GAMES)}
    assert [heldout.is_development(i) for i in (3, 4, 8, 13)] == [True, False, True, True]


def test_the_split_follows_the_numbers_not_the_positions_in_the_list():
    """A game that could not be read keeps its number: the others keep their split."""
    gappy = [Numbered(i) for i in (0, 2, 4, 5, 9, 14)]
    assert [g.index for g in heldout.test_games(gappy)] == [4, 9, 14]
    assert [g.index for g in heldout.first_training_games(gappy, 2)] == [0, 2]
    assert [g.index for g in heldout.first_training_games(gappy, None)] == [0, 2, 5]
    assert heldout.first_training_games(gappy, 0) == []


@pytest.mark.parametrize(
    ("text", "sizes"),
    [("12,22,all", [12, 22, None]), (" 5 , ,all ", [5, None]), ("all", [None]), ("3,3", [3, 3])],
)
def test_parse_sizes(text, sizes):
    assert heldout.parse_sizes(text) == sizes


@pytest.mark.parametrize("text", ["0", "-3", "ten", "1.5", "", " , "])
def test_parse_sizes_refuses_anything_but_positive_numbers_and_all(text):
    with pytest.raises(ParameterError) as caught:
        heldout.parse_sizes(text)
    assert caught.value.parameter == "train_sizes"


def test_training_sizes_cap_sort_and_drop_repeats():
    assert heldout.training_sizes([50, None, 12, 500, 12], 80) == [12, 50, 80]
    assert heldout.training_sizes([None], 0) == [0]
    assert heldout.training_sizes([], 10) == []


def _game(index, color, plies):
    board, moves = chess.Board(), []
    for _ in range(plies):
        move = sorted(board.legal_moves, key=chess.Move.uci)[0]
        moves.append(move)
        board.push(move)
    return PlayerGame(index=index, color=color, start_fen=chess.STARTING_FEN, moves=tuple(moves), result="unknown")


TEST = [_game(4, chess.WHITE, 20), _game(9, chess.BLACK, 20), _game(14, chess.WHITE, 11), _game(19, chess.BLACK, 7)]


def test_sample_without_a_cap_or_under_it_is_everything():
    total = sum(g.player_moves for g in TEST)
    assert total == 10 + 10 + 6 + 3
    assert heldout.sample_test_games(TEST, None, seed=0) == TEST
    assert heldout.sample_test_games(TEST, total, seed=0) == TEST
    assert heldout.sample_test_games(TEST, 10**6, seed=3) == TEST


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cap", [1, 4, 10, 15, 28])
def test_sample_holds_exactly_the_cap_in_protocol_order_with_one_game_cut(seed, cap):
    """Whole games until the cap, the last one cut right after the player's needed move."""
    sample = heldout.sample_test_games(TEST, cap, seed=seed)
    assert sum(g.player_moves for g in sample) == cap
    assert [g.index for g in sample] == sorted(g.index for g in sample)
    originals = {g.index: g for g in TEST}
    cut = [g for g in sample if g != originals[g.index]]
    assert len(cut) <= 1
    for game in cut:
        whole = originals[game.index]
        assert game.moves == whole.moves[: len(game.moves)]
        # The cut ends with the player's move: the player made the last move.
        assert (len(game.moves) % 2 == 1) == (game.color == chess.WHITE)
    assert heldout.sample_test_games(TEST, cap, seed=seed) == sample  # the same seed, the same sample


def test_different_seeds_sample_different_games():
    samples = {tuple(g.index for g in heldout.sample_test_games(TEST, 10, seed=s)) for s in range(12)}
    assert len(samples) > 1
