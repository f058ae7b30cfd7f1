"""Sideline floor on test games: is a move he plays often believed at least half as often as he plays it?

The dossier believes his moves as the page does (:class:`~iam.prepare.beliefs.HisLineBeliefs`: the model alone,
updated by the population book, then by his games with his sidelines floored), built from his training games.
:func:`sideline_rows` reads his test games (the held-out protocol's ``i % 5 == 4``) with one colour: at each
position he is to move in within the dossier's plies that at least ``min_games`` of them reach, each move he
chose in at least ``min_share`` of them, with its share and the dossier's belief; a row is a *violation* when
the belief is below ``floor`` times the share. Nothing is chosen here: it checks a rule fixed before.

:func:`dated_sideline_rows` checks each test game against its own dossier (as it stood before the game): the
belief of a row is then the mean, over his test games at the position, of the belief of the dossier each met.
Where the dossiers are :class:`~iam.prepare.tree.RepertoireBeliefs`, each row also says what they knew of the
move (:data:`KNOWN_COLUMNS`) and a violation its *cause* (:data:`CAUSES`): a floor can only keep the promise for
the games a dossier knew, so a move he had never or rarely chosen there before is not one it could foresee.

:func:`known_rows` checks that promise itself: in each dossier's own tree, at each position of his with at least
``min_games`` of his games (counted, not recency-weighted: the floor reads his plain frequency), each move of at
least ``min_share`` of them believed at least ``floor`` times that share.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence

import chess
import numpy as np
import pandas as pd

from iam.games.pgn import PlayerGame
from iam.prepare.tree import Node, Predictor, RepertoireBeliefs

__all__ = [
    "sideline_rows", "dated_sideline_rows", "known_rows", "MIN_GAMES", "MIN_SHARE", "FLOOR", "CAUSES", "COLUMNS",
    "KNOWN_COLUMNS",
]

MIN_GAMES = 5
MIN_SHARE = 0.10
FLOOR = 0.5

CAUSES = ("never played there before", "below the sideline share before", "floored for some of the games",
          "floored for all the games")
"""Why a move is believed below ``floor`` times his test share, by what the dossiers his test games met knew:
none of them had a game of his with the move at the position; some had, none in ``min_share`` of his games there;
some of them floored it (it had ``min_share`` of his games there), not all; all of them floored it (his test share is
more than their floor allows for: he chose it more often in his test games than before)."""
COLUMNS = ["color", "fen", "ply", "games", "move", "played", "share", "belief", "violation"]
KNOWN_COLUMNS = ["known_games", "known_played", "known_share", "floored", "cause"]
"""What the dossiers met knew (where they are repertoire beliefs): the mean of his games at the position in each
(the moves counted once per game), the mean of his games with the move, his pooled share of the move, the share of
the test games whose dossier floored the move, and a violation's cause (:data:`CAUSES`; empty otherwise)."""


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
    ``belief`` is the mean of its games' beliefs in the move; where every dossier met is repertoire beliefs, the
    columns :data:`KNOWN_COLUMNS` too."""
    reached, met, boards = _reached(test, color, beliefs_of, plies)
    knew = all(isinstance(beliefs, RepertoireBeliefs) for each in met.values() for beliefs in each)
    rows = []
    for epd, moves in reached.items():
        games = sum(moves.values())
        if games < min_games:
            continue
        board = boards[epd]
        believed = _mean_beliefs(board, met[epd])
        known = [_known_games(predictor, epd) for predictor in met[epd]] if knew else []
        for uci, played in sorted(moves.items()):
            share = played / games
            if share < min_share:
                continue
            belief = float(believed.get(chess.Move.from_uci(uci), 0.0))
            row = {
                "color": chess.COLOR_NAMES[color], "fen": board.fen(), "ply": board.ply(), "games": games,
                "move": board.san(chess.Move.from_uci(uci)), "played": played, "share": share, "belief": belief,
                "violation": belief < floor * share,
            }
            if knew:
                row.update(_what_was_known(known, uci, min_share, belief < floor * share))
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS + KNOWN_COLUMNS if knew else COLUMNS)


def _reached(
    test: Sequence[PlayerGame], color: chess.Color, beliefs_of: Callable[[PlayerGame], Predictor | None], plies: int
) -> tuple[dict[str, Counter], dict[str, list[Predictor]], dict[str, chess.Board]]:
    """His test games with ``color`` by position (EPD) within ``plies``, each counted at its first visit: his
    moves there, the dossiers his games met there, and the position."""
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
    return reached, met, boards


def known_rows(
    dossiers: Iterable[RepertoireBeliefs],
    *,
    min_games: int = MIN_GAMES,
    min_share: float = MIN_SHARE,
    floor: float = FLOOR,
) -> pd.DataFrame:
    """The floor on the games each dossier knew: one row per (dossier, position of his in its tree with at least
    ``min_games`` of his games, move of at least ``min_share`` of them): ``dossier`` (its number among
    ``dossiers``), ``color``, ``fen``, ``ply``, ``games``, ``move`` (SAN), ``played``, ``share``, ``belief`` and
    ``violation`` (below ``floor`` times the share)."""
    rows = []
    for number, beliefs in enumerate(dossiers):
        tree = beliefs.repertoire
        for node in tree.nodes.values():
            counts = _choices(node)
            games = sum(counts.values())
            if not node.his_turn or games < min_games:
                continue
            board = chess.Board(node.fen)
            believed = beliefs.predict_proba(board)
            for uci, played in sorted(counts.items()):
                share = played / games
                if share < min_share:
                    continue
                move = chess.Move.from_uci(uci)
                belief = float(believed.get(move, 0.0))
                rows.append({
                    "dossier": number, "color": chess.COLOR_NAMES[tree.color], "fen": node.fen, "ply": node.ply,
                    "games": games, "move": board.san(move), "played": played, "share": share, "belief": belief,
                    "violation": belief < floor * share,
                })
    return pd.DataFrame(rows, columns=["dossier", *COLUMNS])


def _choices(node: Node | None) -> dict[str, int]:
    """His games by the move he chose at ``node`` (none for no node)."""
    if node is None:
        return {}
    return {edge.uci: edge.played.games for edge in node.edges.values() if edge.played.games}


def _known_games(predictor: Predictor, epd: str) -> dict[str, int]:
    """His games by move at the position ``epd`` in the tree of the repertoire beliefs ``predictor``."""
    return _choices(predictor.repertoire.nodes.get(epd) if isinstance(predictor, RepertoireBeliefs) else None)


def _what_was_known(known: list[dict[str, int]], uci: str, min_share: float, violation: bool) -> dict:
    """:data:`KNOWN_COLUMNS` of a row from the choices each of its test games' dossiers knew at the position."""
    totals = np.array([sum(counts.values()) for counts in known], dtype=np.float64)
    played = np.array([counts.get(uci, 0) for counts in known], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        floored = float(np.mean((totals > 0) & (played >= min_share * totals)))
    cause = ""
    if violation:
        if not played.any():
            cause = CAUSES[0]
        elif floored == 0:
            cause = CAUSES[1]
        else:
            cause = CAUSES[2] if floored < 1 else CAUSES[3]
    return {
        "known_games": float(totals.mean()), "known_played": float(played.mean()),
        "known_share": float(played.sum() / totals.sum()) if totals.sum() else float("nan"), "floored": floored,
        "cause": cause,
    }


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
