"""Why the IAM model believes a move: the chunks that proposed it, as placed, and its rote memory.

Each proposing chunk is shown as it would be completed on the board (its pattern, its
squares, its statistics, its completion rate and how much each of the source notes'
rules added to its belief); a learned belief adds what each feature contributed.
"""

from __future__ import annotations

import chess
import numpy as np

from iam.chunks.board import relative_square
from iam.chunks.chunk import BOX, encode, to_pattern
from iam.chunks.features import CandidateRows
from iam.models.explanation import Explanation, FeatureContribution

__all__ = ["explain", "MAX_CHUNK_SOURCES"]

MAX_CHUNK_SOURCES = 5
"""Chunk sources listed per move (the strongest by rule belief); the rest are counted."""



def explain(model, board: chess.Board, *, top: int | None = None) -> list[Explanation]:
    """The model's ranked predictions for the side to move on ``board``, with their evidence."""
    rows, beliefs = model.candidates(board)
    entry = model.rote_.lookup(board)
    order = [i for i in np.argsort(-beliefs, kind="stable").tolist() if beliefs[i] > 0]
    predictions = []
    for i in order[:top] if top is not None else order:
        move = rows.moves[i]
        proposals = rows.sources(i)
        strongest = proposals[np.argsort(-rows.proposal_beliefs[proposals], kind="stable")][:MAX_CHUNK_SOURCES]
        sources = [_chunk_source(model, rows, int(p), board.turn) for p in strongest]
        if entry is not None and entry.counts.get(move.uci(), 0) > 0:
            chosen = entry.counts[move.uci()]
            sources.append({"kind": "rote", "games": entry.games, "chosen": chosen, "share": chosen / entry.games})
        features = _learned_features(model, rows.features[i])
        predictions.append(
            Explanation(move, board.san(move), float(beliefs[i]), tuple(sources), len(proposals), features)
        )
    return predictions


def _learned_features(model, row: np.ndarray) -> tuple[FeatureContribution, ...]:
    """What each feature of the learned belief added to the move's log-odds, with its value, strongest first."""
    if model.belief_ is None:
        return ()
    values = dict(zip(model.belief_.features, row.tolist()))
    learned = model.belief_.contributions(row)
    return tuple(
        FeatureContribution(name, "belief", float(values[name]), float(value))
        for name, value in sorted(learned.items(), key=lambda item: -abs(item[1]))
    )


def _chunk_source(model, rows: CandidateRows, proposal: int, color: chess.Color) -> dict:
    completions = rows.completions
    chunk = int(completions.chunk[proposal])
    squares, values = model.library_.cells(completions.placement[proposal : proposal + 1])
    stats = model.library_.table.iloc[chunk]
    rules = model.rule_weights_.contributions(rows.proposal_quantities[proposal : proposal + 1])
    return {
        "kind": "chunk",
        "pattern": to_pattern(int(encode(values[0].reshape(BOX, BOX)))),  # as placed: the stored chunk or its mirror
        "squares": [chess.square_name(relative_square(int(s), color)) for s in squares[0] if s >= 0],
        "occurrences": int(stats["occurrences"]),
        "games": int(stats["games"]),
        "formed_games": int(stats["formed_games"]),
        "completion": float(rows.proposal_completion[proposal]),
        "dissolved": bool(completions.dissolved[proposal]),
        "belief": float(rows.proposal_beliefs[proposal]),
        "rules": {name: round(float(value[0]), 4) for name, value in rules.items()},
    }
