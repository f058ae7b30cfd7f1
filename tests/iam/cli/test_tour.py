"""The README's five-minute tour, run as a user runs it: the installed command on a small PGN file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from iam.games.bundled import default_pgn

pytestmark = pytest.mark.slow


def _iam(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "iam", *argv], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (argv, done.stderr)
    assert "Traceback" not in done.stderr
    return done


def test_the_tour(tmp_path):
    games = default_pgn().read_text(encoding="utf-8").split("[Event ")[1:]
    (tmp_path / "games.pgn").write_text("".join("[Event " + game for game in games[:20]), encoding="utf-8")
    (tmp_path / "test-games.pgn").write_text("".join("[Event " + game for game in games[100:112]), encoding="utf-8")
    (tmp_path / "game.pgn").write_text("[Event " + games[200], encoding="utf-8")

    trained = _iam(
        tmp_path, "train", "games.pgn", "--player", "Botvinnik, Mikhail", "--train-positions", "200",
        "--search-depth", "1", "-o", "botvinnik.json.gz",
    )
    assert (tmp_path / "botvinnik.json.gz").is_file()
    assert 'iam: games of "Botvinnik, Mikhail" (' in trained.stderr
    learning = r"iam: learning from 20 games \(\d+ positions of the player, 200 sampled for training\)"
    assert re.search(learning, trained.stderr)
    assert re.search(r"iam: done in \d+ s", trained.stderr)
    assert "model written to botvinnik.json.gz" in trained.stdout

    predicted = _iam(tmp_path, "predict", "botvinnik.json.gz", "--moves", "d4", "Nf6", "c4", "e6", "--top", "3")
    lines = predicted.stdout.splitlines()
    fen = "rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3"
    assert lines[0] == f"White to move in {fen}, predicted as Botvinnik, Mikhail's move"
    assert [line[:4] for line in lines[1:]] == [" 1. ", " 2. ", " 3. "]
    beliefs = [float(re.search(r"(\d+\.\d)%", line).group(1)) for line in lines[1:]]
    assert beliefs == sorted(beliefs, reverse=True)

    annotated = _iam(tmp_path, "annotate", "game.pgn", "--model", "botvinnik.json.gz", "--out", "annotated.pgn")
    with open(tmp_path / "annotated.pgn", encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    black = [node for node in game.mainline() if not node.parent.board().turn]  # Botvinnik has Black in this game
    assert game.headers["Black"] == "Botvinnik, Mikhail"
    comment = r"belief \d\.\d\d; expected \S+ \d\.\d\d; surprise \d+\.\d bits"
    assert all(re.fullmatch(comment, node.comment) for node in black)
    assert f"{len(black)} moves" in annotated.stdout and "mean surprise" in annotated.stdout

    inspected = _iam(tmp_path, "inspect", "botvinnik.json.gz")
    assert inspected.stdout.startswith("move ranker of Botvinnik, Mikhail: trained on 20 games, 200 positions")
    assert "strongest evidence" in inspected.stdout and "opening memory:" in inspected.stdout

    evaluated = _iam(
        tmp_path, "evaluate", "botvinnik.json.gz", "test-games.pgn", "--player", "Botvinnik, Mikhail",
        "--max-positions", "200", "--split", "all",
    )
    assert evaluated.stdout.startswith("# Botvinnik, Mikhail: botvinnik.json.gz on the given games")
    assert ", 200 positions (games read: 12" in evaluated.stdout
    row = next(line for line in evaluated.stdout.splitlines() if line.startswith("| ranker"))
    top1 = float(row.split("|")[4])
    assert 0.2 < top1 < 0.8  # a model of the player, not a random mover (about 0.03) nor a memorised file
    assert "warning" not in evaluated.stderr  # other games than those it was trained on
