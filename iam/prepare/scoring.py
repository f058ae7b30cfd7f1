"""What a position is worth: its moves scored, by a UCI engine or by the toolkit's own search.

The dossier judges habits and prepared lines with one :class:`MoveScorer`: a
:class:`EngineScorer` (a UCI engine through :class:`~iam.engines.analysis.EngineAnalyser`
and its on-disk cache) when an engine is given, else a :class:`SearchScorer` (this
project's alpha-beta with quiescence on :class:`search.chess.engine.ChessSearch`).
Scores are centipawns from the side to move's point of view, mates as
``+-(MATE_SCORE - moves)``, so the two are interchangeable. Both score only their
best few moves by default; :func:`move_score` values any other move, the own search
by one more search of that move alone (its exact value at the same depth), an engine
by the position it leads to, so callers never need every legal move scored.

>>> import chess
>>> scorer = SearchScorer(depth=1)
>>> position_value(scorer, chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
-100000
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import chess

from iam.engines.analysis import MATE_SCORE, MAX_CENTIPAWNS, EngineAnalyser
from search.chess.engine import ChessSearch
from search.chess.scoring import score_root_moves
from search.result import Limits, SearchResult

__all__ = [
    "MoveScorer", "SearchScorer", "EngineScorer", "move_score", "position_value", "score_all", "decided",
    "beyond_lines", "JudgeAgreement", "JUDGE_AGREEMENT", "JUDGE_REFERENCE", "DEFAULT_JUDGE_DEPTH", "MAX_JUDGE_DEPTH",
    "OWN_FIRST_MOVES", "FIRST_MOVE_TARGET", "best_root_moves", "one_move_value", "value_all",
]


@dataclass(frozen=True)
class JudgeAgreement:
    """How the own search's "costly" flag (a loss of at least 50 centipawns) agrees with :data:`JUDGE_REFERENCE`."""

    precision: float
    """Of the moves it flags (the masters' moves and others drawn at random), the share the reference flags too."""
    recall: float
    """Of the moves the reference flags, the share it flags."""
    played_precision: float
    """Of the masters' own moves it flags, the share the reference flags too: the habits' case."""


JUDGE_REFERENCE = "Stockfish 15.1 at depth 16"
JUDGE_AGREEMENT = {
    1: JudgeAgreement(precision=0.881, recall=0.622, played_precision=0.250),
    2: JudgeAgreement(precision=0.883, recall=0.635, played_precision=0.250),
    3: JudgeAgreement(precision=0.893, recall=0.635, played_precision=0.238),
    4: JudgeAgreement(precision=0.924, recall=0.631, played_precision=0.312),
    5: JudgeAgreement(precision=0.931, recall=0.647, played_precision=0.267),
    6: JudgeAgreement(precision=0.935, recall=0.639, played_precision=0.286),
}
"""Per depth of the own search, its agreement with :data:`JUDGE_REFERENCE` on 600 moves of 300 development
positions (297 distinct) of the six bundled masters (their move and one other in each; 14 to 24 of their 300 own
moves flagged, 15 costly by the reference). Regenerate with
``iam experiment judge-depth --engine /usr/games/stockfish --out results/judge-depth`` (table
``judge_agreement.csv``, kept in docs/results/data/; docs/results/search.md, "Spending the speed")."""

MAX_JUDGE_DEPTH = 12
"""The deepest own search a dossier may ask for: each ply costs a few times the one before, and depth 12 already
takes minutes a position (a larger depth would look like a hang)."""

DEFAULT_JUDGE_DEPTH = 6
"""The own search's depth when no engine judges, by the rule fixed before measuring
(:func:`experiments.development.habit_verdicts.choose_depth`): of depths 4, 5 and 6, those spending at most 60 CPU
seconds a side of a dossier (median of the bundled masters' twelve sides) are candidates, and the shallowest whose
first move is Stockfish's for 5 of the 6 masters with each colour is chosen, else the one with the most in its
weaker colour. Depth 6 met the target from the start but spent 87 s (median; depth 5 18 s, 4 of 6 in its weaker
colour, depth 4 3; table ``docs/results/data/habit_verdicts_judge.csv``), 72.5 s with the best moves found in one
pass (``habit_verdicts_judge_one_pass.csv``) and 52.3 s with the searches deepening two plies at a time, the same
values and first moves (``habit_verdicts_judge_two_plies.csv``), so depth 6 is chosen ("The own search as a judge"
to "Deepening by two plies" in docs/results/prepare.md)."""


