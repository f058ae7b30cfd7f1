"""``iam predict``: the position it predicts in, what it prints for it, and its one-line refusals.

The model is the IAM model of "Tester" from the tiny PGN: after 1. e4 e5 2. Nf3 Nc6 he
played 3. Bb5 in both his games that reached it, which the opening memory remembers.
"""

from __future__ import annotations

import json
from pathlib import Path

import chess
import pytest

from iam.cli import main

AFTER_NC6 = ["e4", "e5", "Nf3", "Nc6"]


@pytest.fixture(scope="module")
def tester_model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("predict") / "tester.json"
    tiny = Path(__file__).resolve().parents[2] / "data" / "tiny.pgn"
    assert main(["train", "--predictor", "iam", str(tiny), "--player", "Tester", "-o", str(path), "--quiet"]) == 0
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["predict", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys, *argv: str) -> dict:
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0 and err == ""
    return json.loads(out)


def test_the_remembered_move_is_first_and_said_in_words(tester_model, capsys):
    code, out, err = _run(capsys, str(tester_model), "--moves", *AFTER_NC6)
    board = chess.Board()
    for san in AFTER_NC6:
        board.push_san(san)
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0] == f"White to move in {board.fen()}, predicted as Tester, Tom's move"
    assert lines[1].startswith(" 1. Bb5 ") and "remembered: chosen in 2/2 games" in lines[1]


def test_the_json_lists_at_most_top_predictions_most_believed_first(tester_model, capsys):
    payload = _json(capsys, str(tester_model), "--moves", *AFTER_NC6, "--top", "2")
    assert payload["predictor"] == "iam"
    assert payload["fen"] == "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    predictions = payload["predictions"]
    assert 1 <= len(predictions) <= 2 and predictions[0]["san"] == "Bb5" and predictions[0]["move"] == "f1b5"
    beliefs = [prediction["belief"] for prediction in predictions]
    assert beliefs == sorted(beliefs, reverse=True) and all(0 < belief <= 1 for belief in beliefs)
    assert sum(beliefs) <= 1 + 1e-9
    board = chess.Board(payload["fen"])
    assert all(chess.Move.from_uci(p["move"]) in board.legal_moves for p in predictions)
    assert all(p["san"] == board.san(chess.Move.from_uci(p["move"])) for p in predictions)
    for feature in predictions[0]["features"]:
        assert set(feature) >= {"feature", "contribution", "words"}


def test_a_fen_and_the_first_game_of_a_pgn_give_their_positions(tester_model, tmp_path, capsys):
    """--fen with --moves, and --pgn with --ply, predict in the position python-chess reaches."""
    fen = "4k3/8/8/8/8/8/4P3/4K2R w K - 0 1"
    payload = _json(capsys, str(tester_model), "--fen", fen, "--moves", "O-O", "Kd7")
    board = chess.Board(fen)
    board.push_san("O-O")
    board.push_san("Kd7")
    assert payload["fen"] == board.fen()
    game = tmp_path / "game.pgn"
    game.write_text('[Event "x"]\n\n1. d4 Nf6 2. c4 e6 3. Nc3 *\n')
    after_two = _json(capsys, str(tester_model), "--pgn", str(game), "--ply", "2")
    assert after_two["fen"] == _json(capsys, str(tester_model), "--moves", "d2d4", "g8f6")["fen"]
    assert chess.Board(_json(capsys, str(tester_model), "--pgn", str(game))["fen"]).fullmove_number == 3


def _his_game_as_black(tmp_path: Path) -> Path:
    game = tmp_path / "game.pgn"
    game.write_text('[White "Other, Olga"]\n[Black "Tester, Tom"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n')
    return game


def _after_bb5() -> chess.Board:
    """The position of his game as Black after 1. e4 e5 2. Nf3 Nc6 3. Bb5: his turn."""
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5"):
        board.push_san(san)
    return board


def test_in_a_game_the_side_to_move_is_named_and_his_turn_is_predicted(tester_model, tmp_path, capsys):
    """He has Black: after ply 4 White is to move, so the prediction is for his turn after the game's 3. Bb5."""
    game = _his_game_as_black(tmp_path)
    board = _after_bb5()
    code, out, err = _run(capsys, str(tester_model), "--pgn", str(game), "--ply", "4")
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0] == (
        "after ply 4 White is to move, not Tester, Tom: the model predicts his moves only; "
        "his next turn follows the game's 3. Bb5"
    )
    assert lines[1] == f"Tester, Tom (Black) to move in {board.fen()}"
    payload = _json(capsys, str(tester_model), "--pgn", str(game), "--ply", "4")
    assert (payload["fen"], payload["to_move"], payload["player_color"]) == (board.fen(), "black", "black")
    assert payload["opponent_move"] == "3. Bb5"
    assert all(chess.Move.from_uci(p["move"]) in board.legal_moves for p in payload["predictions"])


