"""What the commands probe (tests/fuzz/commands.py) found, each kept fixed by a test of its own."""

from __future__ import annotations

import chess
import pytest

from search.chess import match


def test_an_engine_that_never_says_uciok_is_refused_with_the_reason(tmp_path, monkeypatch):
    garbage = tmp_path / "garbage.sh"
    garbage.write_text("#!/bin/sh\nwhile read l; do echo 'zzz %%% bestmove'; done\n")
    garbage.chmod(0o755)
    monkeypatch.setattr(match, "_START_TIMEOUT", 1.0)
    engines: list = []
    with pytest.raises(match.MatchError, match=r"did not start as UCI: no uciok in time$"):
        match._start_engines(([str(garbage)], [str(garbage)]), ({}, {}), engines)


def test_the_gain_figure_of_no_entered_game_says_so_without_a_warning():
    """``iam experiment prepare`` on a file where no test game enters a line printed matplotlib's legend warning."""
    import warnings

    import pandas as pd

    from experiments.prepare import gain_figure

    games = pd.DataFrame({"entered": [False], "color": ["white"], "reference_value": [0.0], "exit_value": [0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = gain_figure(games)
    assert [text.get_text() for text in figure.axes[0].texts] == ["no test game entered a prepared line"]


def test_an_engine_command_with_an_unclosed_quote_is_one_error():
    """``iam match "'unclosed" "iam uci"`` printed shlex's ValueError as a traceback."""
    with pytest.raises(match.MatchError, match=r"engine command \"'unclosed\" cannot be read: No closing quotation"):
        match.engine_command("'unclosed")


def test_random_bytes_named_pgn_are_no_openings(tmp_path):
    """``iam match`` and ``iam evolve --openings`` read 5,000 random bytes as games from the initial position."""
    import random

    garbage = tmp_path / "garbage.pgn"
    garbage.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(5000)))
    with pytest.raises(match.MatchError, match="has no tag pair and no move"):
        match.load_openings(garbage)
    moves_only = tmp_path / "moves.pgn"
    moves_only.write_text("1. e4 e5 *\n\n[Event \"x\"]\n\n*\n")
    assert [board.fen() for board in match.load_openings(moves_only)][1:] == [chess.STARTING_FEN]
