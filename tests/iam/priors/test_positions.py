"""Positions of the modelled player: every one of them, or a seeded sample, labelled correctly."""

from __future__ import annotations

import chess

from iam.priors.positions import count_player_moves, player_positions, position_of


def test_all_positions_are_the_players_and_labelled_with_his_move(botvinnik_games):
    games = botvinnik_games[:6]
    positions = player_positions(games)
    assert len(positions) == count_player_moves(games).sum()
    by_index = {game.index: game for game in games}
    for position in positions:
        game = by_index[position.game]
        assert position.board.turn == game.color
        assert position.played_move == game.moves[position.ply]
        assert list(position.moves) == sorted(position.board.legal_moves, key=chess.Move.uci)


def test_a_sample_is_seeded_and_a_subset(botvinnik_games):
    games = botvinnik_games[:20]
    every = {(p.game, p.ply) for p in player_positions(games)}
    first = [(p.game, p.ply) for p in player_positions(games, sample=50, random_state=4)]
    again = [(p.game, p.ply) for p in player_positions(games, sample=50, random_state=4)]
    other = [(p.game, p.ply) for p in player_positions(games, sample=50, random_state=5)]
    assert first == again and first != other
    assert len(set(first)) == 50 and set(first) <= every


def test_a_live_board_has_no_label():
    position = position_of(chess.Board())
    assert position.played == -1 and position.played_move is None and len(position.moves) == 20
