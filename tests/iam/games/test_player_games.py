"""Population games: a game two bundled masters share never teaches the population a test game."""

from __future__ import annotations

import gzip
import json

import chess
import pytest

from iam.games import heldout
from iam.games.heldout import fitting_games
from iam.games.pgn import IngestReport, PlayerGame
from iam.games.player_games import HeldOut, game_key, population_games
from iam.priors.policynet import POLICY_NETS_FILE
from iam.priors.population import PRIOR_FILE
from iam.priors.valuenet import VALUE_NET_FILE

OPENINGS = ["e2e4 e7e5", "d2d4 d7d5", "c2c4 e7e5", "g1f3 d7d5", "e2e4 c7c5", "d2d4 g8f6", "b2b3 e7e5", "g2g3 d7d5"]


def _game(index: int, moves: str, color: chess.Color = chess.WHITE) -> PlayerGame:
    return PlayerGame(index, color, chess.STARTING_FEN, tuple(chess.Move.from_uci(m) for m in moves.split()), "draw")


def test_a_test_game_of_one_master_is_dropped_from_the_others_population_games():
    # A's game 4 is his test game; B holds it as training game 0 (from the other side).
    # B's game 3 is a development game that A also holds as training game 1: it stays.
    a = [_game(i, OPENINGS[i]) for i in range(6)]
    b = [_game(0, OPENINGS[4], chess.BLACK), _game(1, OPENINGS[6]), _game(2, OPENINGS[7]), _game(3, OPENINGS[1])]
    kept, dropped = population_games({"A": a, "B": b})
    assert dropped == {"A": 0, "B": 1}
    assert [g.index for g in kept["A"]] == [0, 1, 2, 3, 5]
    assert [g.index for g in kept["B"]] == [1, 2, 3]
    kept, dropped = population_games({"A": a, "B": b}, fitting_games)
    assert [g.index for g in kept["B"]] == [1, 2] and dropped == {"A": 0, "B": 1}
    # the same moves from another start are another game
    other = PlayerGame(0, chess.BLACK, chess.Board("8/8/8/8/8/8/8/K1k5 w - - 0 1").fen(), a[4].moves, "draw")
    assert population_games({"A": a, "B": [other]})[1] == {"A": 0, "B": 0}


@pytest.mark.slow
def test_the_shipped_population_files_left_out_every_shared_test_game(bundled_master_games):
    masters = bundled_master_games
    tests = {game_key(game) for games in masters.values() for game in heldout.test_games(games)}
    kept, dropped = population_games(masters)
    assert sum(dropped.values()) > 40  # the bundled masters played each other
    assert not any(game_key(game) in tests for games in kept.values() for game in games)
    prior = json.load(gzip.open(PRIOR_FILE))["settings"]
    assert prior["dropped_test_games_of_others"] == dropped
    assert prior["masters"] == {name: len(games) for name, games in kept.items()}
    _, dropped_fitting = population_games(masters, fitting_games)
    assert json.load(gzip.open(POLICY_NETS_FILE))["info"]["dropped_test_games_of_others"] == dropped_fitting
    assert json.load(gzip.open(VALUE_NET_FILE))["info"]["dropped_test_games_of_others"] == dropped_fitting


def test_a_held_out_set_shows_its_player_and_split_sizes_not_its_games():
    games = [PlayerGame(i, chess.WHITE, chess.STARTING_FEN, (), "draw") for i in range(10)]
    assert repr(HeldOut("Tal", games, IngestReport())) == "HeldOut('Tal': 8 training games, 2 test games)"


def test_a_collection_whose_only_frame_is_cut_says_so_rather_than_blame_the_filters(tmp_path):
    import zstandard

    from iam.errors import DataError
    from iam.games.filters import GameFilter
    from iam.games.player_games import collection_players
    from iam.runtime import Runtime

    text = '[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n' * 50
    packed = zstandard.ZstdCompressor().compress(text.encode())
    cut = tmp_path / "cut.pgn.zst"
    cut.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(DataError, match=r"after the filters \(.*cut\.pgn\.zst: bytes 0-\d+ cannot be decompressed"):
        collection_players([cut], GameFilter(), Runtime(), min_games=1)
