"""The bundled tactics suite is what its builder promises: 300 legal positions, one best move each."""

import re
from pathlib import Path

import chess

SUITE = Path(__file__).resolve().parents[3] / "benchmarks" / "tactics.epd"


def test_every_position_is_valid_with_a_legal_best_move_and_a_two_pawn_gap():
    lines = SUITE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 300
    seen = set()
    for line in lines:
        board, operations = chess.Board.from_epd(line)
        assert board.is_valid() and not board.is_game_over()
        (best,) = operations["bm"]
        assert best in board.legal_moves
        best_cp, second_cp = map(int, re.search(r"best ([+-]\d+) cp, second ([+-]\d+) cp", operations["c0"]).groups())
        assert best_cp - second_cp >= 200 and second_cp <= 150
        seen.add(board.epd())
    assert len(seen) == len(lines)
