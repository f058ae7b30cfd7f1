"""The fitted state of an opponent model: one value, and its JSON-ready content.

:class:`~iam.chunks.model.OpponentModel` learns a :class:`FittedState` (its fitted
attributes ending in ``_`` read from it); :func:`to_document` and :func:`from_document` give and check
the content of :meth:`FittedState.to_dict` with the file's envelope (format,
version) and its limits; :mod:`iam.models.files` writes and reads it. This module does not know the
estimator, so the estimator can depend on it.

:meth:`FittedState.from_dict` checks the shape of every part and raises
``ValueError`` (or ``KeyError``, ``TypeError`` ...) for the first problem; the
model file turns that into a :class:`~iam.errors.ModelFileError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import chess
import numpy as np
import pandas as pd
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from iam._install import __version__
from iam.chunks.belief import LearnedBelief, RuleWeights
from iam.chunks.chunk import BOX, canonical, decode, from_pattern, to_pattern
from iam.chunks.features import ChunkFacts
from iam.chunks.library import ChunkLibrary
from iam.chunks.noise_filter import STAT_COLUMNS
from iam.chunks.rote import RoteEntry, RoteMemory
from iam.errors import ModelFileError
from iam.games.digest import TrainingGames
from iam.models.base import WholeNumber

__all__ = [
    "PARAMS",
    "BELIEFS",
    "FittedState",
    "TrainingSummary",
    "check_params",
    "PARAM_CONSTRAINTS",
    "FORMAT",
    "VERSION",
    "MAX_CHUNKS",
    "MAX_ROTE_ENTRIES",
    "to_document",
    "from_document",
]

PARAMS = ("min_games", "min_formed_games", "rote_max_ply", "belief", "belief_positions", "random_state", "player")
"""The estimator's parameters a fitted state keeps (besides ``rule_weights``)."""
BELIEFS = ("learned", "rules")
"""The kinds of belief: learned from the training games, or the source notes' rules."""
CHUNK_COLUMNS = ("pattern", *STAT_COLUMNS, "completed", "opportunities")
"""Columns of the chunk table in a model file (the pattern, then its counts)."""
_MAX_COUNT = int(np.iinfo(np.int64).max)
FORMAT = "iam-opponent-model"
VERSION = 1
MAX_CHUNKS = 100_000
"""Most chunks a model file may hold (this bounds the memory a loaded file takes)."""
MAX_ROTE_ENTRIES = 100_000
"""Most remembered sequences, and most remembered positions."""


PARAM_CONSTRAINTS: dict[str, list] = {
    "min_games": [WholeNumber(1, None, closed="left")],
    "min_formed_games": [WholeNumber(0, None, closed="left")],
    "rote_max_ply": [WholeNumber(1, None, closed="left")],
    "belief": [StrOptions(set(BELIEFS))],
    "rule_weights": [RuleWeights, None],
    "belief_positions": [WholeNumber(1, None, closed="left")],
    "random_state": [WholeNumber(0, 2**32 - 1), None],
    "player": [str, None],
}
"""The estimator's parameters and their allowed values, in scikit-learn's terms."""


def check_params(params: dict[str, Any]) -> None:
    """ValueError (scikit-learn's ``InvalidParameterError``) for a parameter of the wrong type or range."""
    validate_parameter_constraints(PARAM_CONSTRAINTS, params, caller_name="OpponentModel")


@dataclass(frozen=True)
class TrainingSummary:
    """What a model learned from: its games and positions, the chunks each filter kept, and its belief.

    The ``training`` part of the model file.
    """

    n_games: int
    n_positions: int
    colors: dict[str, int]
    """Training games by the player's colour (``white``, ``black``)."""
    chunk_counts: dict[str, int]
    """Chunks found, distinct, kept by the noise filter and stored."""
    belief_kind: str = "rules"
    """The belief the model predicts with (one of :data:`BELIEFS`)."""
    notes: list[str] = field(default_factory=list)
    """What the fitting found that the user should know (no chunk stored, the learned belief unavailable)."""
    training_games: TrainingGames | None = None
    """Which games it was fitted on (None in a file that does not record them)."""


