"""The policy networks' data: both sides of each game once, and nothing of a left-out master."""

import chess
import numpy as np
import pytest

from iam.evidence.policy_data import join_tables, leave_out, side_positions
from iam.games.pgn import PlayerGame


def _game(index: int, color: chess.Color, moves: str, white: str, black: str) -> PlayerGame:
    board = chess.Board()
    played = tuple(board.push_san(san) for san in moves.split())
    return PlayerGame(
        index=index, color=color, start_fen=chess.STARTING_FEN, moves=played, result="draw", white=white, black=black
    )


# Alpha's file: a game against Beta (also in Beta's file) and one against a stranger.
SHARED = "e4 e5 Nf3 Nc6 Bb5"
ALPHA = [
    _game(0, chess.WHITE, SHARED, "Alpha, A.", "Beta, B."),
    _game(1, chess.BLACK, "d4 d5 c4", "Stranger", "Alpha, A."),
]
BETA = [
    _game(0, chess.BLACK, SHARED, "Alpha, A.", "Beta, B."),
    _game(1, chess.WHITE, "c4 e5 g3 Nf6", "Beta, B.", "Alpha, A"),
]


def _sides():
    seen: set = set()
    return [
        side_positions(master, side, games, seen)
        for master, games in (("Alpha", ALPHA), ("Beta", BETA))
        for side in ("own", "opponents")
    ]


def test_each_side_of_a_shared_game_is_taken_once():
    sides = _sides()
    counts = {(s.master, s.side): s.table.positions for s in sides}
    # Alpha's own moves: 3 (e4 Nf3 Bb5) + 1 (d5); his opponents': 2 (e5 Nc6) + 2 (d4 c4).
    # Beta's file: the shared game's sides are both taken already; his second game gives 2 and 2.
    assert counts == {("Alpha", "own"): 4, ("Alpha", "opponents"): 4, ("Beta", "own"): 2, ("Beta", "opponents"): 2}
    everything = join_tables([s.table for s in sides])
    assert everything.positions == 12
    assert np.all((everything.played >= everything.starts[:-1]) & (everything.played < everything.starts[1:]))


def test_leaving_a_master_out_drops_his_games_and_every_move_of_his():
    sides = _sides()
    without_alpha = [leave_out(side, "Alpha", ALPHA) for side in sides]
    # Alpha's file is gone, and in Beta's second game only Beta's own moves remain:
    # Alpha's replies there bear his name (spelled "Alpha, A" without the full stop).
    assert [t.positions for t in without_alpha] == [0, 0, 2, 0]
    movers = [mover for side in sides for mover in side.movers]
    assert sum("Alpha" in mover for mover in movers) == 3 + 1 + 2  # what there was to drop
    without_beta = [leave_out(side, "Beta", BETA) for side in sides]
    # Beta's file holds the shared game; Alpha's game against the stranger stays, both sides.
    assert [t.positions for t in without_beta] == [1, 2, 0, 0]
    kept = without_beta[0]
    assert kept.played[0] - kept.starts[0] == sides[0].table.played[-1] - sides[0].table.starts[-2]


def test_a_side_must_be_named():
    with pytest.raises(ValueError, match="side"):
        side_positions("Alpha", "both", ALPHA, set())