def test_in_a_game_at_his_turn_the_position_is_the_one_asked(tester_model, tmp_path, capsys):
    game = _his_game_as_black(tmp_path)
    board = _after_bb5()
    code, out, _ = _run(capsys, str(tester_model), "--pgn", str(game), "--ply", "5")
    assert code == 0 and out.splitlines()[0] == f"Tester, Tom (Black) to move in {board.fen()}"
    assert _json(capsys, str(tester_model), "--pgn", str(game), "--ply", "5")["opponent_move"] is None
    given = _json(capsys, str(tester_model), "--pgn", str(game), "--ply", "5", "--color", "white")  # --color decides
    board.push_san("a6")
    assert (given["player_color"], given["to_move"], given["opponent_move"]) == ("white", "white", "3... a6")
    assert given["fen"] == board.fen()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--ply", "6"], "White is to move after ply 6, the game's last, not Tester, Tom (Black): the model predicts "
         "his moves only; give a --ply where he is to move"),
        ([], "White is to move after the game's last move, not Tester, Tom (Black): "),
    ],
)
def test_his_opponent_to_move_at_the_end_of_a_game_is_one_line(tester_model, tmp_path, capsys, argv, message):
    code, out, err = _run(capsys, str(tester_model), "--pgn", str(_his_game_as_black(tmp_path)), *argv)
    assert code == 2 and out == "" and err.startswith(f"iam: error: {message}") and err.count("\n") == 1


def test_a_side_given_that_is_not_to_move_is_refused(tester_model, capsys):
    code, out, err = _run(capsys, str(tester_model), "--moves", "e4", "--color", "white")
    board = chess.Board()
    board.push_san("e4")
    assert code == 2 and out == ""
    assert err == (
        f"iam: error: Black is to move in {board.fen()}, not Tester, Tom (White): the model predicts his moves only; "
        "add his opponent's move\n"
    )
    code, out, _ = _run(capsys, str(tester_model), "--moves", "e4", "--color", "black")
    assert code == 0 and out.splitlines()[0] == f"Tester, Tom (Black) to move in {board.fen()}"


def test_a_position_the_model_knows_nothing_of_is_said_so(tester_model, capsys):
    """A lone queen in the corner: no chunk of his opening games holds it, no remembered sequence leads there."""
    fen = "k7/p7/8/8/8/8/8/K5Q1 w - - 0 1"
    code, out, _ = _run(capsys, str(tester_model), "--fen", fen)
    assert code == 0 and out.splitlines() == [
        f"White to move in {fen}, predicted as Tester, Tom's move",
        "no prediction: no stored chunk or remembered sequence applies here",
    ]
    assert _json(capsys, str(tester_model), "--fen", fen)["predictions"] == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--top", "0"], "--top must be at least 1"),
        (["--fen", " "], "--fen is empty (leave it out for the standard start position)"),
        (["--fen", "not a fen"], "invalid FEN 'not a fen': "),
        (["--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], "invalid FEN '8/8/8/8/8/8/8/8 w - - 0 1': the position is not legal"),
        (["--moves", "e4", "e4"], "illegal move e4 (ply 2) in "),
        (["--moves", "hello"], "'hello' (ply 1) is not a move in SAN (Nf3) or UCI (g1f3) notation"),
        (["--fen", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"], "the game is over in 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1 (1-0)"),
        (["--moves", "f3", "e5", "g4", "Qh4#"], "the game is over in "),
        (["--ply", "3"], "--ply needs --pgn"),
    ],
)
def test_a_bad_position_is_one_line_and_exit_2(tester_model, capsys, argv, message):
    code, out, err = _run(capsys, str(tester_model), *argv)
    assert code == 2 and out == "" and err.startswith(f"iam: error: {message}") and err.count("\n") == 1


def test_a_game_and_a_position_together_are_refused(tester_model, tmp_path, capsys):
    game = tmp_path / "game.pgn"
    game.write_text('[Event "x"]\n\n1. d4 Nf6 *\n')
    code, _, err = _run(capsys, str(tester_model), "--pgn", str(game), "--moves", "e4")
    assert code == 2 and err == "iam: error: --pgn gives the position: leave out --fen and --moves\n"
    code, _, err = _run(capsys, str(tester_model), "--pgn", str(game), "--ply", "3")
    assert code == 2 and err == "iam: error: --ply must be from 0 to 2 (the game's half-moves), not 3\n"


def test_a_file_that_is_not_a_model_is_one_line(tmp_path, capsys):
    fake = tmp_path / "model.json"
    fake.write_text("[1, 2, 3]")
    code, out, err = _run(capsys, str(fake))
    assert code == 2 and out == "" and err.startswith("iam: error: ") and err.count("\n") == 1
    assert str(fake) in err
