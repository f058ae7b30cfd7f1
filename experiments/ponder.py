"""Pondering on his move: how often the engine's expected reply is the move the player made.

A UCI engine names, with its ``bestmove``, the reply it expects (``ponder``) and thinks on
it while the opponent's clock runs; when the opponent plays it (a *ponder hit*), that
thinking is kept. The plain search expects the reply its principal variation holds, the
best move for the opponent by its own evaluation; an engine with a model of the opponent
(``iam uci --model``) expects his most believed move. On the player's test games, at
every sampled position where he is to move, this experiment compares the two: the model's
most believed move against the plain fast search's best move at a fixed depth (the reply
its principal variation would hold one ply below a search one ply deeper). Figures: each
one's hit rate with a 95% bootstrap interval over test games, and their difference.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.common import ExperimentResult, HeldOutConfig, load_games
from iam.errors import DataError
from iam.games.heldout import sample_test_games
from iam.measure.bootstrap import CONFIDENCE, interval, resample_games, resampled_means
from iam.measure.predictors import load_predictor
from iam.priors.positions import PlayerPosition, player_positions
from iam.ranker import MoveRanker
from iam.runtime import Runtime, run_map, runtime_from
from search import Limits
from search.chess import ChessSearch

NAME = "ponder"
HELP = "how often the expected reply (ponder move) is the player's move: the model's against the plain search's"

__all__ = ["NAME", "HELP", "PonderConfig", "ponder_records", "run"]

_PIECE = 50
"""Positions one task of the map scores."""


@dataclass(frozen=True)
class PonderConfig(HeldOutConfig):
    """The ponder comparison: which model, how deep the plain search looks, how many test positions."""

    max_positions: int | None = 2000
    depth: int = 4
    """Depth of the plain fast search whose best move is its expected reply."""
    model: str | None = None
    """A fitted model file of the player (None: a move ranker fitted now on his training games)."""
    train_positions: int = 2000
    """Training positions of the ranker fitted when no model file is given."""


def _score_piece(task: tuple) -> list[dict]:
    """Both expected replies at each position of a piece: the model's and the plain search's."""
    model, depth, positions = task
    search = ChessSearch()
    found = []
    for position in positions:
        started = time.perf_counter()
        believed = model.predict(position.board, top=1)
        predicted = time.perf_counter() - started
        started = time.perf_counter()
        result = search.search(position.board, Limits(depth=depth))
        searched = time.perf_counter() - started
        found.append(
            {
                "game": position.game,
                "ply": position.ply,
                "played": position.played_move.uci(),
                "model_reply": believed[0].uci() if believed else None,
                "search_reply": result.move.uci() if result.move is not None else None,
                "model_seconds": predicted,
                "search_seconds": searched,
            }
        )
    model.close()
    return found


def ponder_records(
    model, positions: list[PlayerPosition], *, depth: int, runtime: Runtime = Runtime()
) -> pd.DataFrame:
    """One row per position: the move played, the model's and the plain search's expected replies, their costs
    (the positions scored where ``runtime`` says)."""
    pieces = [(model, depth, positions[start : start + _PIECE]) for start in range(0, len(positions), _PIECE)]
    done = run_map(_score_piece, pieces, runtime_from(runtime))
    records = pd.DataFrame([row for piece in done for row in piece])
    records["model_hit"] = records["model_reply"] == records["played"]
    records["search_hit"] = records["search_reply"] == records["played"]
    return records


def _model(config: PonderConfig, held) -> MoveRanker:
    if config.model is not None:
        return load_predictor(config.model)
    ranker = MoveRanker(max_positions=config.train_positions, random_state=config.seed)
    return ranker.fit(held.training, player=held.player, runtime=config.runtime)


def summary(records: pd.DataFrame, *, seed: int) -> pd.DataFrame:
    """Hit rates of both replies and their difference, with percentile intervals over test games."""
    draws = resample_games(records["game"].to_numpy(), seed=seed)
    values = np.column_stack(
        [records["model_hit"], records["search_hit"], records["model_hit"].astype(float) - records["search_hit"]]
    ).astype(float)
    means = resampled_means(records, draws, values)
    rows = []
    for column, name in enumerate(("model", "plain search", "model - plain search")):
        low, high = interval(means[:, column])
        rows.append({"reply": name, "hit_rate": float(values[:, column].mean()), "low": low, "high": high})
    return pd.DataFrame(rows)


def run(config: PonderConfig) -> ExperimentResult:
    """Tables ``ponder`` (the hit rates with intervals) and ``positions`` (every position's replies)."""
    if config.depth < 1:
        raise DataError(f"depth must be at least 1, not {config.depth}")
    held = load_games(config)
    test = sample_test_games(held.test, config.max_positions, seed=config.seed)
    positions = player_positions(test)
    if not positions:
        raise DataError(f"{held.player} has no test position to score")
    model = _model(config, held)
    records = ponder_records(model, positions, depth=config.depth, runtime=config.runtime)
    table = summary(records, seed=config.seed)
    costs = {
        "model_ms": float(records["model_seconds"].median() * 1000),
        "search_ms": float(records["search_seconds"].median() * 1000),
    }
    payload = {
        "experiment": NAME,
        "player": held.player,
        "positions": len(records),
        "games": int(records["game"].nunique()),
        "depth": config.depth,
        "model": config.model or f"move ranker fitted on {len(held.training)} training games",
        "rows": table.to_dict(orient="records"),
        "median_cost": costs,
    }
    lines = [
        f"# {held.player}: the expected reply against his move",
        "",
        f"{len(records)} test positions of {payload['games']} games; the plain search at depth {config.depth}.",
        "",
        table.to_markdown(index=False, floatfmt=".3f"),
        "",
        f"Intervals: {CONFIDENCE:.0%} percentile bootstrap over test games. Median cost per position: model "
        f"{costs['model_ms']:.0f} ms, plain search {costs['search_ms']:.0f} ms.",
    ]
    return ExperimentResult(
        name=NAME, tables={"ponder": table, "positions": records}, payload=payload, markdown="\n".join(lines)
    )
