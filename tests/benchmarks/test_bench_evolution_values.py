"""The evolution values benchmark's commands that write start positions: two files mixed in turn, and the
imbalance kinds chosen."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import chess
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_evolution_values.py"
_spec = importlib.util.spec_from_file_location("bench_evolution_values", SCRIPT)
bench = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench
_spec.loader.exec_module(bench)


def test_mix_writes_both_files_positions_in_turn_and_skips_blank_lines(tmp_path, capsys):
    first, second, out = tmp_path / "a.epd", tmp_path / "b.epd", tmp_path / "mixed.epd"
    first.write_text("o1\no2\n\n", encoding="utf-8")
    second.write_text("i1\ni2\ni3\ni4\n", encoding="utf-8")
    assert bench.main(["mix", str(first), str(second), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == ["o1", "i1", "i2", "o2", "i3", "i4"]
    assert bench.main(["mix", str(first), str(second), "--take", "2", "1", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == ["o1", "o2", "i1", "i2", "i3", "i4"]
    assert "6 positions written" in capsys.readouterr().out


@pytest.mark.parametrize("kind", bench.MORE_PAWNS)
def test_more_pawns_takes_more_pawns_or_a_piece_and_pawns_for_the_piece(kind):
    worth = {"P": 1, "N": 3, "B": 3, "R": 5}
    # counting pawn 1, knight and bishop 3, rook 5, the pawn side gets at least the piece's worth (the standard
    # imbalances' knight against two pawns and exchange against a pawn do not)
    assert sum(worth[letter] for letter in kind.piece_side_loses) >= worth[kind.pawn_side_loses]
    assert set(kind.piece_side_loses) - {"P"} <= {"N", "B"} and kind.pawn_side_loses in ("N", "B", "R")


def test_the_kinds_option_chooses_the_imbalances(tmp_path, monkeypatch):
    chosen = []
    monkeypatch.setattr(bench, "manifest", lambda: [])
    monkeypatch.setattr(bench, "imbalance_positions",
                        lambda players, **kwargs: chosen.append(kwargs["imbalances"]) or [chess.STARTING_FEN])
    for kinds in ("standard", "more-pawns"):
        assert bench.main(["imbalances", "--kinds", kinds, "--out", str(tmp_path / "out.epd")]) == 0
    assert chosen == [bench.IMBALANCES, bench.MORE_PAWNS]
    with pytest.raises(SystemExit):
        bench.main(["imbalances", "--kinds", "fewer", "--out", str(tmp_path / "out.epd")])