OWN_FIRST_MOVES: dict[bool, tuple[int, int]] = {True: (5, 6), False: (6, 6)}
"""Per his colour (True: White), of the six bundled masters, how many dossiers from their development games judged
by the own search (:data:`DEFAULT_JUDGE_DEPTH`) recommended the first move of ours the same dossier judged by
Stockfish 15.1 at depth 12 did, out of how many (``scripts/habit_verdicts.py``; "The own search as a judge" in
docs/results/prepare.md). Fewer than 5 of 6 and the page says its first move is a weaker judge's."""
FIRST_MOVE_TARGET = 5
"""Masters of six whose first move must be the engine dossier's for the own search's first move to stand alone."""


class MoveScorer(Protocol):
    """Scores the moves of a position, from the side to move's point of view.

    ``scores(board)`` may hold only the best moves (at least the best one, for a
    position with legal moves; none without): ask :func:`move_score` for any other
    move, and :func:`position_value` for the position.
    """

    @property
    def description(self) -> str: ...

    def scores(self, board: chess.Board) -> dict[chess.Move, int]: ...

    def analyse_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Score ``boards`` ahead of use, so later :meth:`scores` calls are lookups."""
        ...


class SearchScorer:
    """The toolkit's own search at a fixed depth; each position searched once (kept by EPD).

    ``lines`` ``k`` scores the search's best ``k`` moves of each position exactly
    (:func:`best_root_moves`, with every move tied with the ``k``-th), None
    every legal move (:func:`~search.chess.scoring.score_root_moves`). Any other move a
    caller asks about (:func:`move_score`: his usual move, a move his opponents played)
    is scored alone (:meth:`score_move`, :func:`one_move_value`), and a position whose
    moves are not asked for is valued by one search (:meth:`value`), so every value read
    is the one scoring every move would give: the same exact alpha-beta to the same
    depth, at a fraction of its cost (most moves are only proved worse than the best
    one). ``seconds`` and ``searches`` count the CPU time and the searches spent so far.

    Its description says how far its verdicts agree with a strong engine at its depth (:data:`JUDGE_AGREEMENT`).
    """

    first_move_agreement = OWN_FIRST_MOVES
    """How often its recommended first move was the engine dossier's on the bundled masters, by his colour."""
    judges_habits = False
    """The own search is not trusted with his costly habits: on the bundled masters' development games, too few of
    the habits a dossier without an engine listed had the cost Stockfish 15.1 at depth 16 gives them (within 30
    centipawns, the same sign; 80% needed: 10% at depth 4, 15% at depth 5, not measured at depth 6), so a dossier
    without an engine leaves them out ("The own search as a judge" and "One pass for the best moves" in
    docs/results/prepare.md, ``scripts/habit_verdicts.py --habits``)."""

    def __init__(self, depth: int = DEFAULT_JUDGE_DEPTH, *, lines: int | None = 3) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        if lines is not None and lines < 2:
            raise ValueError(f"lines must be at least 2 (or None: every move), not {lines}")
        self.depth = depth
        self.lines = lines
        self.seconds = 0.0
        """CPU seconds its searches took so far."""
        self.searches = 0
        """Searches so far: one per position scored, one per move scored alone."""
        self._known: dict[str, dict[chess.Move, int]] = {}
        self._alone: dict[tuple[str, chess.Move], int] = {}
        self._values: dict[str, int] = {}

    @property
    def description(self) -> str:
        text = f"the toolkit's own search (alpha-beta with quiescence, depth {self.depth})"
        agreement = JUDGE_AGREEMENT.get(self.depth)
        if agreement is None:
            return text
        return (
            f"{text}: checked on masters' games, {agreement.played_precision:.0%} of their own moves it judged to "
            f"lose 50 centipawns or more did by {JUDGE_REFERENCE} ({agreement.precision:.0%} of all moves it "
            f"judged so), so it does not judge his costly habits"
        )

    @property
    def positions(self) -> int:
        """Positions scored or valued so far."""
        return len(self._known.keys() | self._values.keys())

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        key = board.epd()
        if key not in self._known:
            started = time.process_time()
            position = board.copy(stack=False)
            found = (
                score_root_moves(position, self.depth) if self.lines is None
                else best_root_moves(position, self.depth, self.lines)
            )
            self._spent(started)
            self._known[key] = found
        return self._known[key]

    def score_move(self, board: chess.Board, move: chess.Move) -> int:
        """The exact value of legal ``move`` at the scorer's depth: from :meth:`scores` when there, else searched
        alone (kept)."""
        known = self.scores(board)
        if move in known:
            return known[move]
        key = (board.epd(), move)
        if key not in self._alone:
            started = time.process_time()
            self._alone[key] = one_move_value(board.copy(stack=False), move, self.depth)
            self._spent(started)
        return self._alone[key]

    def value(self, board: chess.Board) -> int:
        """The position's value for the side to move (a position with legal moves): its best move's score, from
        :meth:`scores` when known, else from one search of the position (kept;
        :meth:`~search.chess.engine.ChessSearch.value`, deepening two plies at a time)."""
        key = board.epd()
        if key in self._known:
            return max(self._known[key].values())
        if key not in self._values:
            started = time.process_time()
            self._values[key] = ChessSearch().value(board.copy(stack=False), self.depth)
            self._spent(started)
        return self._values[key]

    def value_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Value ``boards`` ahead of use (:meth:`value`), one by one."""
        for board in boards:
            self.value(board)
            if progress is not None:
                progress(1)

    def _spent(self, started: float) -> None:
        self.seconds += time.process_time() - started
        self.searches += 1

    def analyse_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Score ``boards`` one by one (a search has no batch to gain from)."""
        for board in boards:
            self.scores(board)
            if progress is not None:
                progress(1)

    def close(self) -> None:
        """Nothing to release; here so both scorers close alike."""


