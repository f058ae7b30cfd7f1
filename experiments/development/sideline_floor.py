"""Sideline floor on test games: is a move he plays often believed at least half as often as he plays it?

The dossier believes his moves as the page does (:class:`~iam.prepare.beliefs.HisLineBeliefs`: the model alone,
updated by the population book, then by his games with his sidelines floored), built from his training games.
:func:`sideline_rows` reads his test games (the held-out protocol's ``i % 5 == 4``) with one colour: at each
position he is to move in within the dossier's plies that at least ``min_games`` of them reach, each move he
chose in at least ``min_share`` of them, with its share and the dossier's belief; a row is a *violation* when
the belief is below ``floor`` times the share. Nothing is chosen here: it checks a rule fixed before.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import chess
import pandas as pd

from iam.games.pgn import PlayerGame
from iam.prepare.tree import Predictor

__all__ = ["sideline_rows", "MIN_GAMES", "MIN_SHARE", "FLOOR"]

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
    reached: dict[str, Counter] = defaultdict(Counter)
    boards: dict[str, chess.Board] = {}
    for game in test:
        if game.color != color or game.start_fen != chess.STARTING_FEN:
            continue
        board, seen = chess.Board(), set()
        for move in game.moves[:plies]:
            if board.turn == color and board.epd() not in seen:
                seen.add(board.epd())
                reached[board.epd()][move.uci()] += 1
                boards.setdefault(board.epd(), board.copy(stack=False))
            board.push(move)
    rows = []
    for epd, moves in reached.items():
        games = sum(moves.values())
        if games < min_games:
            continue
        board = boards[epd]
        believed = beliefs.predict_proba(board)
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