@dataclass(frozen=True)
class FittedState:
    """Everything a fitted opponent model predicts from, and how it was trained."""

    params: dict[str, Any]
    """The estimator's parameters (:data:`PARAMS` and ``rule_weights``)."""
    player: str
    training: TrainingSummary
    rule_weights: RuleWeights
    library: ChunkLibrary
    rote: RoteMemory
    belief: LearnedBelief | None = None

    @cached_property
    def facts(self) -> ChunkFacts:
        """Per-chunk constants and counts of the library, as the candidate rows use them."""
        return ChunkFacts.from_table(
            self.library.table,
            training_games=self.training.n_games,
            min_games=self.params["min_games"],
            min_formed_games=self.params["min_formed_games"],
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready content (every chunk as a readable pattern such as ``".P/P."``)."""
        table = self.library.table
        values = table.reindex(columns=list(CHUNK_COLUMNS[1:]), fill_value=0).to_numpy(dtype=np.int64)
        rows = [[to_pattern(int(code)), *map(int, row)] for code, row in zip(table.index.tolist(), values)]
        given = self.params.get("rule_weights")
        training = self.training
        return {
            "player": self.player,
            "params": {
                **{name: self.params[name] for name in PARAMS},
                "rule_weights": None if given is None else given.to_dict(),
            },
            "rule_weights": self.rule_weights.to_dict(),
            "training": {
                "games": training.n_games,
                "positions": training.n_positions,
                "colors": training.colors,
                "chunk_counts": training.chunk_counts,
                "belief": training.belief_kind,
                "notes": list(training.notes),
                **(training.training_games.to_dict() if training.training_games is not None else {}),
            },
            "chunks": {"columns": list(CHUNK_COLUMNS), "rows": rows},
            "rote": {
                "max_ply": self.rote.max_ply,
                "min_games": self.rote.min_games,
                "sequences": {key: entry.counts for key, entry in self.rote.entries.items()},
                "positions": {key: entry.counts for key, entry in self.rote.positions.items()},
            },
            "belief": self.belief.to_dict() if self.belief is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, max_chunks: int, max_rote_entries: int) -> FittedState:
        """Rebuild a state from :meth:`to_dict`'s content (ValueError and friends if malformed)."""
        params = {name: data["params"][name] for name in PARAMS}
        given = data["params"]["rule_weights"]
        params["rule_weights"] = None if given is None else RuleWeights.from_dict(given)
        check_params(params)
        training = data["training"]
        table = _chunk_table(data["chunks"], max_chunks)
        if not isinstance(data["player"], str):
            raise ValueError(f"player must be a name, not {data['player']!r}")
        belief = data["belief"]
        state = cls(
            params=params,
            player=data["player"],
            training=TrainingSummary(
                n_games=_count(training["games"], "training games"),
                n_positions=_count(training["positions"], "training positions"),
                colors={color: _count(training["colors"][color], color) for color in ("white", "black")},
                chunk_counts={str(k): _count(v, k) for k, v in training["chunk_counts"].items()},
                notes=[str(note) for note in training["notes"]],
                belief_kind="rules" if belief is None else "learned",
                training_games=TrainingGames.from_dict(training, games=_count(training["games"], "training games")),
            ),
            rule_weights=RuleWeights.from_dict(data["rule_weights"]),
            library=ChunkLibrary.from_table(table),
            rote=_rote(data["rote"], max_rote_entries),
            belief=None if belief is None else LearnedBelief.from_dict(belief),
        )
        held = state.training.belief_kind
        if training["belief"] != held:
            raise ValueError(f"training says belief {training['belief']!r} but the file holds {held!r}")
        state.facts  # noqa: B018 - a table the candidate rows cannot use fails here, not at the first prediction
        return state


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, not {value!r}")
    if value > _MAX_COUNT:
        raise ValueError(f"{what} is too large ({value})")
    return value


def _chunk_table(chunks: dict, max_chunks: int) -> pd.DataFrame:
    if list(chunks["columns"]) != list(CHUNK_COLUMNS):
        raise ValueError(f"chunk columns must be {list(CHUNK_COLUMNS)}")
    rows = chunks["rows"]
    if not isinstance(rows, list):
        raise ValueError("chunk rows must be a list")
    if len(rows) > max_chunks:
        raise ValueError(f"the chunk table holds {len(rows):,} chunks, more than the {max_chunks:,} accepted")
    codes, values = [], []
    for number, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(CHUNK_COLUMNS):
            raise ValueError(f"chunk row {number} must have {len(CHUNK_COLUMNS)} values")
        code = from_pattern(row[0])
        if int(canonical(code)[0]) != code:
            raise ValueError(f"chunk row {number}: pattern {row[0]!r} is not in canonical (mirror) form")
        values.append([_count(value, f"chunk row {number} {name}") for name, value in zip(CHUNK_COLUMNS[1:], row[1:])])
        codes.append(code)
    if len(set(codes)) != len(codes):
        raise ValueError("the chunk table lists a pattern twice")
    frame = pd.DataFrame(
        np.array(values, dtype=np.int64).reshape(len(values), len(CHUNK_COLUMNS) - 1),
        columns=list(CHUNK_COLUMNS[1:]),
        index=pd.Index(np.array(codes, dtype=np.int64), name="code"),
    )
    pieces = np.count_nonzero(decode(frame.index.to_numpy()).reshape(len(frame), BOX * BOX), axis=1)
    if (frame["size"].to_numpy() != pieces).any():
        raise ValueError("a chunk's size differs from the number of pieces in its pattern")
    if (pieces < 2).any() or (frame["games"] > frame["occurrences"]).any():
        raise ValueError(
            "the chunk table holds impossible counts (fewer than 2 pieces, or more games than occurrences)"
        )
    return frame


def _rote(rote: dict, max_entries: int) -> RoteMemory:
    sequences = rote["sequences"]
    positions = rote.get("positions", {})  # absent in files written before the position memory
    if not isinstance(sequences, dict) or not isinstance(positions, dict):
        raise ValueError("rote sequences and positions must be objects")
    if max(len(sequences), len(positions)) > max_entries:
        raise ValueError(f"the rote memory holds more than {max_entries:,} sequences or positions")
    entries = {}
    for key, counts in sequences.items():
        if not isinstance(key, str) or "|" not in key:
            raise ValueError(f"rote entry {key!r} is malformed")
        entries[key] = _rote_entry(key, counts, key.partition("|")[2].split())
    by_position = {}
    for key, counts in positions.items():
        if not isinstance(key, str) or len(key.split()) != 4:
            raise ValueError(f"rote position {key!r} is not an EPD (placement, side, castling, en passant)")
        by_position[key] = _rote_entry(key, counts, [])
    return RoteMemory(
        entries,
        max_ply=_count(rote["max_ply"], "rote max_ply"),
        min_games=_count(rote["min_games"], "rote min_games"),
        positions=by_position,
    )


def _rote_entry(key: str, counts: Any, played: list[str]) -> RoteEntry:
    if not isinstance(counts, dict) or not counts:
        raise ValueError(f"rote entry {key!r} is malformed")
    for move in [*played, *counts]:
        try:
            chess.Move.from_uci(move)
        except ValueError:
            raise ValueError(f"rote entry {key!r} holds {move!r}, not a move in UCI notation") from None
    return RoteEntry(key, {str(move): _count(n, f"rote count {key}") for move, n in counts.items()})


def to_document(state: FittedState) -> dict[str, Any]:
    """The file's content for a fitted state: format, version, toolkit, then the state."""
    return {"format": FORMAT, "version": VERSION, "toolkit": __version__, **state.to_dict()}


def from_document(data: Any, *, source: str = "model") -> FittedState:
    """The fitted state in :func:`to_document`'s content (ModelFileError if malformed)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"{source} is not an IAM model file (format {FORMAT!r} expected)")
    if isinstance(data.get("version"), bool) or data.get("version") != VERSION:
        raise ModelFileError(
            f"{source} has model file version {data.get('version')!r}; this toolkit reads version {VERSION}"
        )
    try:
        return FittedState.from_dict(data, max_chunks=MAX_CHUNKS, max_rote_entries=MAX_ROTE_ENTRIES)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelFileError(f"{source} is malformed: {detail}") from None
