"""Shape features against positions whose answers are known by hand."""

from __future__ import annotations

import chess
import pytest

from iam.evidence.shapefeatures import SHAPE_FEATURES, shape_features
from iam.priors.positions import position_of


def _row(fen: str, uci: str) -> dict[str, float]:
    position = position_of(chess.Board(fen))
    columns = shape_features(position)
    i = position.moves.index(chess.Move.from_uci(uci))
    return {name: float(columns[name][i]) for name in SHAPE_FEATURES}


def test_a_knight_fork_is_a_new_threat_and_a_double_one():
    # Nc7 attacks the queen on e8 and the rook on a8; they defend each other, but a knight
    # is cheaper than either: the queen is en prise for 9 - 3. Before, nothing was attacked.
    row = _row("r3q2k/8/8/1N6/8/8/8/7K w - - 0 1", "b5c7")
    assert row["threat_gain"] == 6.0 and row["double_threat"] == 1.0
    quiet = _row("r3q2k/8/8/1N6/8/8/8/7K w - - 0 1", "h1g1")
    assert quiet["threat_gain"] == 0.0 and quiet["double_threat"] == 0.0


def test_e4_frees_the_bishop_queen_and_knight():
    # Before: Nb1 2 squares, Ng1 2. After 1.e4: Nb1 2, Ng1 3 (e2), Bf1 5, Qd1 4: 14, a gain of 10.
    row = _row(chess.STARTING_FEN, "e2e4")
    assert row["mobility_gain"] == pytest.approx(1.0)
    assert row["enemy_mobility_gain"] == 0.0


def test_a_rook_on_the_seventh_next_to_the_king():
    # Ra7 attacks f7, g7 and h7 beside the king on g8; before, no square of its zone.
    row = _row("6k1/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a7")
    assert row["king_attack_gain"] == pytest.approx(1.0)
    assert row["rook_seventh"] == 1.0 and row["rook_open_file"] == 0.0  # same file: not a move to an open one
    assert _row("6k1/8/8/8/8/8/P7/R3K3 w - - 0 1", "a1b1")["rook_open_file"] == 1.0


def test_capturing_towards_the_centre_doubles_and_isolates():
    # cxd4 leaves pawns on d2 and d4: one doubled, two isolated (c3 and d2 defended each other).
    row = _row("4k3/8/8/8/3n4/2P5/3P4/4K3 w - - 0 1", "c3d4")
    assert row["doubled_pawns_gain"] == 1.0 and row["isolated_pawns_gain"] == 2.0
    assert row["passed_pawns_gain"] == 0.0  # no black pawn: both were passed and still are


def test_a_passed_pawn_pushed_and_a_pawn_made_passed():
    assert _row("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1", "e5e6")["passed_pawn_push"] == pytest.approx(5 / 7)
    assert _row("4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1", "e5e6")["passed_pawn_push"] == 0.0  # d7 guards its path
    # exd6 takes the pawn that stopped it: the capturing pawn is now passed (rank 6, no black pawn left).
    row = _row("4k3/8/3p4/4P3/8/8/8/4K3 w - - 0 1", "e5d6")
    assert row["passed_pawns_gain"] == 1.0


def test_black_is_seen_from_his_side():
    # The mirror image of the pawn push for Black: e4-e3 is his fifth rank to his sixth.
    assert _row("4k3/8/8/8/4p3/8/8/4K3 b - - 0 1", "e4e3")["passed_pawn_push"] == pytest.approx(5 / 7)
    assert _row("r3k2r/8/8/8/8/8/p7/4K3 b - - 0 1", "a8b8")["rook_open_file"] == 1.0
