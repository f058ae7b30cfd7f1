"""The middlegame positions the speed benchmarks share (not a benchmark itself)."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent


def middlegame_positions(count: int, *, ply: int = 30) -> list[chess.Board]:
    """Boards at ``ply`` from the first ``count`` long games of the bundled Botvinnik file."""
    boards = []
    with open(ROOT / "datasets" / "Botvinnik.pgn", encoding="utf-8", errors="replace") as handle:
        while len(boards) < count and (game := chess.pgn.read_game(handle)) is not None:
            moves = list(game.mainline_moves())
            if len(moves) < 2 * ply:
                continue
            board = game.board()
            for move in moves[:ply]:
                board.push(move)
            if not board.is_game_over():
                boards.append(board)
    return boards
