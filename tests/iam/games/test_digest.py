"""A game's digest and the record of a model's training games: the same game read again has the same digest, a
changed move or tag another; the record's split and its checks when a model file is read."""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest

from iam.games.digest import DIGEST_CHARS, TrainingGames, game_digest
from iam.games.pgn import load_player_games

GAMES = """[Event "A"]
[White "Tester, Tom"]
[Black "Other, Olga"]
[Round "1"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "B"]
[White "Other, Olga"]
[Black "Tester, Tom"]
[Round "2"]
[Result "0-1"]

1. d4 Nf6 0-1
"""


def _games(tmp_path, text: str, name: str = "games.pgn"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_player_games([path], player="Tester")[0]


def test_the_same_game_in_another_file_and_place_has_the_same_digest(tmp_path):
    first, second = _games(tmp_path, GAMES)
    swapped = _games(tmp_path, GAMES.split("\n\n[Event")[0] + "\n", "one.pgn")  # game A alone
    assert swapped[0].index == first.index == 0
    reordered = _games(tmp_path, '[Event "B"' + GAMES.split('[Event "B"')[1] + "\n" + GAMES.split('\n\n[Event "B"')[0]
                       + "\n", "reordered.pgn")
    assert (reordered[1].index, reordered[1].event) == (1, "A")
    assert game_digest(reordered[1]) == game_digest(first) != game_digest(second)
    assert len(game_digest(first)) == DIGEST_CHARS and int(game_digest(first), 16) >= 0


def test_a_changed_move_or_tag_changes_the_digest(tmp_path):
    (game, _) = _games(tmp_path, GAMES)
    other_move = replace(game, moves=(*game.moves[:-1], chess.Move.from_uci("g8f6")))
    other_round = replace(game, tags={**game.tags, "Round": "7"})
    digests = {game_digest(game), game_digest(other_move), game_digest(other_round)}
    assert len(digests) == 3


def test_the_record_says_whether_a_test_game_is_among_them(tmp_path):
    games = _games(tmp_path, GAMES * 3)  # six games: numbers 0 to 5, the fifth (4) a test game
    assert TrainingGames.of(games[:4]).split == "train" and TrainingGames.of(games).split == "all"
    record = TrainingGames.of(games[:2])
    assert record.among(games) == [games[0], games[1], games[2], games[3], games[4], games[5]]  # the same two games
    assert TrainingGames.of(games[:1]).among(games) == [games[0], games[2], games[4]]


def test_the_record_round_trips_and_is_checked_when_read(tmp_path):
    record = TrainingGames.of(_games(tmp_path, GAMES))
    data = record.to_dict()
    assert data["split"] == "train" and data["game_digests"] == sorted(record.digests)
    assert TrainingGames.from_dict(data, games=2) == record
    assert TrainingGames.from_dict({"games": 2}, games=2) is None
    with pytest.raises(ValueError, match="at most 1 digests"):
        TrainingGames.from_dict(data, games=1)
    with pytest.raises(ValueError, match="must be 'train' or 'all'"):
        TrainingGames.from_dict({**data, "split": "dev"}, games=2)
    with pytest.raises(ValueError, match="16 hexadecimal digits"):
        TrainingGames.from_dict({**data, "game_digests": ["ABCDEF0123456789"]}, games=2)
    with pytest.raises(KeyError):
        TrainingGames.from_dict({"split": "train"}, games=2)
