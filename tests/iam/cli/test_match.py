"""``iam match``: games between two engines through the command line, its report lines, its option parsing,
and bad input as one error line with exit code 2."""

from __future__ import annotations

import json
import math
import shutil
import sys

import pytest

from iam.cli import main as iam_main
from iam.cli.match import _clock, _options, likelihood_of_superiority, report_lines
from iam.errors import IAMError
from search.chess.match import elo_estimate

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1"

# An engine that names itself and crashes at its first go.
CRASHING_ENGINE = """
import sys
for line in sys.stdin:
    word = (line.split() or [""])[0]
    if word == "uci":
        print("id name Flaky", flush=True)
        print("uciok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        sys.exit(3)
    elif word == "quit":
        break
"""


def test_match_cli_plays_alternating_colours_and_writes_pgn(tmp_path, capsys):
    openings = tmp_path / "mate.epd"
    openings.write_text(MATE_IN_ONE + "\n")
    pgn = tmp_path / "games.pgn"
    code = iam_main(
        ["match", "iam uci", "iam uci", "--games", "2", "--nodes", "200",
         "--openings", str(openings), "--pgn", str(pgn), "--json", "--quiet"]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    # Whoever has White mates at once: each engine wins the game it has White.
    assert (payload["wins"], payload["draws"], payload["losses"]) == (1, 0, 1)
    assert payload["score"] == 0.5 and payload["elo"] == 0
    text = pgn.read_text()
    assert text.count('[Result "1-0"]') == 2
    assert text.count("Re8#") == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["match", "no-such-engine", "iam uci"], "engine command not found"),
        (["match", "iam uci", "iam uci", "--openings", "/no/such/file.epd"], "openings file not found"),
        (["match", "iam uci", "iam uci", "--games", "0"], "--games"),
        (["match", "python3 -c pass", "iam uci", "--games", "1"], "did not start"),
        (["match", "iam uci", "iam uci", "--option-b", "Elo"], "--option-b takes NAME=VALUE"),
        (["match", "iam uci", "iam uci", "--option-b", "NoSuchOption=1"], "has no UCI option 'NoSuchOption'"),
        (["match", "iam uci", "iam uci", "--option-a", "Hash=0"], "refused its options"),
    ],
)
def test_match_cli_errors_are_one_line(argv, message, capsys):
    assert iam_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


