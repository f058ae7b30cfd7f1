"""The chess core gives the answers recorded on 2,000 positions of the bundled masters' games.

``scripts/record_core_conformance.py`` wrote what the core answered at depth 3: the static
evaluation, the search's value, move, principal variation and node counts, and every legal
move's exact value. Every ranker figure rests on these answers, so any implementation of
the core must reproduce them to the node. The suite checks every tenth position (set
``IAM_CONFORMANCE=all`` to check all of them).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
from pathlib import Path

import chess
import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "data" / "core_conformance.json.gz"
STRIDE = 1 if os.environ.get("IAM_CONFORMANCE") == "all" else 10


def _recorder():
    path = ROOT / "scripts" / "record_core_conformance.py"
    spec = importlib.util.spec_from_file_location("record_core_conformance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _recorder()
DOCUMENT = json.loads(gzip.decompress(FIXTURE.read_bytes()))
CHECKED = DOCUMENT["positions"][::STRIDE]


def test_the_recording_covers_the_masters_and_the_rare_rules():
    """At least 2,000 distinct positions, from all six masters, castling, en passant and promotions among them."""
    positions = DOCUMENT["positions"]
    assert DOCUMENT["format"] == RECORDER.FORMAT and DOCUMENT["depth"] == RECORDER.SEARCH_DEPTH
    assert len(positions) >= 2000
    assert len({(record["base"], tuple(record["moves"])) for record in positions}) == len(positions)
    assert {record["master"] for record in positions} == set(RECORDER.MASTERS)
    assert {"castling", "en passant", "promotion"} <= {record["rule"] for record in positions}


def test_the_recorded_positions_are_legal_and_their_scores_cover_every_legal_move():
    """Each record replays to a position whose legal moves (python-chess) are exactly the scored moves."""
    for record in DOCUMENT["positions"][::7]:
        board = RECORDER.board_of(record)
        assert board.is_valid()
        assert sorted(record["scores"]) == sorted(move.uci() for move in board.legal_moves)
        assert record["move"] in record["scores"] and record["pv"][0] == record["move"]


@pytest.mark.parametrize("record", CHECKED, ids=lambda record: f"{record['master']}-{record['ply']}")
def test_the_core_answers_as_recorded(record):
    """Evaluation, value, move, line, node counts and every move's exact value are the recorded ones."""
    board = RECORDER.board_of(record)
    found = RECORDER.answers(board, DOCUMENT["depth"])
    expected = {key: record[key] for key in found}
    assert found == expected
    assert max(found["scores"].values()) == found["value"]
    assert isinstance(chess.Move.from_uci(found["move"]), chess.Move)
