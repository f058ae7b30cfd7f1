"""The test-position cap of the prediction experiments: whole games, seeded, the protocol intact."""

from __future__ import annotations

import pytest

from iam.games.pgn import load_player_games
from iam.measure.evaluation import sample_test_games


def player_positions(game):
    return game.player_moves


@pytest.fixture(scope="module")
def held_out_games(botvinnik40):
    games, _ = load_player_games([botvinnik40], player="Botvinnik", split="test")
    return games


def _positions_to_move(game) -> int:
    board, count = game.board(), 0
    for move in game.moves:
        count += board.turn == game.color
        board.push(move)
    return count


def test_player_positions_counts_the_moves_of_the_player(held_out_games):
    colours = {game.color for game in held_out_games}
    assert len(colours) == 2  # both colours are covered
    for game in held_out_games:
        assert player_positions(game) == _positions_to_move(game)


def test_the_sample_holds_exactly_the_cap_in_whole_games_but_the_last(held_out_games):
    total = sum(map(player_positions, held_out_games))
    originals = {game.index: game for game in held_out_games}
    for cap in (1, 57, 200, total - 1):
        sample = sample_test_games(held_out_games, cap, seed=11)
        assert sum(map(player_positions, sample)) == cap
        assert [game.index for game in sample] == sorted(game.index for game in sample)
        assert all(game.split == "test" for game in sample)
        cut = [game for game in sample if game.moves != originals[game.index].moves]
        assert len(cut) <= 1
        for game in cut:
            # a prefix of the game, ending with the player's move
            assert originals[game.index].moves[: len(game.moves)] == game.moves
            assert _positions_to_move(game) == player_positions(game)
            assert (len(game.moves) - 1) % 2 == (0 if game.board().turn == game.color else 1)


def test_the_sample_is_seeded_and_the_cap_optional(held_out_games):
    first = [game.index for game in sample_test_games(held_out_games, 150, seed=1)]
    assert first == [game.index for game in sample_test_games(held_out_games, 150, seed=1)]
    assert first != [game.index for game in sample_test_games(held_out_games, 150, seed=2)]
    assert sample_test_games(held_out_games, None, seed=1) == held_out_games
    assert sample_test_games(held_out_games, 10**6, seed=1) == held_out_games
