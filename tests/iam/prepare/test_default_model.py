"""The dossier's default model learns from the openings of his games, the positions it is asked about;
with an engine it reads the engine's glance too."""

from __future__ import annotations

import shutil

import chess
import pytest

from iam.games.pgn import PlayerGame, load_player_games
from iam.prepare import dossier
from iam.prepare.dossier import DEFAULT_MODEL, GLANCE_FAMILIES, MODEL_PLIES, default_model_params, fit_default_model
from iam.ranker import DEFAULT_FAMILIES
from iam.runtime import Runtime

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


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


def test_with_an_engine_the_default_model_reads_its_glance(monkeypatch):
    seen = []

    def fit(self, games, runtime=None, **_):
        seen.append((self.get_params()["families"], runtime))
        return self

    monkeypatch.setattr(dossier.MoveRanker, "fit", fit)
    game = PlayerGame(
        index=0, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=(chess.Move.from_uci("e2e4"),), result="win"
    )
    fit_default_model([game], "X", quiet=True)
    fit_default_model([game], "X", quiet=True, runtime=Runtime(engine="/bin/engine", engine_cache="cache.sqlite"))
    (plain, alone), (glancing, engine) = seen
    assert tuple(plain) == DEFAULT_FAMILIES and alone.engine is None and alone.engine_cache is None
    assert tuple(glancing) == (*DEFAULT_FAMILIES, *GLANCE_FAMILIES) == (*DEFAULT_FAMILIES, "glance")
    assert (engine.engine, engine.engine_cache) == ("/bin/engine", "cache.sqlite")
    # the ranker's own families
    assert default_model_params() == DEFAULT_MODEL and default_model_params(None) == DEFAULT_MODEL


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_the_glance_model_with_stockfish(bundled_head, tmp_path):
    games, _ = load_player_games([bundled_head(4)], player="Botvinnik")
    model = fit_default_model(
        games, "Botvinnik", quiet=True, runtime=Runtime(engine=STOCKFISH, engine_cache=str(tmp_path / "cache.sqlite"))
    )
    try:
        assert "glance" in model.families_ and any(name.startswith("glance") for name in model.feature_names_)
        beliefs = model.predict_proba(chess.Board())
        assert len(beliefs) == 20 and sum(beliefs.values()) == pytest.approx(1.0)
    finally:
        model.close()
