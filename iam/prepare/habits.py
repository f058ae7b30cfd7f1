"""His costly habits: positions he keeps reaching where his usual move loses against the best one.

A candidate position is one he is to move in and either reached in ``habit_games``
games or more (his usual move: the most weighted one of his repertoire, played in
``played`` of those games) or reached on a prepared line with probability ``>=
habit_belief`` (his usual move: the model's most believed one). The scorer gives
the best move there; the habit's cost is the best move's score less his usual move's
(:func:`~iam.prepare.scoring.move_score`: the value of the position it leads to when
it is not among the scorer's best lines), in centipawns from his point of view, and it
is a habit when the cost is at least ``min_loss``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import chess

from iam.prepare.lines import Plan
from iam.prepare.scoring import MoveScorer, beyond_lines, move_score, score_all
from iam.prepare.tree import Predictor, Repertoire

__all__ = ["Candidate", "Frequency", "Habit", "candidates", "find_habits"]


@dataclass(frozen=True)
class Frequency:
    """How often he comes to a position and plays his usual move there: counted in his games, or predicted."""

    source: str
    """"games": reached in his games; "predicted": on a prepared line."""
    reached: int
    """His games that reached the position (0 when predicted)."""
    played: int
    """Those of them in which he played his usual move."""
    belief: float | None
    """How likely he reaches it on a prepared line (None when counted in his games)."""


@dataclass(frozen=True)
class Candidate:
    """A position to judge, with his usual move there and what makes it his."""

    fen: str
    path: tuple[str, ...]
    usual: str
    frequency: Frequency


@dataclass(frozen=True)
class Habit:
    """A costly habit: his usual move, the best one, and what his costs him."""

    fen: str
    path: tuple[str, ...]
    usual: str
    usual_san: str
    best: str
    best_san: str
    cost: int
    """Centipawns his usual move loses against the best one, by the scorer."""
    frequency: Frequency

    def to_dict(self) -> dict:
        """The habit as one flat record (its frequency's fields last)."""
        data = asdict(self)
        frequency = data.pop("frequency")
        return {**data, **frequency}


def candidates(
    repertoire: Repertoire,
    plan: Plan | None,
    predictor: Predictor,
    *,
    habit_games: int = 2,
    habit_belief: float = 0.3,
) -> list[Candidate]:
    """Positions of his repertoire reached in ``habit_games`` games, then prepared-line positions reached with
    ``habit_belief``."""
    found: dict[str, Candidate] = {}
    for node in repertoire.nodes.values():
        usual = node.usual()
        if node.his_turn and node.games >= habit_games and usual is not None:
            counted = Frequency("games", node.games, usual.played.games, None)
            found[node.epd] = Candidate(node.fen, node.path, usual.uci, counted)
    if plan is not None:
        for epd, his in plan.his_nodes().items():
            if epd in found or his.reach < habit_belief:
                continue
            beliefs = predictor.predict_proba(his.board)
            if beliefs:
                move = max(beliefs, key=lambda m: (beliefs[m], m.uci()))
                found[epd] = Candidate(his.fen, (), move.uci(), Frequency("predicted", 0, 0, float(his.reach)))
    return list(found.values())


def find_habits(
    found: Sequence[Candidate], scorer: MoveScorer, *, min_loss: int = 50, tick: Callable[[], None] = lambda: None
) -> list[Habit]:
    """The candidates whose usual move loses ``>= min_loss`` centipawns, costliest first.

    The positions are scored in one batch, then those his usual move leads to where the
    scorer's best moves leave it out (an engine spreads each batch over its processes).
    """
    boards = [chess.Board(candidate.fen) for candidate in found]
    score_all(scorer, boards)
    score_all(scorer, [after for board, candidate in zip(boards, found)
                       for after in beyond_lines(scorer, board, [chess.Move.from_uci(candidate.usual)])])
    habits = []
    for board, candidate in zip(boards, found):
        scores = scorer.scores(board)
        tick()
        usual = chess.Move.from_uci(candidate.usual)
        best = min(scores, key=lambda m: (-scores[m], m.uci()))
        cost = scores[best] - move_score(scorer, board, usual)
        if cost >= min_loss:
            habits.append(
                Habit(
                    candidate.fen, candidate.path, candidate.usual, board.san(usual), best.uci(), board.san(best),
                    int(cost), candidate.frequency,
                )
            )
    return sorted(habits, key=lambda habit: (-habit.frequency.reached * habit.cost, -habit.cost, habit.fen))
