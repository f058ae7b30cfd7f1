"""How far the toolkit's own search agrees with a reference judge on the dossier's verdict about a move.

The dossier's verdict on a move is its *loss*: the best move's score less the move's
(:func:`~iam.prepare.scoring.move_score`), in centipawns for the side to move, and
whether the loss makes the move a costly habit (at least ``habit_loss``,
:class:`~iam.prepare.dossier.HabitSettings`). :func:`judged_moves` picks the moves to
judge from a player's development games only (the held-out protocol's
``i % 5 == 3``): in positions he was to move in, the move he played and one other legal
move drawn at random. :func:`judge_losses` gives each move's loss by a reference judge
(a UCI engine at a high depth, through :class:`~iam.prepare.scoring.EngineScorer`) and by
the toolkit's own search at each depth, with the search's CPU time per position;
:func:`agreement` sums that up per depth: mean absolute loss error, precision and recall
of the "costly" flag against the reference's flag, and the Spearman correlation of the
losses. :func:`choose_depth` applies the rule the dossier's default depth was chosen by.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields

import chess
import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from iam.games.heldout import development_games
from iam.games.pgn import PlayerGame
from iam.prepare.scoring import MoveScorer, SearchScorer, beyond_lines, move_score, score_all
from search.chess.scoring import score_root_moves

__all__ = [
    "JudgedMove", "LOSS_CAP", "judged_moves", "move_loss", "judge_losses", "agreement", "choose_depth",
]

LOSS_CAP = 1000
"""Losses are capped at this many centipawns for the error and the correlation: a mate and a lost queen
are the same verdict; the flag is read from the uncapped loss."""


@dataclass(frozen=True)
class JudgedMove:
    """One move to judge: where it was (whose game, which ply), the position and whether he played it."""

    player: str
    game: int
    ply: int
    fen: str
    move: str
    """The move, in UCI notation."""
    played: bool
    """True for the move he played, False for the other legal move drawn at random."""


def judged_moves(
    games: Sequence[PlayerGame], player: str, *, positions: int, plies: int = 24, seed: int = 0
) -> list[JudgedMove]:
    """Up to ``positions`` positions of his development games (one per distinct position, drawn with ``seed``)
    in the first ``plies`` plies where he is to move, each with his move and one other legal move.

    Test and fitting games are never read: only :func:`~iam.games.heldout.development_games` of ``games``.
    """
    seen: dict[str, tuple[PlayerGame, int, chess.Board, chess.Move]] = {}
    for game in development_games(games):
        board = game.board()
        for ply, move in enumerate(game.moves[:plies]):
            if board.turn == game.color and board.legal_moves.count() > 1 and board.epd() not in seen:
                seen[board.epd()] = (game, ply, board.copy(stack=False), move)
            board.push(move)
    rng = random.Random(seed)
    chosen = rng.sample(sorted(seen), min(positions, len(seen)))
    found = []
    for key in chosen:
        game, ply, board, move = seen[key]
        others = sorted((m for m in board.legal_moves if m != move), key=chess.Move.uci)
        other = rng.choice(others)
        for judged, played in ((move, True), (other, False)):
            found.append(JudgedMove(player, game.index, ply, board.fen(), judged.uci(), played))
    return found


def move_loss(scorer: MoveScorer, board: chess.Board, move: chess.Move) -> int:
    """Centipawns ``move`` loses against the scorer's best move in ``board`` (0 for the best move itself)."""
    scores = scorer.scores(board)
    return max(scores.values()) - move_score(scorer, board, move)


def _reference_losses(moves: Sequence[JudgedMove], reference: MoveScorer) -> list[int]:
    """Each move's loss by ``reference``: the positions scored in one batch, then where its lines leave moves out."""
    boards = [chess.Board(move.fen) for move in moves]
    score_all(reference, boards)
    score_all(reference, [after for board, move in zip(boards, moves)
                          for after in beyond_lines(reference, board, [chess.Move.from_uci(move.move)])])
    return [move_loss(reference, board, chess.Move.from_uci(move.move)) for board, move in zip(boards, moves)]


def _search_losses(
    moves: Sequence[JudgedMove], depth: int, clock: Callable[[], float]
) -> tuple[list[int], list[float]]:
    """Each move's loss by the own search at ``depth``, and the seconds its position's search took."""
    scorer = SearchScorer(depth)
    seconds: dict[str, float] = {}
    losses = []
    for move in moves:
        board = chess.Board(move.fen)
        if board.epd() not in seconds:
            started = clock()
            scorer.scores(board)
            seconds[board.epd()] = clock() - started
        losses.append(move_loss(scorer, board, chess.Move.from_uci(move.move)))
    return losses, [seconds[chess.Board(move.fen).epd()] for move in moves]


