"""Sideline floor on test games: is a move he plays often believed at least half as often as he plays it?

The dossier believes his moves as the page does (:class:`~iam.prepare.beliefs.HisLineBeliefs`: the model alone,
updated by the population book, then by his games with his sidelines floored), built from his training games.
:func:`sideline_rows` reads his test games (the held-out protocol's ``i % 5 == 4``) with one colour: at each
position he is to move in within the dossier's plies that at least ``min_games`` of them reach, each move he
chose in at least ``min_share`` of them, with its share and the dossier's belief; a row is a *violation* when
the belief is below ``floor`` times the share. Nothing is chosen here: it checks a rule fixed before.

:func:`dated_sideline_rows` checks each test game against its own dossier (as it stood before the game): the
belief of a row is then the mean, over his test games at the position, of the belief of the dossier each met.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import chess
import pandas as pd

from iam.games.pgn import PlayerGame
from iam.prepare.tree import Predictor

__all__ = ["sideline_rows", "dated_sideline_rows", "MIN_GAMES", "MIN_SHARE", "FLOOR"]

MIN_GAMES = 5
MIN_SHARE = 0.10
FLOOR = 0.5


def sideline_rows(
    test: Sequence[PlayerGame],
    color: chess.Color,
    beliefs: Predictor,
    *,
    plies: int,
    min_games: int = MIN_GAMES,
    min_share: float = MIN_SHARE,
    floor: float = FLOOR,
) -> pd.DataFrame:
    """One row per (position, move) of his ``test`` games with ``color`` as the module docstring says: ``fen``,
    ``ply``, ``games`` (his test games there), ``move`` (SAN), ``played`` (games with it), ``share``, ``belief``
    and ``violation``."""
    return dated_sideline_rows(
        test, color, lambda game: beliefs, plies=plies, min_games=min_games, min_share=min_share, floor=floor
    )


def dated_sideline_rows(
    test: Sequence[PlayerGame],
    color: chess.Color,
    beliefs_of: Callable[[PlayerGame], Predictor | None],
    *,
    plies: int,
    min_games: int = MIN_GAMES,
    min_share: float = MIN_SHARE,
    floor: float = FLOOR,
) -> pd.DataFrame:
    """As :func:`sideline_rows`, each test game read against ``beliefs_of(game)`` (None: the game is left out):
    ``belief`` is the mean of its games' beliefs in the move."""
    reached: dict[str, Counter] = defaultdict(Counter)
    met: dict[str, list[Predictor]] = defaultdict(list)
    boards: dict[str, chess.Board] = {}
    for game in test:
        if game.color != color or game.start_fen != chess.STARTING_FEN:
            continue
        beliefs = beliefs_of(game)
        if beliefs is None:
            continue
        board, seen = chess.Board(), set()
        for move in game.moves[:plies]:
            if board.turn == color and board.epd() not in seen:
                seen.add(board.epd())
                reached[board.epd()][move.uci()] += 1
                met[board.epd()].append(beliefs)
                boards.setdefault(board.epd(), board.copy(stack=False))
            board.push(move)
    rows = []
    for epd, moves in reached.items():
        games = sum(moves.values())
        if games < min_games:
            continue
        board = boards[epd]
        believed = _mean_beliefs(board, met[epd])
        for uci, played in sorted(moves.items()):
            share = played / games
            if share < min_share:
                continue
            belief = float(believed.get(chess.Move.from_uci(uci), 0.0))
            rows.append({
                "color": chess.COLOR_NAMES[color], "fen": board.fen(), "ply": board.ply(), "games": games,
                "move": board.san(chess.Move.from_uci(uci)), "played": played, "share": share, "belief": belief,
                "violation": belief < floor * share,
            })
    columns = ["color", "fen", "ply", "games", "move", "played", "share", "belief", "violation"]
    return pd.DataFrame(rows, columns=columns)


def _mean_beliefs(board: chess.Board, predictors: list[Predictor]) -> dict[chess.Move, float]:
    """The mean of the predictors' beliefs at ``board``, each distinct predictor asked once (one alone: its own)."""
    counts = Counter(id(predictor) for predictor in predictors)
    distinct = {id(predictor): predictor for predictor in predictors}
    if len(distinct) == 1:
        return dict(predictors[0].predict_proba(board))
    total: Counter = Counter()
    for key, predictor in distinct.items():
        total.update({move: belief * counts[key] for move, belief in predictor.predict_proba(board).items()})
    return {move: weight / len(predictors) for move, weight in total.items()}