@pytest.mark.slow
@pytest.mark.skipif(
    not (shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")),
    reason="Debian's stockfish is not installed",
)
def test_smoke_match_against_stockfish(tmp_path, capsys):
    openings = tmp_path / "endgame.epd"
    openings.write_text("8/8/8/3k4/8/8/1Q6/K7 w - - 0 1\n")  # KQK: White mates
    pgn = tmp_path / "sf.pgn"
    code = iam_main(
        ["match", "iam uci", "stockfish", "--games", "2", "--movetime", "50",
         "--openings", str(openings), "--pgn", str(pgn), "--json", "--quiet",
         "--option-b", "UCI_LimitStrength=true", "--option-b", "UCI_Elo=1350"]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert "Stockfish" in payload["engine_b"]
    assert payload["wins"] + payload["draws"] + payload["losses"] == 2
    assert pgn.read_text().count("[Event") == 2


def test_match_cli_reports_forfeits(tmp_path, capsys):
    script = tmp_path / "flaky.py"
    script.write_text(CRASHING_ENGINE)
    openings = tmp_path / "mate.epd"
    openings.write_text(MATE_IN_ONE + "\n")
    flaky = f"{sys.executable} {script}"
    code = iam_main(
        ["match", flaky, "iam uci", "--games", "1", "--nodes", "200", "--openings", str(openings),
         "--pgn", str(tmp_path / "games.pgn"), "--json", "--quiet"]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    (forfeit,) = payload["forfeits"]
    assert forfeit["game"] == 1 and forfeit["engine"] == "Flaky" and "crashed" in forfeit["reason"]
    assert "crashed" in (tmp_path / "games.pgn").read_text()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--nodes", "0"], "--nodes must be at least 1"),
        (["--movetime", "0"], "--movetime must be at least 1"),
        (["--movetime", "86400001"], "--movetime must be at most 86400000 ms"),
        (["--timeout", "0"], "--timeout must be a positive number of seconds"),
        (["--timeout", "nan"], "--timeout must be a finite number"),
        (["--tc", "ten"], "--tc takes BASE+INC"),
        (["--tc", "0+1"], "--tc takes BASE+INC"),
    ],
)
def test_numbers_the_match_cannot_be_played_with_are_one_line_errors(flags, message, capsys, tmp_path):
    """Game, node, time and clock limits out of range are refused before any engine starts."""
    assert iam_main(["match", "iam uci", "iam uci", *flags, "--pgn", str(tmp_path / "g.pgn")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "g.pgn").exists()


def test_the_clock_is_base_plus_increment_in_seconds():
    """``--tc`` reads BASE+INC (the increment may be left out); a base of 0, a day or more, or an increment
    over an hour are refused."""
    assert _clock("10+0.1") == (10.0, 0.1)
    assert _clock("60") == (60.0, 0.0)
    assert _clock("86400+3600") == (86400.0, 3600.0)
    for bad in ("0+1", "86401", "10+3601", "10+-1", "inf+0", "a+b", ""):
        with pytest.raises(IAMError, match="--tc takes BASE"):
            _clock(bad)


def test_uci_options_are_name_value_pairs():
    """``NAME=VALUE`` words become a mapping with their spaces trimmed; a word without ``=`` or without a name
    is an error naming the flag."""
    assert _options(["UCI_Elo=1500", " Hash = 16 ", "Path="], "--option-a") == {
        "UCI_Elo": "1500", "Hash": "16", "Path": ""
    }
    assert _options([], "--option-b") == {}
    for bad in ("Elo", "=5", " =5"):
        with pytest.raises(IAMError, match="--option-b takes NAME=VALUE"):
            _options([bad], "--option-b")


def test_the_likelihood_of_superiority_ignores_draws():
    """LOS is Phi((W - L) / sqrt(W + L)): 0.5 for an even or drawn match, Phi(2) for four wins."""
    assert likelihood_of_superiority(0, 0) == 0.5
    assert likelihood_of_superiority(7, 7) == 0.5
    assert likelihood_of_superiority(4, 0) == pytest.approx(0.5 * (1 + math.erf(2 / math.sqrt(2))))
    assert likelihood_of_superiority(0, 3) == pytest.approx(1 - likelihood_of_superiority(3, 0))


def test_report_lines_of_an_even_a_lost_and_a_won_match():
    """The report gives W/D/L, the score and draw ratio, the Elo difference with its interval (a one-sided bound
    for a clean sweep) and LOS, computed by hand here."""
    even = elo_estimate(10, 5, 10)
    assert report_lines(even, ("A", "B")) == [
        "A vs B: 25 games, W 10 / D 5 / L 10",
        "score 12.5/25 (50.0%), draw ratio 20.0%",
        f"Elo difference: +0 (95% interval {round(even.low):+d} to {round(even.high):+d})",
        "LOS: 50.0% (likelihood that A is the stronger)",
    ]
    assert round(even.low) == -round(even.high)
    lost = elo_estimate(0, 1, 3)  # 0.5 of 4: 400 log10(0.125 / 0.875) = -338
    lines = report_lines(lost, ("A", "B"))
    assert lines[1] == "score 0.5/4 (12.5%), draw ratio 25.0%"
    assert lines[2].startswith("Elo difference: -338 (95% interval ")
    assert lines[3] == "LOS: 4.2% (likelihood that A is the stronger)"  # Phi(-3 / sqrt(3))
    sweep = elo_estimate(4, 0, 0)
    lines = report_lines(sweep, ("A", "B"))
    assert lines[2] == (
        f"Elo difference: > {round(sweep.low):+d} (one-sided 95% bound: A won every game, so the difference has no "
        "finite estimate)"
    )
    assert lines[3] == "LOS: 97.7% (likelihood that A is the stronger)"
    assert "A won no game" in report_lines(elo_estimate(0, 0, 2), ("A", "B"))[2]
