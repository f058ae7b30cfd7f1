"""A small prepared tree against him with Black, as ``iam prepare`` writes it (prepared.json), for the drill's tests."""

from __future__ import annotations

import json
from pathlib import Path

import chess

from iam.prepare.exports import PREPARED_FORMAT, PREPARED_VERSION

# Our positions (cards): the start, after 1. e4 e5, after 1. e4 c5 (Nf3 or the alternative Nc3), after 1. d4 d5.
OURS = {"": ("e2e4", ["d2d4"]), "e2e4 e7e5": ("g1f3", []), "e2e4 c7c5": ("g1f3", ["b1c3"]), "d2d4 d7d5": ("c2c4", [])}
HIS = {"e2e4": [("e7e5", 0.6, True), ("c7c5", 0.3, True), ("e7e6", 0.1, False)], "d2d4": [("d7d5", 1.0, True)]}
LEAVES = ("e2e4 e7e5 g1f3", "e2e4 c7c5 g1f3", "e2e4 c7c5 b1c3", "d2d4 d7d5 c2c4")


def _fen(path: str) -> str:
    board = chess.Board()
    for uci in path.split():
        board.push_uci(uci)
    return board.fen()


def nodes() -> list[dict]:
    rows = [{"path": path, "fen": _fen(path), "our_turn": True, "value_cp": 20.0, "choice": choice,
             "alternatives": alternatives} for path, (choice, alternatives) in OURS.items()]
    rows += [{"path": path, "fen": _fen(path), "our_turn": False, "value_cp": 15.0,
              "replies": [{"move": uci, "belief": p, "games": 0, "followed": followed} for uci, p, followed in replies]}
             for path, replies in HIS.items()]
    rows += [{"path": path, "fen": _fen(path), "our_turn": False, "value_cp": 35.0, "replies": []} for path in LEAVES]
    return rows


def write_prepared(folder: Path) -> Path:
    """Write the tree into ``folder``'s prepared.json; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {"format": PREPARED_FORMAT, "version": PREPARED_VERSION, "player": "X", "judged_by": "stub",
            "sides": [{"color": "black", "nodes": nodes()}]}
    (folder / "prepared.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def prepared_at(fen: str) -> list[str]:
    """Our prepared moves at the position ``fen`` (the chosen one first)."""
    path = next(path for path in OURS if _fen(path) == fen)
    choice, alternatives = OURS[path]
    return [choice, *alternatives]


def card_of(fen: str) -> str:
    """The schedule's name of our position ``fen``."""
    return "black:" + next(path for path in OURS if _fen(path) == fen)
