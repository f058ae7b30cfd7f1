"""``iam train``: which games it learns from, what it reports, the file it writes, and its one-line refusals.

The tiny PGN holds five usable games of "Tester" (3 as White, 2 as Black; one more game
has an illegal move): 5 + 4 + 4 + 3 + 2 = 18 of his moves.
"""

from __future__ import annotations

import json

import pytest

from iam.cli import main
from iam.models.files import read_document

TESTER_POSITIONS = 18


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_iam_model_of_the_tiny_games_reports_the_hand_counted_positions(tiny_pgn, tmp_path, capsys):
    output = tmp_path / "tester.json"
    code, out, err = _run(capsys, "train", "--predictor", "iam", str(tiny_pgn), "--player", "Tester", "-o",
                          str(output), "--json", "--quiet")
    assert code == 0 and err == ""
    summary = json.loads(out)
    assert summary["model"] == str(output) and summary["player"] == "Tester, Tom"
    assert summary["positions"] == TESTER_POSITIONS and summary["colors"] == {"white": 3, "black": 2}
    assert summary["games"]["used"] == 5 and summary["games"]["skipped"] == {"illegal move": 1}
    assert summary["games"]["spellings"] == {"Tester, Tom": 5, "Tester, T.": 1}
    assert summary["belief"] == "learned"
    chunks = summary["chunks"]
    assert chunks["occurrences"] >= chunks["distinct"] >= chunks["after_noise_filter"] >= chunks["stored"]
    assert isinstance(read_document(output), dict)  # plain JSON for a name without .gz


def test_the_split_and_max_games_choose_the_games(tiny_pgn, tmp_path, capsys):
    """--max-games 2 keeps the first two games (5 + 4 moves); --split test the game of index 4 (3 moves)."""
    code, out, _ = _run(capsys, "train", "--predictor", "iam", "--belief", "rules", str(tiny_pgn), "--player",
                        "Tester", "--max-games", "2", "-o", str(tmp_path / "two.json.gz"), "--json", "--quiet")
    assert code == 0
    summary = json.loads(out)
    assert summary["positions"] == 9 and summary["games"]["used"] == 2 and summary["belief"] == "rules"
    code, out, _ = _run(capsys, "train", "--predictor", "iam", str(tiny_pgn), "--player", "Tester", "--split", "test",
                        "-o", str(tmp_path / "test.json"), "--json", "--quiet")
    assert code == 0
    summary = json.loads(out)  # the player's fifth game (index 4, the illegal one counted) is his only test game
    assert summary["positions"] == 3 and summary["games"]["used"] == 1 and summary["colors"] == {"white": 0, "black": 1}


def test_the_readable_summary_and_the_status_lines(tiny_pgn, tmp_path, capsys):
    output = tmp_path / "tester.json.gz"
    code, out, err = _run(capsys, "train", "--predictor", "iam", str(tiny_pgn), "--player", "Tester", "-o",
                          str(output))
    assert code == 0
    assert f"positions (the player's moves): {TESTER_POSITIONS} (3 games as White, 2 as Black)" in out
    assert out.rstrip().splitlines()[-1].startswith(f"model written to {output} (")
    assert f"iam: learning from 5 games ({TESTER_POSITIONS} positions of the player) ..." in err
    assert "iam: done in" in err
    assert output.read_bytes()[:2] == b"\x1f\x8b"  # gzip for .gz


def test_a_ranker_reports_its_families_and_weights(tiny_pgn, tmp_path, capsys):
    output = tmp_path / "ranker.json.gz"
    code, out, err = _run(capsys, "train", str(tiny_pgn), "--player", "Tester", "--families", "move",
                          "--train-positions", "50", "--search-depth", "1", "-o", str(output), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["predictor"] == "ranker" and summary["families"] == ["move"]
    assert summary["positions"] == TESTER_POSITIONS and summary["residual_trees"] == 0
    assert summary["training_log_loss"] > 0 and summary["weights"]
    magnitudes = [abs(value) for value in summary["weights"].values()]
    assert magnitudes == sorted(magnitudes, reverse=True)  # strongest first
    assert f"({TESTER_POSITIONS} positions of the player, {TESTER_POSITIONS} sampled for training)" in err
    assert output.exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--max-games", "0"], "--max-games must be at least 1"),
        (["--min-games", "0"], "--min-games must be at least 1"),
        (["--min-formed-games", "-1"], "--min-formed-games cannot be negative"),
    ],
)
def test_bad_counts_are_one_line_errors(tiny_pgn, tmp_path, capsys, extra, message):
    output = tmp_path / "never.json"
    code, out, err = _run(capsys, "train", "--predictor", "iam", str(tiny_pgn), "--player", "Tester", *extra, "-o",
                          str(output))
    assert code == 2 and out == "" and err == f"iam: error: {message}\n" and not output.exists()


def test_an_unknown_player_and_a_missing_folder_are_refused(tiny_pgn, tmp_path, capsys):
    code, _, err = _run(capsys, "train", "--predictor", "iam", str(tiny_pgn), "--player", "Nobody", "-o",
                        str(tmp_path / "nobody.json"), "--quiet")
    assert code == 2 and err.startswith("iam: error: ") and err.count("\n") == 1
    missing = tmp_path / "no-such-folder" / "m.json"
    code, _, err = _run(capsys, "train", "--predictor", "iam", str(tiny_pgn), "--player", "Tester", "-o",
                        str(missing))
    assert code == 2 and err == f"iam: error: cannot write {missing}: folder {missing.parent} does not exist\n"


def test_the_player_and_the_output_are_required(tiny_pgn, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", str(tiny_pgn), "--player", "Tester"])
    assert stop.value.code == 2 and "-o/--output" in capsys.readouterr().err
