"""Score every root move: one exact value per legal move, for several times one search.

A move ranker needs more than the best move: it needs each move's loss against the
best, so every move of the position must get an *exact* value, not a bound. A plain
alpha-beta search proves most moves worse with a narrow window and never learns by how
much; :func:`score_root_moves` instead searches every root move with a full window,
one after the other, sharing one transposition table and one move order, after an
iterative-deepening pass to ``depth - 1`` that fills both.

That costs several times one search of the same depth, not about one (the measured
ratios are in ``docs/results/search.md``; ``benchmarks/bench_scoring.py`` measures
them). The gap is the work exact values need, not overhead: where one search dismisses
a worse move with a single refutation, an exact value needs the opponent's best reply,
every other reply shown to be no better, and every capture sequence that could change
it followed to its end. Searching each move with its value known in advance, in a
window of one centipawn around it, still costs most of what the full windows cost.

It runs on the fast chess search (:mod:`search.chess.engine`) with its tapered
piece-square evaluation (:mod:`search.chess.pst`). Values are centipawns from the point
of view of the side to move on the board given (the mover). A forced mate is scored by
distance: ``MATE - p`` when the mover mates ``p`` plies from the position (a mate in one
move is ``MATE - 1``), ``-(MATE - p)`` when the mover is mated ``p`` plies from it, with
``MATE = 100_000``; any value beyond ``+-50_000`` is a mate.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

import chess

from search.chess.engine import ChessSearch

__all__ = ["score_root_moves", "RootScoreCache", "position_history_key"]


def score_root_moves(
    board: chess.Board, depth: int = 1, *, quiescence: bool = True
) -> dict[chess.Move, int]:
    """The value of every legal move of ``board``: each child searched ``depth - 1`` plies.

    ``depth=1`` scores each move by the evaluation of the position it leads to (after
    a quiescence search of captures when ``quiescence``); ``depth=2`` by the opponent's
    best reply, and so on. Values are exact (the same as one separate search per move),
    in centipawns from the mover's point of view, mates as ``+-(100_000 - plies)``.
    The board's move stack counts for repetitions. A finished game (checkmate,
    stalemate, insufficient material, fifty-move rule, threefold repetition) gives ``{}``.
    Deterministic: the same board and depth always give the same values.

    >>> import chess
    >>> scores = score_root_moves(chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"))
    >>> max(scores, key=scores.get), scores[chess.Move.from_uci("d1d5")] > 300
    (Move.from_uci('d1d5'), True)
    """
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    return ChessSearch(quiescence=quiescence).score_moves(board, depth)


def position_history_key(board: chess.Board) -> Hashable:
    """A key under which ``board`` always gets the same root scores.

    The position (pieces, side to move, castling rights, en-passant square) and the
    moves since the last capture or pawn move: only those can repeat a position, and
    their number is the fifty-move counter, so two boards with the same key score alike.
    """
    since = board.halfmove_clock
    recent = tuple(board.move_stack[-since:]) if since else ()
    return (board._transposition_key(), since, recent)


class RootScoreCache:
    """Remembers :func:`score_root_moves` by position and depth, so two users pay once.

    The value-exploiting search scores the modelled player's replies at the depth a
    move ranker scores them for its search features; with one cache between them the
    ranker's costliest family comes free. At most ``capacity`` positions are kept (the
    least recently used goes first). Not thread-safe: one per search thread.
    """

    def __init__(self, capacity: int = 20_000, *, quiescence: bool = True) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self.quiescence = quiescence
        self.hits = 0
        self.misses = 0
        self.nodes = 0
        """Nodes (quiescence included) the scores computed here cost."""
        self._scores: OrderedDict[Hashable, dict[chess.Move, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._scores)

    def deepest(self, board: chess.Board, otherwise: int = 1) -> dict[chess.Move, int]:
        """The deepest scores of ``board`` already known (up to depth 8), else its scores at ``otherwise``.

        For a reader that takes whatever a predictor sharing the cache paid for.
        """
        key = position_history_key(board)
        known = [depth for depth in range(1, 9) if (key, depth) in self._scores]
        return self.scores(board, known[-1] if known else otherwise)

    def scores(self, board: chess.Board, depth: int, *, deadline: float | None = None) -> dict[chess.Move, int]:
        """:func:`score_root_moves` of ``board`` at ``depth``, from the cache when known.

        A scoring not finished by ``deadline`` raises :class:`TimeoutError` and is not kept.
        """
        key = (position_history_key(board), depth)
        found = self._scores.get(key)
        if found is not None:
            self.hits += 1
            self._scores.move_to_end(key)
            return dict(found)
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.misses += 1
        search = ChessSearch(quiescence=self.quiescence)  # fresh: the same values as score_root_moves
        try:
            found = search.score_moves(board, depth, deadline=deadline)
        finally:
            self.nodes += search.nodes + search.qnodes
        self._scores[key] = found
        if len(self._scores) > self.capacity:
            self._scores.popitem(last=False)
        return dict(found)
