"""Record what the chess core answers on positions of the bundled games, for the conformance test.

The fast chess search (:mod:`search.chess.engine`) is the ground every ranker figure
stands on. This script writes, for a fixed sample of positions from the six bundled
masters' games, what the core gives at fixed depth: the static evaluation, the search's
value, move, principal variation and node counts, and every legal move's exact value
(:func:`search.chess.scoring.score_root_moves`, the ranker's search family). Any other
implementation of the core must give the same answers
(``tests/search/chess/test_core_conformance.py``).

Each position keeps the moves since its game's last capture or pawn move, so the
repetition rules see what they saw in the game. The sample is fixed by its seed; the
positions just before an en-passant capture, a promotion and a castling move are added
on purpose, since a random sample rarely holds them.

    python scripts/record_core_conformance.py                  # writes tests/data/core_conformance.json.gz
    python scripts/record_core_conformance.py --positions 50   # a quick look
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from iam._install import __version__  # noqa: E402
from search import Limits  # noqa: E402
from search.chess.board import Position  # noqa: E402
from search.chess.engine import ChessSearch  # noqa: E402
from search.chess.scoring import score_root_moves  # noqa: E402

MASTERS = ("Alekhine", "Botvinnik", "Capablanca", "Lasker", "Smyslov", "Spassky")
OUT = ROOT / "tests" / "data" / "core_conformance.json.gz"
SEED = 2026
SEARCH_DEPTH = 3
"""Depth of the recorded searches and root scores (the ranker's default search depth)."""
FORMAT = "iam-core-conformance"
VERSION = 1


def _special(board: chess.Board, move: chess.Move) -> str | None:
    """The rule ``move`` exercises, if it is one a random sample rarely holds."""
    if board.is_en_passant(move):
        return "en passant"
    if move.promotion:
        return "promotion"
    if board.is_castling(move):
        return "castling"
    return None


def _record_of(board: chess.Board) -> dict:
    """The position as its last irreversible position and the moves since."""
    since = board.halfmove_clock
    base = board.copy()
    for _ in range(since):
        base.pop()
    return {"base": base.fen(), "moves": [move.uci() for move in board.move_stack[len(board.move_stack) - since:]]}


def sample_positions(count: int, seed: int = SEED) -> list[dict]:
    """``count`` positions from the bundled games: a seeded sample plus the rare rules' positions."""
    rng = np.random.default_rng(seed)
    per_master = -(-count // len(MASTERS))
    chosen: list[dict] = []
    seen: set[str] = set()
    for master in MASTERS:
        taken = specials = 0
        with open(ROOT / "datasets" / f"{master}.pgn", encoding="utf-8", errors="replace") as handle:
            while taken < per_master:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                board = game.board()
                moves = list(game.mainline_moves())
                picks = set(rng.choice(len(moves), size=min(2, len(moves)), replace=False).tolist()) if moves else set()
                for ply, move in enumerate(moves):
                    rare = _special(board, move)
                    wanted = ply in picks and ply >= 4 or (rare is not None and specials < per_master // 10)
                    if wanted and board.fen() not in seen and not board.is_game_over(claim_draw=True):
                        seen.add(board.fen())
                        chosen.append({"master": master, "ply": ply, "rule": rare, **_record_of(board)})
                        taken += 1
                        specials += rare is not None
                        if taken >= per_master:
                            break
                    board.push(move)
    return chosen[:count]


def board_of(record: dict) -> chess.Board:
    """The recorded position with its moves since the last irreversible one."""
    board = chess.Board(record["base"])
    for move in record["moves"]:
        board.push_uci(move)
    return board


def answers(board: chess.Board, depth: int = SEARCH_DEPTH) -> dict:
    """What the core gives on ``board``: evaluation, the search's answer and every move's value."""
    search = ChessSearch()
    result = search.search(board, Limits(depth=depth))
    scorer = ChessSearch()
    scores = scorer.score_moves(board, depth)
    if scores != score_root_moves(board, depth):
        raise AssertionError(f"score_root_moves differs from a fresh search's scores on {board.fen()}")
    return {
        "evaluation": Position.from_board(board).evaluate(),
        "value": result.value,
        "move": result.move.uci() if result.move else None,
        "pv": [move.uci() for move in result.pv],
        "nodes": result.nodes,
        "qnodes": result.qnodes,
        "score_nodes": scorer.nodes + scorer.qnodes,
        "scores": {move.uci(): value for move, value in sorted(scores.items(), key=lambda item: item[0].uci())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    records = sample_positions(args.positions)
    for number, record in enumerate(records, 1):
        record.update(answers(board_of(record)))
        if number % 100 == 0:
            print(f"{number}/{len(records)} positions, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    document = {"format": FORMAT, "version": VERSION, "recorded_with": __version__, "seed": SEED,
                "depth": SEARCH_DEPTH, "positions": records}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(args.out, "wb", mtime=0) as handle:
        handle.write(json.dumps(document, separators=(",", ":")).encode())
    rules = {rule: sum(record["rule"] == rule for record in records) for rule in ("en passant", "promotion",
                                                                                  "castling")}
    print(f"{len(records)} positions ({rules}) -> {args.out} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
