"""The held-out protocol, used everywhere so that figures compare.

A player's games are numbered in file order from 0 (``PlayerGame.index``; a game
that cannot be read keeps its number). Game ``i`` is a *test* game when
``i % 5 == 4``, else a *training* game. Training on N games means the first N
training games. Settings are never chosen on test games: training game ``i`` is a
*development* game when ``i % 5 == 3``, and a setting is chosen on development
games with a model fitted on the other training games (the *fitting* games).
Scoring fewer test positions samples whole test games with a seed
(:func:`sample_test_games`), so the protocol stays intact.

The functions take any records with an ``index`` (and, for the sample, the few
members of :class:`~iam.games.pgn.PlayerGame` they use), so this module sits below
:mod:`iam.games.pgn`, which numbers and splits the games it reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, Protocol, TypeVar

import numpy as np

from iam.errors import ParameterError

__all__ = [
    "TEST_EVERY",
    "DEVELOPMENT_REMAINDER",
    "Split",
    "split_of",
    "is_development",
    "training_games",
    "test_games",
    "development_games",
    "fitting_games",
    "first_training_games",
    "parse_sizes",
    "training_sizes",
    "sample_test_games",
]

TEST_EVERY = 5
"""Game ``i`` of a player is a test game when ``i % TEST_EVERY == TEST_EVERY - 1``."""
DEVELOPMENT_REMAINDER = 3
"""Training game ``i`` is a development game when ``i % TEST_EVERY == DEVELOPMENT_REMAINDER``."""

Split = Literal["train", "test"]


class Numbered(Protocol):
    """A game with its number among the player's games."""

    @property
    def index(self) -> int: ...


G = TypeVar("G", bound=Numbered)


def split_of(index: int) -> Split:
    """Which side of the split the player's game ``index`` is on.

    >>> [split_of(i) for i in range(6)]
    ['train', 'train', 'train', 'train', 'test', 'train']
    """
    return "test" if index % TEST_EVERY == TEST_EVERY - 1 else "train"


def is_development(index: int) -> bool:
    """Whether game ``index`` is a training game set aside for choosing settings."""
    return index % TEST_EVERY == DEVELOPMENT_REMAINDER


def training_games(games: Sequence[G]) -> list[G]:
    """The training games of ``games``, in order."""
    return [game for game in games if split_of(game.index) == "train"]


def test_games(games: Sequence[G]) -> list[G]:
    """The test games of ``games``, in order."""
    return [game for game in games if split_of(game.index) == "test"]


def development_games(games: Sequence[G]) -> list[G]:
    """Training games set aside for choosing settings (never test games)."""
    return [game for game in training_games(games) if is_development(game.index)]


def fitting_games(games: Sequence[G]) -> list[G]:
    """The training games that are not development games, for a model to tune with."""
    return [game for game in training_games(games) if not is_development(game.index)]


def first_training_games(games: Sequence[G], count: int | None) -> list[G]:
    """The first ``count`` training games (all of them when ``count`` is None)."""
    training = training_games(games)
    return training if count is None else training[:count]


def parse_sizes(text: str) -> list[int | None]:
    """Training sizes: ``"12,22,all"`` -> ``[12, 22, None]`` (ParameterError ``train_sizes`` on anything else).

    >>> parse_sizes("12, 80,all")
    [12, 80, None]
    """
    sizes: list[int | None] = []
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        if part == "all":
            sizes.append(None)
        elif part.isdigit() and int(part) > 0:
            sizes.append(int(part))
        else:
            raise ParameterError("train_sizes", part, "positive numbers or 'all'")
    if not sizes:
        raise ParameterError("train_sizes", text, "a list of positive numbers or 'all'")
    return sizes


def training_sizes(requested: Sequence[int | None], available: int) -> list[int]:
    """Requested sizes as game counts (``None``: all) capped at ``available``, ascending, without repeats.

    >>> training_sizes([12, None, 500], 80)
    [12, 80]
    """
    return sorted({available if size is None else min(size, available) for size in requested})


def sample_test_games(test: Sequence, max_positions: int | None, *, seed) -> list:
    """At most ``max_positions`` test positions: shuffled whole test games, the last one cut.

    The protocol stays intact (only fewer test positions are scored): the test games
    are shuffled with ``seed`` and taken whole until they hold ``max_positions``
    positions of the player; the last one taken is cut after its last such position
    needed. Returns the games in protocol order; all of ``test`` when the cap is
    ``None`` or not reached. ``seed`` is anything ``numpy.random.default_rng`` takes.
    """
    if max_positions is None:
        return list(test)
    order = np.random.default_rng(seed).permutation(len(test))
    taken, remaining = [], max_positions
    for position in order:
        if remaining == 0:
            break
        game = test[position]
        count = game.player_moves
        taken.append(game if count <= remaining else _first_positions(game, remaining))
        remaining -= min(count, remaining)
    return sorted(taken, key=lambda game: game.index)


def _first_positions(game, count: int):
    """``game`` cut right after the player's ``count``-th move."""
    offset = 0 if game.board().turn == game.color else 1
    return replace(game, moves=game.moves[: offset + 2 * count - 1])
