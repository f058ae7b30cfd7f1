"""How much the ranker should believe a player's own choices where his games have been.

The ranker's beliefs at a position his training games reached are a Dirichlet posterior: his
choices counted in games plus the model worth ``strength`` games (:mod:`iam.ranker.own_lines`).
This experiment measures, on development games only (the ranker fitted on the other training
games), the log loss and top-1 of the beliefs at every development position his fitted memory
holds, for a range of strengths, per master and colour, and picks the strength by the rule
:func:`choose_strength` states. Test games are never read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from iam.games.pgn import PlayerGame
from iam.games.player_games import load_heldout
from iam.measure.evaluation import BANDS
from iam.ranker.estimator import MoveRanker
from iam.ranker.own_lines import own_counts, weigh_own_lines
from iam.runtime import Runtime

__all__ = ["OwnLinesConfig", "book_positions", "strength_table", "choose_strength", "calibration_table", "TIE"]

MASTERS = ("Alekhine", "Botvinnik", "Capablanca", "Lasker", "Smyslov", "Spassky")
STRENGTHS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, math.inf)
TIE = 0.002
"""Mean log losses closer than this are a tie, which goes to the larger strength (the model's side)."""
FLOOR = 1e-4
"""Beliefs are floored here in the log loss, as everywhere in the toolkit's figures."""


@dataclass(frozen=True)
class OwnLinesConfig:
    """The masters, the strengths tried, the ranker's training sample and seed, and what it runs on."""

    players: tuple[str, ...] = MASTERS
    strengths: tuple[float, ...] = STRENGTHS
    max_positions: int = 2000
    seed: int = 0
    runtime: Runtime = field(default_factory=Runtime)


def book_positions(ranker: MoveRanker, games: Sequence[PlayerGame]) -> list[dict]:
    """Per position of ``games`` where the player moves and the ranker's memory holds his choices:
    the model's beliefs alone, his games per move there, and the move played."""
    memory = ranker.opening_memory()
    if memory is None:
        return []
    rows = []
    for game in games:
        board = game.board()
        for ply, move in enumerate(game.moves):
            entry = memory.lookup_position(board) if board.turn == game.color else None
            if entry is not None:
                moves, probs, _ = ranker.beliefs(board, own_lines=math.inf)
                if move in moves:
                    counts = own_counts(moves, entry.counts)
                    rows.append({
                        "game": game.index, "ply": ply, "colour": "white" if game.color else "black",
                        "games_here": int(counts.sum()), "played": moves.index(move), "model": probs, "counts": counts,
                    })
            board.push(move)
    return rows


def player_rows(player: str, config: OwnLinesConfig) -> list[dict]:
    """:func:`book_positions` of ``player``'s development games, the ranker fitted on his other training games."""
    held = load_heldout(None, player)
    ranker = MoveRanker(max_positions=config.max_positions, random_state=config.seed)
    ranker.fit(held.fitting, player=player, runtime=config.runtime)
    rows = book_positions(ranker, held.development)
    return [{"player": player, **row} for row in rows]


def _beliefs(row: dict, strength: float) -> np.ndarray:
    return weigh_own_lines(row["model"], row["counts"], strength)


def strength_table(rows: Sequence[dict], strengths: Sequence[float]) -> pd.DataFrame:
    """Per player, colour and strength: positions, top-1 and log loss of the move played."""
    records = []
    for row in rows:
        for strength in strengths:
            beliefs = _beliefs(row, strength)
            records.append({
                "player": row["player"], "colour": row["colour"], "strength": strength,
                "hit": int(np.argmax(beliefs)) == row["played"],
                "loss": -math.log(max(float(beliefs[row["played"]]), FLOOR)),
            })
    frame = pd.DataFrame.from_records(records, columns=["player", "colour", "strength", "hit", "loss"])
    grouped = frame.groupby(["player", "colour", "strength"], sort=True)
    return grouped.agg(positions=("hit", "size"), top1=("hit", "mean"), log_loss=("loss", "mean")).reset_index()


def choose_strength(table: pd.DataFrame) -> float:
    """The rule: the strength with the least mean over the masters of each master's log loss on his
    development book positions (both colours pooled, weighted by positions); a tie within :data:`TIE`
    goes to the larger strength."""
    weighted = table.assign(total=table["log_loss"] * table["positions"])
    per_master = weighted.groupby(["player", "strength"])[["total", "positions"]].sum()
    per_master = (per_master["total"] / per_master["positions"]).rename("log_loss").reset_index()
    mean = per_master.groupby("strength")["log_loss"].mean()
    best = float(mean.min())
    return float(max(s for s, loss in mean.items() if loss <= best + TIE))


def calibration_table(rows: Sequence[dict], strength: float) -> pd.DataFrame:
    """Per colour and belief band of the top move: predictions, hits and hit rate at ``strength``."""
    records = []
    for row in rows:
        beliefs = _beliefs(row, strength)
        top = int(np.argmax(beliefs))
        records.append({"colour": row["colour"], "top_belief": float(beliefs[top]), "hit": top == row["played"]})
    frame = pd.DataFrame.from_records(records, columns=["colour", "top_belief", "hit"])
    out = []
    for colour in ("white", "black"):
        side = frame[frame["colour"] == colour]
        for label, low, high in BANDS:
            inside = side[(side["top_belief"] >= low) & (side["top_belief"] < high)]
            out.append({
                "colour": colour, "band": label, "predictions": len(inside), "hits": int(inside["hit"].sum()),
                "rate": float(inside["hit"].mean()) if len(inside) else np.nan,
                "mean_belief": float(inside["top_belief"].mean()) if len(inside) else np.nan,
            })
    return pd.DataFrame(out)
