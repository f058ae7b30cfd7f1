"""Which games a model was fitted on: each game known by a digest of its headers and moves.

A model file records the digests of its training games, so that a measurement can
tell whether the games it scores are games the model learned from, whatever file or
order they are read from. The digest covers the seven-tag roster (Event, Site, Date,
Round, White, Black, Result), the starting position and every move, so two different
games never share one in practice, and the same game read again always has the same.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from iam.games.heldout import split_of
from iam.games.pgn import PlayerGame

__all__ = ["DIGEST_CHARS", "TrainingGames", "game_digest"]

DIGEST_CHARS = 16
"""Hexadecimal characters of a game's digest (64 bits)."""
_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_DIGEST = re.compile(rf"[0-9a-f]{{{DIGEST_CHARS}}}")

FittedSplit = Literal["train", "all"]


def game_digest(game: PlayerGame) -> str:
    """The digest of ``game``: its seven-tag roster, starting position and moves, hashed."""
    tags = {"White": game.white, "Black": game.black, "Event": game.event, "Date": game.date, **game.tags}
    parts = [f"{name}={tags.get(name, '')}" for name in _ROSTER]
    parts.append(game.start_fen)
    parts.extend(move.uci() for move in game.moves)
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:DIGEST_CHARS]


@dataclass(frozen=True)
class TrainingGames:
    """The games a model was fitted on: their digests, and the side of the held-out split they came from."""

    digests: frozenset[str]
    split: FittedSplit
    """``train`` when none of them is a test game (``i % 5 == 4`` among the player's games), else ``all``."""

    @classmethod
    def of(cls, games: Sequence[PlayerGame]) -> TrainingGames:
        """The record of ``games``, the games a model is fitted on."""
        split: FittedSplit = "all" if any(split_of(game.index) == "test" for game in games) else "train"
        return cls(frozenset(map(game_digest, games)), split)

    def among(self, games: Iterable[PlayerGame]) -> list[PlayerGame]:
        """The games of ``games`` that are among these."""
        return [game for game in games if game_digest(game) in self.digests]

    def to_dict(self) -> dict[str, Any]:
        return {"split": self.split, "game_digests": sorted(self.digests)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, games: int) -> TrainingGames | None:
        """The record in a model file's ``training`` part, None when it has none; ValueError when it is malformed.

        ``games``: how many games the file says the model was fitted on (the digests cannot be more).
        """
        if "game_digests" not in data and "split" not in data:
            return None
        digests, split = data["game_digests"], data["split"]
        if split not in ("train", "all"):
            raise ValueError(f"its training split must be 'train' or 'all', not {split!r}")
        if not isinstance(digests, list) or len(digests) > games:
            raise ValueError(f"its training games must be a list of at most {games} digests")
        if not all(isinstance(digest, str) and _DIGEST.fullmatch(digest) for digest in digests):
            raise ValueError(f"a training game's digest must be {DIGEST_CHARS} hexadecimal digits")
        return cls(frozenset(digests), split)