def judge_losses(
    moves: Sequence[JudgedMove],
    reference: MoveScorer,
    depths: Iterable[int],
    *,
    clock: Callable[[], float] = time.process_time,
) -> pd.DataFrame:
    """One row per move: where it is, its loss by ``reference`` (``reference_loss``), and per depth ``d`` its
    loss by the own search (``loss_d``) and the seconds the search of its position took (``seconds_d``).

    The seconds are the process's CPU time (``clock``): on a shared machine wall time would count the
    neighbours' work too. The search runs once before the clock does, so loading the compiled core is not
    counted.
    """
    score_root_moves(chess.Board(), 1)
    table = pd.DataFrame([vars(move) for move in moves], columns=[field.name for field in fields(JudgedMove)])
    table["reference_loss"] = _reference_losses(moves, reference)
    for depth in depths:
        losses, seconds = _search_losses(moves, depth, clock)
        table[f"loss_{depth}"] = losses
        table[f"seconds_{depth}"] = seconds
    return table


def _depths(losses: pd.DataFrame) -> list[int]:
    return sorted(int(name.removeprefix("loss_")) for name in losses.columns if name.startswith("loss_"))


def agreement(losses: pd.DataFrame, *, habit_loss: int = 50) -> pd.DataFrame:
    """Per depth, and per set of moves (``all``, ``played``), how the own search's verdicts agree with the reference's.

    Columns: ``depth``, ``moves`` (the set), ``positions``, ``judged`` (moves), ``median_seconds`` and
    ``mean_seconds`` (per position), ``mean_abs_error`` (cp, losses capped at :data:`LOSS_CAP`),
    ``reference_costly`` and ``flagged`` (moves losing at least ``habit_loss`` by each judge), ``precision``
    (of the search's flag: the share of flagged moves the reference flags too), ``recall`` (the share of the
    reference's costly moves flagged), ``f1`` and ``spearman`` (of the capped losses). ``losses`` is
    :func:`judge_losses`'s table. An undefined share (nothing flagged) is NaN.
    """
    rows = []
    for depth in _depths(losses):
        for name, part in (("all", losses), ("played", losses[losses["played"]])):
            rows.append({"depth": depth, "moves": name, **_figures(part, depth, habit_loss)})
    return pd.DataFrame(rows)


def _figures(part: pd.DataFrame, depth: int, habit_loss: int) -> dict[str, float | int]:
    reference, mine = part["reference_loss"].to_numpy(), part[f"loss_{depth}"].to_numpy()
    truth, flag = reference >= habit_loss, mine >= habit_loss
    both = int(np.sum(truth & flag))
    precision = both / flag.sum() if flag.any() else float("nan")
    recall = both / truth.sum() if truth.any() else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else float("nan")
    capped_reference, capped_mine = np.minimum(reference, LOSS_CAP), np.minimum(mine, LOSS_CAP)
    per_position = part.drop_duplicates("fen")[f"seconds_{depth}"]
    return {
        "positions": int(part["fen"].nunique()),
        "judged": len(part),
        "median_seconds": float(per_position.median()),
        "mean_seconds": float(per_position.mean()),
        "mean_abs_error": float(np.mean(np.abs(capped_reference - capped_mine))),
        "reference_costly": int(truth.sum()),
        "flagged": int(flag.sum()),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        "spearman": float(spearmanr(capped_reference, capped_mine).statistic),
    }


def choose_depth(
    table: pd.DataFrame,
    *,
    max_seconds: float = 0.5,
    precision_margin: float = 0.02,
    recall_margin: float = 0.05,
) -> int:
    """The depth the rule picks from :func:`agreement`'s ``all`` rows.

    Eligible: the depths whose median search time per position is at most ``max_seconds``. Chosen: the
    shallowest eligible depth whose precision is within ``precision_margin`` of the best eligible precision
    and whose recall is within ``recall_margin`` of the best eligible recall; when none is within both, the
    eligible depth with the highest F1. ValueError when no depth is eligible.
    """
    rows = table[(table["moves"] == "all") & (table["median_seconds"] <= max_seconds)].sort_values("depth")
    if rows.empty:
        raise ValueError(f"no depth searches a position in at most {max_seconds} s (median)")
    slack = 1e-9  # a margin met exactly counts as met, whatever the float rounding
    close = rows[
        (rows["precision"] >= rows["precision"].max() - precision_margin - slack)
        & (rows["recall"] >= rows["recall"].max() - recall_margin - slack)
    ]
    if not close.empty:
        return int(close["depth"].iloc[0])
    return int(rows.loc[rows["f1"].idxmax(), "depth"])
