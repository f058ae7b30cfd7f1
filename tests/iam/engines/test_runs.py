"""Engine runs over games: each table row worked out from a fake UCI engine whose scores are known in advance,
the settings' checks, the summary numbers and the cache's share of the work."""

from __future__ import annotations

import math
import stat
import sys
import textwrap
from pathlib import Path

import chess
import pandas as pd
import pytest

from iam.engines.analysis import EngineError
from iam.engines.runs import COLUMNS, LOSS_CAP, AnalysisSettings, GameAnalysis, analyse_games, played_moves
from iam.games.pgn import load_player_games
from iam.runtime import Runtime

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny.pgn"
PLAYER = "Tester, Tom"


def known_score(move: chess.Move) -> int:
    """The fake engine's score of a move, from the mover's side: distinct for every non-promoting move."""
    return move.to_square * 64 + move.from_square - 2000


@pytest.fixture(scope="module")
def fake_engine(tmp_path_factory) -> str:
    """A UCI engine that scores each legal move with :func:`known_score`, one line per move; it counts its
    searches in a file beside it."""
    folder = tmp_path_factory.mktemp("engine")
    script = textwrap.dedent(
        f'''\
        #!{sys.executable}
        import sys
        import chess
        board = chess.Board()
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "uci":
                print("id name Known 1\\noption name MultiPV type spin default 1 min 1 max 500\\nuciok", flush=True)
            elif words[0] == "isready":
                print("readyok", flush=True)
            elif words[0] == "position" and words[1] == "fen":
                board = chess.Board(" ".join(words[2:8]))
            elif words[0] == "go":
                with open({str(folder / "searches")!r}, "a") as log:
                    log.write(board.epd() + "\\n")
                scored = sorted(board.legal_moves, key=lambda m: -(m.to_square * 64 + m.from_square))
                for rank, move in enumerate(scored, 1):
                    score = move.to_square * 64 + move.from_square - 2000
                    print(f"info depth 3 multipv {{rank}} score cp {{score}} pv {{move.uci()}}")
                print(f"bestmove {{scored[0].uci()}}", flush=True)
            elif words[0] == "quit":
                break
        '''
    )
    path = folder / "known"
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def searches(engine: str) -> list[str]:
    log = Path(engine).parent / "searches"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture(scope="module")
def games():
    found, _ = load_player_games([TINY], player=PLAYER)
    return found


def test_settings_keep_a_path_as_text_and_refuse_non_integers(tmp_path):
    settings = AnalysisSettings("engine", cache=tmp_path / "cache.sqlite")
    assert settings.cache == str(tmp_path / "cache.sqlite") and isinstance(settings.cache, str)
    assert (settings.depth, settings.all_moves, settings.positions_per_task) == (8, False, 16)
    for options in ({"depth": 2.0}, {"depth": -1}, {"positions_per_task": "3"}, {"positions_per_task": False}):
        with pytest.raises(ValueError, match="must be a positive integer"):
            AnalysisSettings("engine", **options)


def test_the_players_moves_are_the_positions_before_his_moves(games):
    first = games[0]  # Tiny 1: Tom has White
    moves = list(played_moves([first]))
    assert [played.ply for played in moves] == list(range(0, len(first.moves), 2))
    board = first.board()
    for ply, move in enumerate(first.moves):
        if ply % 2 == 0:
            played = moves[ply // 2]
            assert (played.game, played.move) == (first.index, move)
            assert played.board.fen() == board.fen() and played.board.move_stack == []  # the position alone
        board.push(move)


def expected_row(board: chess.Board, move: chess.Move) -> dict:
    scores = {legal: known_score(legal) for legal in board.legal_moves}
    best = max(scores, key=scores.get)
    return {
        "fen": board.fen(), "played": move.uci(), "played_san": board.san(move), "played_score": scores[move],
        "best": best.uci(), "best_san": board.san(best), "best_score": scores[best],
        "loss": scores[best] - scores[move], "rank": 1 + sum(score > scores[move] for score in scores.values()),
        "legal_moves": len(scores), "side": "white" if board.turn else "black", "move_number": board.fullmove_number,
    }


def test_every_row_is_worked_out_from_the_engines_scores(fake_engine, games):
    settings = AnalysisSettings(fake_engine, depth=3, all_moves=True, positions_per_task=4)
    analysis = analyse_games(games, settings, Runtime())
    table = analysis.moves
    assert tuple(table.columns) == COLUMNS
    every = list(played_moves(games, all_moves=True))
    assert len(table) == len(every) == sum(len(game.moves) for game in games)
    for row, played in zip(table.to_dict(orient="records"), every):
        assert (row["game"], row["ply"]) == (played.game, played.ply)
        expected = expected_row(played.board, played.move)
        assert {key: row[key] for key in expected} == expected
    assert analysis.positions == len({played.board.epd() for played in every})
    assert analysis.best_share == pytest.approx((table["rank"] == 1).mean())
    assert table["loss"].min() >= 0 and (table.loc[table["loss"] == 0, "rank"] == 1).all()


def test_a_position_met_twice_is_analysed_once_and_the_cache_serves_the_next_run(fake_engine, games, tmp_path):
    """Tiny 1 and 3 share their opening: its positions are searched once; a second run searches nothing."""
    before = len(searches(fake_engine))
    settings = AnalysisSettings(fake_engine, depth=3, cache=str(tmp_path / "cache.sqlite"), positions_per_task=3)
    first = analyse_games(games, settings, Runtime())
    searched = searches(fake_engine)[before:]
    positions = {played.board.epd() for played in played_moves(games)}
    assert first.positions == first.fresh == len(positions) == len(searched) and set(searched) == positions
    assert len(first.moves) > first.positions  # some position was met more than once
    told = []

    def progress(items, total):
        told.append(total)
        return items

    again = analyse_games(games, settings, Runtime(), progress=progress)
    assert len(searches(fake_engine)) == before + len(searched)  # nothing searched again
    assert (again.fresh, again.cached, again.positions) == (0, first.positions, first.positions)
    assert told == [math.ceil(first.positions / 3)]
    pd.testing.assert_frame_equal(again.moves, first.moves)


def test_the_task_size_does_not_change_the_table(fake_engine, games):
    tables = [analyse_games(games, AnalysisSettings(fake_engine, depth=3, positions_per_task=size), Runtime()).moves
              for size in (1, 50)]
    pd.testing.assert_frame_equal(tables[0], tables[1])


def test_no_games_give_an_empty_table_without_starting_an_engine(tmp_path):
    analysis = analyse_games([], AnalysisSettings(str(tmp_path / "no-such-engine")), Runtime())
    assert tuple(analysis.moves.columns) == COLUMNS and analysis.moves.empty
    assert (analysis.positions, analysis.fresh, analysis.cached) == (0, 0, 0)
    assert math.isnan(analysis.mean_loss) and math.isnan(analysis.best_share)


def test_a_missing_engine_is_an_engine_error(games, tmp_path):
    with pytest.raises(EngineError):
        analyse_games(games, AnalysisSettings(str(tmp_path / "no-such-engine"), depth=2), Runtime())


def test_the_mean_loss_caps_each_loss_and_the_best_share_counts_rank_one():
    table = pd.DataFrame({"loss": [0, 50, 3 * LOSS_CAP, 10], "rank": [1, 2, 9, 1]})
    analysis = GameAnalysis(moves=table, positions=3, fresh=1)
    assert analysis.mean_loss == pytest.approx((0 + 50 + LOSS_CAP + 10) / 4)
    assert analysis.best_share == 0.5 and analysis.cached == 2
