"""``iam match``: the report match runners print, a one-sided bound for a sweep, a clock with increment."""

from __future__ import annotations

import json
import sys
from statistics import NormalDist

import chess
import pytest

from iam.cli import main
from iam.cli.match import likelihood_of_superiority, report_lines
from search.chess.match import elo_estimate, play_match

# An engine that writes every "go" line it receives to a file and plays its first legal move.
RECORDING_ENGINE = r'''
import sys
import chess
log, board = open(sys.argv[1], "a"), chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name recorder"); print("uciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
        if "moves" in words:
            for move in words[words.index("moves") + 1:]:
                board.push_uci(move)
    elif words[0] == "go":
        log.write(line); log.flush()
        print("bestmove " + next(iter(board.legal_moves)).uci(), flush=True)
    elif words[0] == "quit":
        break
'''


def test_report_of_an_even_match():
    estimate = elo_estimate(10, 5, 5)
    lines = report_lines(estimate, ("A", "B"))
    assert lines[0] == "A vs B: 20 games, W 10 / D 5 / L 5"
    assert lines[1] == "score 12.5/20 (62.5%), draw ratio 25.0%"
    assert lines[2] == (
        f"Elo difference: {round(estimate.elo):+d} "
        f"(95% interval {round(estimate.low):+d} to {round(estimate.high):+d})"
    )
    assert lines[3] == f"LOS: {NormalDist().cdf(5 / 15 ** 0.5):.1%} (likelihood that A is the stronger)"


@pytest.mark.parametrize(("wins", "losses", "side"), [(4, 0, ">"), (0, 3, "<")])
def test_a_sweep_is_a_one_sided_bound_never_infinite(wins, losses, side):
    estimate = elo_estimate(wins, 0, losses)
    text = "\n".join(report_lines(estimate, ("A", "B")))
    bound = estimate.low if side == ">" else estimate.high
    assert f"Elo difference: {side} {round(bound):+d} (one-sided 95% bound" in text
    assert "inf" not in text


def test_los():
    assert likelihood_of_superiority(3, 3) == 0.5 and likelihood_of_superiority(0, 0) == 0.5
    assert likelihood_of_superiority(9, 1) == pytest.approx(NormalDist().cdf(8 / 10 ** 0.5))


def test_a_clock_gives_the_engines_their_time_and_increment(tmp_path):
    script = tmp_path / "recorder.py"
    script.write_text(RECORDING_ENGINE)
    log = tmp_path / "go.log"
    command = [sys.executable, str(script), str(log)]
    start = chess.Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    estimate, records, _ = play_match(
        command, command, games=1, limit=chess.engine.Limit(time=1), openings=[start], clock=(7.5, 0.25)
    )
    first = log.read_text().splitlines()[0].split()
    values = dict(zip(first[1::2], first[2::2]))
    assert values["wtime"] == "7500" and values["btime"] == "7500"
    assert values["winc"] == "250" and values["binc"] == "250"
    assert estimate.games == 1


@pytest.mark.parametrize("text", ["ten", "0+1", "10+-1", "nan+1"])
def test_a_bad_clock_is_a_one_line_error(text, capsys):
    assert main(["match", "iam uci", "iam uci", "--tc", text]) == 2
    err = capsys.readouterr().err
    assert err == f"iam: error: --tc takes BASE+INC in seconds (e.g. 10+0.1), not {text!r}\n"


def test_json_has_no_infinity(tmp_path, capsys):
    from iam.cli import match

    estimate = elo_estimate(2, 0, 0)
    assert match._bound(estimate) == {"side": ">", "value": estimate.low}
    assert json.dumps([match._finite(estimate.elo), match._finite(estimate.high)]) == "[null, null]"
