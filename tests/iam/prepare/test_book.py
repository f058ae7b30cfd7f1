"""The polyglot book round-trips through python-chess's reader, castling and promotion included."""

from __future__ import annotations

import struct

import chess
import chess.polyglot

from iam.prepare.book import WEIGHT_SCALE, write_book


def test_round_trip(tmp_path):
    castle = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    promote = chess.Board("8/P7/8/8/8/8/8/k6K w - - 0 1")
    entries = [
        (chess.Board(), chess.Move.from_uci("e2e4"), 1.0),
        (castle, chess.Move.from_uci("e1g1"), 0.25),
        (castle, chess.Move.from_uci("e1c1"), 0.5),
        (promote, chess.Move.from_uci("a7a8n"), 0.0001),
        (chess.Board(), chess.Move.from_uci("e2e4"), 0.5),  # merged with the first
    ]
    path = tmp_path / "book.bin"
    assert write_book(entries, path) == 4
    raw = path.read_bytes()
    assert len(raw) == 4 * 16
    keys = [struct.unpack(">Q", raw[i : i + 8])[0] for i in range(0, len(raw), 16)]
    assert keys == sorted(keys)
    with chess.polyglot.open_reader(path) as reader:
        start = [(e.move, e.weight) for e in reader.find_all(chess.Board())]
        castles = {e.move: e.weight for e in reader.find_all(castle)}
        promotion = [(e.move, e.weight) for e in reader.find_all(promote)]
    assert start == [(chess.Move.from_uci("e2e4"), round(1.5 * WEIGHT_SCALE))]
    assert castles == {chess.Move.from_uci("e1g1"): 250, chess.Move.from_uci("e1c1"): 500}
    assert promotion == [(chess.Move.from_uci("a7a8n"), 1)]  # the weight never falls to 0
