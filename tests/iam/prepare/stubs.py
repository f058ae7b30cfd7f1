"""Stub predictor and scorer for the dossier's tests: beliefs and move scores given per position."""

from __future__ import annotations

import chess


def after(*ucis: str) -> chess.Board:
    """The board after ``ucis`` from the start."""
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board


class StubPredictor:
    """Beliefs given per position (by the moves that reach it); none elsewhere."""

    def __init__(self, table: dict[tuple[str, ...], dict[str, float]]) -> None:
        self.table = {
            after(*moves).epd(): {chess.Move.from_uci(m): p for m, p in beliefs.items()}
            for moves, beliefs in table.items()
        }

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        return dict(self.table.get(board.epd(), {}))


class StubScorer:
    """Move scores given per position; every legal move 0 elsewhere. Counts the positions asked for."""

    description = "stub scores"

    def __init__(self, table: dict[tuple[str, ...], dict[str, int]]) -> None:
        self.table = {
            after(*moves).epd(): {chess.Move.from_uci(m): s for m, s in scores.items()}
            for moves, scores in table.items()
        }
        self.asked: list[str] = []

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        self.asked.append(board.epd())
        return dict(self.table.get(board.epd(), {move: 0 for move in board.legal_moves}))

    def analyse_many(self, boards, progress=None) -> None:
        for board in boards:
            self.scores(board)
            if progress is not None:
                progress(1)

    def close(self) -> None:
        pass


class BatchScorer(StubScorer):
    """A :class:`StubScorer` that notes the batches it is handed and each position read outside one."""

    def __init__(self, table: dict[tuple[str, ...], dict[str, int]]) -> None:
        super().__init__(table)
        self.batches: list[list[str]] = []
        self.unbatched: list[str] = []
        self._batched: set[str] = set()

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        if board.epd() not in self._batched:
            self.unbatched.append(board.epd())
        return super().scores(board)

    def analyse_many(self, boards, progress=None) -> None:
        self.batches.append([board.epd() for board in boards])
        self._batched.update(self.batches[-1])
        super().analyse_many(boards, progress)