def best_root_moves(board: chess.Board, depth: int, lines: int) -> dict[chess.Move, int]:
    """The exact values of the best ``lines`` legal moves of ``board`` at ``depth`` (as
    :func:`~search.chess.scoring.score_root_moves` gives them) and of every move tied with the last of them; every
    legal move when there are no more.

    Passes over the root moves deepening two plies at a time, each with the best moves of the one before first
    (:meth:`~search.chess.engine.ChessSearch.best_moves`): moves below the ``lines``-th best value are proved so by
    a zero window and left out, the others valued exactly. Every move worth at least the ``lines``-th best is
    there, so the best ``lines`` moves are always those of a complete scoring, however the caller breaks ties.
    ``{}`` for a finished game. ``board``'s move stack counts for repetitions, as there.
    """
    if lines < 2:
        raise ValueError(f"lines must be at least 2, not {lines}")
    return ChessSearch().best_moves(board, depth, lines)


def one_move_value(board: chess.Board, move: chess.Move, depth: int) -> int:
    """The exact value of legal ``move`` in ``board`` at ``depth`` (the position after it searched ``depth - 1``
    plies), as :func:`~search.chess.scoring.score_root_moves` gives it; ValueError for an illegal move."""
    return _centipawns(ChessSearch().search(board, Limits(depth=depth), only=move))


def _centipawns(result: SearchResult) -> int:
    """A two-player search's value (a number, not one per player)."""
    assert isinstance(result.value, (int, float)), "a chess search has one value"
    return int(result.value)


class EngineScorer:
    """A UCI engine at a fixed depth, every analysis through the on-disk cache.

    ``lines`` ``k`` scores the engine's best ``k`` moves of each position (one
    MultiPV-``k`` search), None every legal move (a search as wide as the position).
    The default, 3, covers the prepared lines' candidates (``LineSettings.our_width``,
    2, of the best moves) with one to spare, so the candidates are those a complete
    analysis would give save for the engine's own MultiPV noise, at a small fraction of a
    complete analysis's cost; any other move a caller asks about (his usual move, a
    move his opponents played) is valued by :func:`move_score`, one more analysis of the
    position it leads to. Analyses of each width are cached apart. ``engines`` engine
    processes share each batch of :meth:`analyse_many` (the same scores, sooner on as
    many cores).
    """

    judges_habits = True
    """An engine judges his costly habits."""

    def __init__(
        self, path: str, *, depth: int = 12, cache: str | None = None, lines: int | None = 3, engines: int = 1
    ) -> None:
        self.analyser = EngineAnalyser(path, depth=depth, cache=cache, lines=lines, engines=engines)
        self._known: dict[str, dict[chess.Move, int]] = {}

    @property
    def description(self) -> str:
        lines = "" if self.analyser.lines is None else f", best {self.analyser.lines} moves scored"
        return f"{self.analyser.engine_id} at depth {self.analyser.depth}{lines}"

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        key = board.epd()
        if key not in self._known:
            self._known[key] = self.analyser.analyse(board).scores
        return self._known[key]

    def analyse_many(self, boards: list[chess.Board], progress: Callable[[int], None] | None = None) -> None:
        """Analyse ``boards`` in one batch (cache hits first), so later ``scores`` calls are lookups."""
        fresh = [board for board in boards if board.epd() not in self._known]
        for board, result in zip(fresh, self.analyser.analyse_many(fresh, progress=progress)):
            self._known[board.epd()] = result.scores

    def close(self) -> None:
        self.analyser.close()


