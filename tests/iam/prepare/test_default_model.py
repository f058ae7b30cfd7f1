"""The dossier's default model learns from the openings of his games, the positions it is asked about."""

from __future__ import annotations

import chess

from iam.pgn import PlayerGame
from iam.prepare import dossier
from iam.prepare.dossier import DEFAULT_MODEL, MODEL_PLIES, fit_default_model


def test_the_default_model_is_fitted_on_the_first_plies_of_his_games(monkeypatch):
    seen = {}

    def fit(self, games, **_):
        seen["games"], seen["params"] = list(games), self.get_params()
        return self

    monkeypatch.setattr(dossier.MoveRanker, "fit", fit)
    board, moves = chess.Board(), []
    for _ in range(40):  # a long game: 40 plies of shuffling knights
        move = next(m for m in board.legal_moves if board.piece_type_at(m.from_square) == chess.KNIGHT)
        moves.append(move)
        board.push(move)
    long = PlayerGame(index=0, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=tuple(moves), result="draw")
    short = PlayerGame(index=1, color=chess.BLACK, start_fen=chess.STARTING_FEN, moves=tuple(moves[:6]), result="win")
    fit_default_model([long, short], "X", quiet=True)
    assert [len(game.moves) for game in seen["games"]] == [MODEL_PLIES, 6]
    assert seen["games"][0].moves == long.moves[:MODEL_PLIES] and seen["games"][1] == short
    assert seen["games"][0].result == "draw" and seen["games"][0].index == 0  # the game's record, cut short
    assert {name: seen["params"][name] for name in DEFAULT_MODEL} == DEFAULT_MODEL
