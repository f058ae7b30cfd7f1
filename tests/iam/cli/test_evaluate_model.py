"""``iam evaluate MODEL PGN``: a saved model on the user's games; ``iam evaluate PGN`` is ``iam compare``."""

from __future__ import annotations

import json
import shutil

import numpy as np

from iam.cli import main
from iam.games.player_games import read_games
from iam.measure.predictors import load_predictor


def _json(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def test_top1_is_the_hand_count_over_every_position(quick_ranker, later_games, capsys):
    code, payload, err = _json(capsys, "evaluate", str(quick_ranker), str(later_games), "--split", "all", "--json")
    assert code == 0
    (run,) = payload["runs"]
    model = load_predictor(quick_ranker)
    games, _ = read_games([later_games], player="Botvinnik, Mikhail", quiet=True)
    hits, played = [], []
    for game in games:
        board = game.board()
        for move in game.moves:
            if board.turn == game.color:
                beliefs = model.predict_proba(board)
                hits.append(max(beliefs, key=beliefs.get) == move)
                played.append(beliefs.get(move, 0.0))
            board.push(move)
    assert run["test_positions"] == len(hits) == sum(game.player_moves for game in games)
    assert run["top1"] == np.mean(hits)
    assert run["log_loss"] == -np.mean(np.log(np.maximum(played, 1e-4)))
    assert run["predictor"] == "ranker" and payload["player"] == "Botvinnik, Mikhail"
    assert sum(band["predictions"] for band in run["bands"]) == len(hits)
    assert 'iam: games of "Botvinnik, Mikhail"' in err and "note:" not in err


def test_a_sample_of_positions_and_detection_by_content(quick_ranker, later_games, tmp_path, capsys):
    disguised = tmp_path / "model.pgn"  # the name says PGN, the content says model
    shutil.copy(quick_ranker, disguised)
    code, payload, _ = _json(
        capsys, "evaluate", str(disguised), "--pgn", str(later_games), "--max-positions", "50", "--seed", "3", "--json",
        "--quiet", "--split", "all",
    )
    assert code == 0 and payload["runs"][0]["test_positions"] == 50


def test_the_old_spelling_is_compare_with_a_note(later_games, capsys):
    argv = [
        str(later_games), "--player", "Botvinnik", "--predictor", "opening-memory", "--train-games", "all", "--json",
        "--quiet",
    ]
    code, old, err = _json(capsys, "evaluate", *argv)
    assert code == 0
    assert err.splitlines()[0].startswith("iam: note: 'iam evaluate PGN' is now 'iam compare PGN'")
    code, new, err = _json(capsys, "compare", *argv)
    assert code == 0 and "note" not in err
    assert old["runs"][0]["top1"] == new["runs"][0]["top1"] and new["runs"][0]["predictor"] == "opening-memory"


def test_a_model_without_games_is_a_one_line_error(quick_ranker, capsys):
    code, _, err = _json(capsys, "evaluate", str(quick_ranker))
    assert code == 2 and err == "iam: error: give at least one PGN file\n"


def test_a_missing_model_file_is_named_as_one(later_games, tmp_path, capsys):
    code, _, err = _json(capsys, "evaluate", str(tmp_path / "gone.json.gz"), str(later_games))
    assert code == 2 and err == f"iam: error: model file not found: {tmp_path / 'gone.json.gz'}\n"


def test_an_empty_or_damaged_model_file_is_named_as_a_model_file_not_a_pgn_file(later_games, tmp_path, capsys):
    empty, listing = tmp_path / "empty.json", tmp_path / "list.json"
    empty.write_text("")
    listing.write_text("[1, 2, 3]")
    code, _, err = _json(capsys, "evaluate", str(empty), str(later_games))
    assert code == 2 and err == f"iam: error: model file {empty} is empty\n"
    code, _, err = _json(capsys, "evaluate", str(listing), str(later_games))
    assert code == 2 and err.startswith(f"iam: error: model file {listing} is not an IAM model file")


def test_games_the_model_never_saw_are_scored_by_split_with_a_note(quick_ranker, later_games, capsys):
    """The quick ranker learnt from the first 40 bundled games; the later games are 12 others, 2 of them test games."""
    code, payload, err = _json(capsys, "evaluate", str(quick_ranker), str(later_games), "--json")
    assert code == 0 and payload["split"] == "test" and payload["test_games"] == 2
    assert payload["training_games_scored"] == 0 and "warning" not in err
    assert "iam: note: the model learnt from none of these 12 games; --split all scores every one, not only the 2 " \
        "test games" in err