def score_all(scorer: MoveScorer, boards: Iterable[chess.Board], progress: Callable[[int], None] | None = None) -> None:
    """Score ``boards`` ahead of use (an engine analyses them in one batch; none: nothing asked)."""
    batch = list(boards)
    if batch:
        scorer.analyse_many(batch, progress)


def value_all(
    scorer: MoveScorer, boards: Iterable[chess.Board], progress: Callable[[int], None] | None = None
) -> None:
    """Value ``boards`` ahead of :func:`position_value`: by a scorer's ``value_many`` when it has one (the own
    search: one search a position, not a scoring of its moves), else by :func:`score_all`."""
    many, batch = getattr(scorer, "value_many", None), list(boards)
    if many is None:
        score_all(scorer, batch, progress)
    elif batch:
        many(batch, progress)


def decided(board: chess.Board) -> bool:
    """A position :func:`position_value` values without the scorer: mate, stalemate or bare kings."""
    return board.is_checkmate() or board.is_stalemate() or board.is_insufficient_material()


def beyond_lines(scorer: MoveScorer, board: chess.Board, moves: Iterable[chess.Move]) -> list[chess.Board]:
    """Where those of ``moves`` the scorer's lines leave out lead (legal ones, not :func:`decided` there):
    the positions :func:`move_score` will value them by, to be scored ahead in a batch. None for a scorer that
    scores a move alone (``score_move``, the own search): :func:`move_score` asks it instead."""
    if hasattr(scorer, "score_move"):
        return []
    scores = scorer.scores(board)
    found = []
    for move in moves:
        if move not in scores and board.is_legal(move):
            after = board.copy(stack=False)
            after.push(move)
            if not decided(after):
                found.append(after)
    return found


def position_value(scorer: MoveScorer, board: chess.Board) -> int:
    """The position's value for the side to move: its best move's score (a scorer's ``value`` when it has one);
    mated -MATE_SCORE, drawn 0."""
    if board.is_checkmate():
        return -MATE_SCORE
    if decided(board):
        return 0
    value = getattr(scorer, "value", None)
    if value is not None:
        return int(value(board))
    scores = scorer.scores(board)
    return max(scores.values()) if scores else 0


def move_score(scorer: MoveScorer, board: chess.Board, move: chess.Move) -> int:
    """The score of ``move`` for the side to move: the scorer's, else minus the value of the position it leads to.

    A move outside the scorer's best lines is scored alone by a scorer that can
    (``score_move``: the own search, the same value scoring every move gives), else valued
    by :func:`position_value` of the position after it (mated, stalemate and bare kings as
    there), from the mover's side.
    A mate in ``n`` there moves one step further away here: the mover mating in ``n``
    more moves after this one scores a mate in ``n + 1``. ``board`` is left as it was;
    ValueError for an illegal move.

    >>> class BestOnly:
    ...     def scores(self, board):
    ...         if board.turn == chess.WHITE:
    ...             return {chess.Move.from_uci("e2e4"): 30}
    ...         return {chess.Move.from_uci("e7e5"): -25}
    >>> move_score(BestOnly(), chess.Board(), chess.Move.from_uci("e2e4"))
    30
    >>> move_score(BestOnly(), chess.Board(), chess.Move.from_uci("a2a3"))
    25
    >>> mate_in_one = chess.Board("7k/8/6K1/8/8/8/8/Q7 w - - 0 1")
    >>> move_score(BestOnly(), mate_in_one, chess.Move.from_uci("a1a8")) == MATE_SCORE - 1
    True
    """
    scores = scorer.scores(board)
    if move in scores:
        return scores[move]
    if not board.is_legal(move):
        raise ValueError(f"illegal move {move.uci()} in {board.fen()}")
    alone = getattr(scorer, "score_move", None)
    if alone is not None:
        return int(alone(board, move))
    after = board.copy(stack=False)
    after.push(move)
    value = position_value(scorer, after)
    if value < -MAX_CENTIPAWNS:  # the side to move there is mated: we mate one move later than it is mated
        return -value - 1
    return -value
