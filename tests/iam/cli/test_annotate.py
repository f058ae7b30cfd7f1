"""``iam annotate``: the model's belief in every move of the player, as PGN comments and a table."""

from __future__ import annotations

import io
import json
import math
import re

import chess
import chess.pgn

from iam.cli import main
from iam.measure.predictors import load_predictor

COMMENT = re.compile(r"belief (\d\.\d\d); expected (\S+) (\d\.\d\d); surprise (\d+\.\d) bits")


def test_beliefs_are_the_models_and_the_comments_say_them(quick_ranker, later_games, tmp_path, capsys):
    out = tmp_path / "annotated.pgn"
    code = main(["annotate", str(later_games), "--model", str(quick_ranker), "--out", str(out), "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    model = load_predictor(quick_ranker)
    stream = io.StringIO(out.read_text())
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    assert len(games) == len(payload["games"]) == 12
    for game, annotated in zip(games, payload["games"]):
        color = chess.WHITE if "Botvinnik" in game.headers["White"] else chess.BLACK
        board = game.board()
        judged = iter(annotated["moves"])
        for node in game.mainline():
            if board.turn == color:
                entry = next(judged)
                beliefs = model.predict_proba(board)
                top = max(beliefs, key=beliefs.get)
                assert entry["move"] == board.san(node.move)
                assert entry["belief"] == beliefs.get(node.move, 0.0)
                assert entry["expected"] == board.san(top) and entry["expected_belief"] == beliefs[top]
                assert entry["surprise"] == -math.log2(max(entry["belief"], 1e-4))
                found = COMMENT.search(node.comment)
                assert found and float(found.group(1)) == round(entry["belief"], 2)
                assert found.group(2) == entry["expected"]
            else:
                assert "belief" not in node.comment
            board.push(node.move)
        assert next(judged, None) is None


def test_the_side_by_colour_and_a_table_on_stderr(quick_ranker, later_games, capsys):
    code = main(["annotate", str(later_games), "--model", str(quick_ranker), "--color", "white"])
    captured = capsys.readouterr()
    assert code == 0
    first = chess.pgn.read_game(io.StringIO(captured.out))
    commented = [node for node in first.mainline() if node.comment]
    assert commented and all(node.parent.board().turn == chess.WHITE for node in commented)
    assert "mean surprise" in captured.err and "1. " in captured.err


def test_a_game_without_the_player_is_a_one_line_error(quick_ranker, tiny_pgn, capsys):
    code = main(["annotate", str(tiny_pgn), "--model", str(quick_ranker)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err == (  # the tiny file's game with an illegal move is counted too
        "iam: error: no game to annotate (illegal or unreadable move: 1; 'Botvinnik, Mikhail' plays neither side "
        "(give --color): 6)\n"
    )


def test_unreadable_games_are_skipped_and_counted(quick_ranker, tiny_pgn, capsys):
    code = main(["annotate", str(tiny_pgn), "--model", str(quick_ranker), "--color", "white", "--json"])
    captured = capsys.readouterr()
    assert code == 0 and len(json.loads(captured.out)["games"]) == 6
    assert captured.err == "iam: 1 games skipped ({'illegal or unreadable move': 1})\n"
