"""The population: what other masters chose, as an opening book and as prior weights.

A :class:`PopulationBook` counts, per position of the first plies (EPD), the moves
several masters chose there in their own games (each master's moves only, from
his training games). Its features say how often the population chose a move
here. The prior weights of the ranker are a ranker fitted on those masters'
positions; a player's ranker is pulled towards them (:mod:`iam.priors.logit`).

The prior file (``iam/priors/population_prior.json.gz``, rebuilt by
``iam prior build``) keeps each master's book and several
weight vectors: one fitted on all masters, and one per master fitted without him,
so that the model of a bundled master never learns from his own games through the
population. A weight vector with the search family was fitted on the search's scores at
one depth; the file may hold vectors for several depths, and a ranker is pulled towards
the one fitted at its own depth. The vectors of the full sets of families also carry
residual trees (:mod:`iam.priors.trees`) boosted on top of them, which a player's ranker
adds to his own linear score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import chess
import numpy as np

from iam.errors import ModelFileError
from iam.games.pgn import PlayerGame, name_matches
from iam.models.files import read_document, write_document
from iam.priors.artefacts import verified_file
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.positions import PlayerPosition
from iam.priors.trees import ResidualTrees

__all__ = [
    "BOOK_FEATURES",
    "PopulationBook",
    "PopulationPrior",
    "PriorWeights",
    "book_features",
    "book_counts",
    "bundled_prior",
    "merge_priors",
    "update_prior",
    "load_prior",
    "save_prior",
    "PRIOR_FILE",
]

BOOK_FEATURES: tuple[str, ...] = ("book_share", "book_log_games", "book_top")
"""Columns of :func:`book_features`."""

BOOK_MAX_PLY = 30
"""The book counts positions of the first this many plies."""


def book_counts(
    games: Iterable[PlayerGame], *, max_ply: int = BOOK_MAX_PLY, min_games: int = 2
) -> dict[str, dict[str, int]]:
    """EPD -> {UCI move: games} of one master's own moves in the first ``max_ply`` plies.

    A position enters only when the master reached it in at least ``min_games`` games.
    """
    counts: dict[str, Counter] = {}
    for game in games:
        board = game.board()
        for move in game.moves[:max_ply]:
            if board.turn == game.color:
                counts.setdefault(board.epd(), Counter())[move.uci()] += 1
            board.push(move)
    return {epd: dict(counter) for epd, counter in counts.items() if sum(counter.values()) >= min_games}


@dataclass(frozen=True)
class PopulationBook:
    """Per master, per position, the moves he chose (see :func:`book_counts`)."""

    masters: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)

    def without(self, player: str | None) -> PopulationBook:
        """The book without any master whose name matches ``player`` (either way round)."""
        if not player:
            return self
        kept = {name: table for name, table in self.masters.items() if not _same_player(player, name)}
        return PopulationBook(kept)

    def lookup(self, board: chess.Board) -> Mapping[str, int]:
        """UCI move -> games, summed over the masters, for ``board``'s position."""
        if not self.masters:
            return {}
        epd = board.epd()
        total: Counter = Counter()
        for table in self.masters.values():
            found = table.get(epd)
            if found:
                total.update(found)
        return total


def book_features(book: PopulationBook, position: PlayerPosition) -> dict[str, np.ndarray]:
    """Column name -> value per legal move of ``position``."""
    counts = book.lookup(position.board)
    games = np.array([counts.get(move.uci(), 0) for move in position.moves], dtype=np.float64)
    total = games.sum()
    share = games / total if total else games
    return {
        "book_share": share,
        "book_log_games": np.log1p(games),
        "book_top": (games == games.max()) * (total > 0) * 1.0 if len(games) else games,
    }


PRIOR_FORMAT = "iam-population-prior"
PRIOR_VERSION = 4
_READABLE_VERSIONS = (2, 3, 4)
"""Version 2 files name one search depth for the whole file, in their settings; files
before version 4 hold no residual trees."""


@dataclass(frozen=True)
class PriorWeights:
    """One fitted population ranker: its families, whom it left out, and its weights by column."""

    families: tuple[str, ...]
    without: str | None
    weights: dict[str, float]
    positions: int
    search_depth: int | None = None
    """Depth of the search family's scores it was fitted on (None without that family)."""
    trees: ResidualTrees | None = None
    """Residual trees boosted on top of these weights' scores, when they were fitted."""


@dataclass(frozen=True)
class PopulationPrior:
    """The bundled population: each master's book and move patterns, and the population rankers' weights."""

    book: PopulationBook
    rankers: tuple[PriorWeights, ...] = ()
    settings: dict = field(default_factory=dict)
    patterns: MovePatterns = field(default_factory=MovePatterns)

    def weights_for(
        self, families: Sequence[str], player: str | None, search_depth: int | None = None
    ) -> dict[str, float]:
        """The weights of the population ranker for ``families`` that never saw ``player``.

        The ranker left out the master ``player`` names when there is one, else the one
        fitted on all masters; among those, the one whose families match best (columns
        it lacks get weight 0; :meth:`fitted_for` says whether the match is exact), fitted
        at ``search_depth`` when one was (any depth when None or when none was).
        """
        pool = self._pool(player, search_depth)
        if not pool:
            return {}
        wanted = set(families)
        best = max(pool, key=lambda r: (len(wanted & set(r.families)), -len(set(r.families) - wanted)))
        return dict(best.weights)

    def fitted_for(self, families: Sequence[str], player: str | None, search_depth: int | None = None) -> bool:
        """Whether a population ranker that never saw ``player`` was fitted on exactly ``families``.

        The prior is fitted for the default families, each left out and each alone. For
        another combination the nearest fit weighs its columns for other company (the
        move family's weights are small beside the search, large without it), so a ranker
        pulls towards it only lightly (:func:`iam.ranker.estimator.prior_penalty`). With the
        search family, the fit must also be at ``search_depth`` (when given): scores of
        another depth spread differently, and their weights differ.
        """
        exact = [r for r in self._pool(player, search_depth) if set(r.families) == set(families)]
        if search_depth is None or "search" not in families:
            return bool(exact)
        return any(r.search_depth == search_depth for r in exact)

    def trees_for(
        self, families: Sequence[str], player: str | None, search_depth: int | None = None
    ) -> ResidualTrees | None:
        """The residual trees of the population ranker fitted on exactly ``families`` that never saw ``player``.

        None when that ranker has none (or there is no such ranker, or it was fitted at
        another search depth): the trees' splits hold only for the columns, and the
        search depth, they were boosted on.
        """
        if not self.fitted_for(families, player, search_depth):
            return None
        exact = [r for r in self._pool(player, search_depth) if set(r.families) == set(families)]
        if search_depth is not None and "search" in families:
            exact = [r for r in exact if r.search_depth == search_depth]
        return exact[0].trees if exact else None

    def search_depths(self) -> tuple[int, ...]:
        """The search depths the prior's rankers were fitted at, shallowest first."""
        return tuple(sorted({r.search_depth for r in self.rankers if r.search_depth is not None}))

    def _pool(self, player: str | None, search_depth: int | None = None) -> list[PriorWeights]:
        left_out = [r for r in self.rankers if r.without and player and _same_player(player, r.without)]
        pool = left_out or [r for r in self.rankers if r.without is None]
        if search_depth is None or not any(r.search_depth == search_depth for r in pool):
            return pool
        return [r for r in pool if r.search_depth in (None, search_depth)]

    def to_dict(self) -> dict:
        return {
            "format": PRIOR_FORMAT,
            "version": PRIOR_VERSION,
            "settings": self.settings,
            "books": self.book.masters,
            "patterns": {name: counts.to_dict() for name, counts in self.patterns.masters.items()},
            "rankers": [
                {
                    "families": list(r.families),
                    "without": r.without,
                    "positions": r.positions,
                    "search_depth": r.search_depth,
                    "weights": r.weights,
                    "trees": r.trees.to_dict() if r.trees is not None else None,
                }
                for r in self.rankers
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> PopulationPrior:
        if data.get("format") != PRIOR_FORMAT or data.get("version") not in _READABLE_VERSIONS:
            raise ValueError(f"not a population prior of version {' or '.join(map(str, _READABLE_VERSIONS))}")
        whole_file_depth = data.get("settings", {}).get("search_depth") if data["version"] == 2 else None
        rankers = tuple(
            PriorWeights(
                families=tuple(r["families"]),
                without=r["without"],
                weights={str(k): float(v) for k, v in r["weights"].items()},
                positions=int(r["positions"]),
                search_depth=_depth(r.get("search_depth", whole_file_depth) if "search" in r["families"] else None),
                trees=_trees(r.get("trees"), r["weights"]),
            )
            for r in data["rankers"]
        )
        books = {
            str(name): {str(epd): {str(m): int(c) for m, c in moves.items()} for epd, moves in table.items()}
            for name, table in data["books"].items()
        }
        patterns = MovePatterns(
            {str(name): PatternCounts.from_dict(counts) for name, counts in data["patterns"].items()}
        )
        return cls(
            book=PopulationBook(books), rankers=rankers, settings=dict(data.get("settings", {})), patterns=patterns
        )


def merge_priors(priors: Sequence[PopulationPrior]) -> PopulationPrior:
    """One prior holding every search depth of ``priors`` (built alike but for that depth).

    The book, the patterns and the rankers without the search family are the first
    prior's (the others' are the same: only the search family's columns change with
    depth); the rankers with it come from each prior, each tagged with its depth.
    """
    if not priors:
        raise ValueError("no priors to merge")
    first = priors[0]
    rankers = [r for r in first.rankers if r.search_depth is None]
    seen: set[int] = set()
    for prior in priors:
        depths = {r.search_depth for r in prior.rankers if r.search_depth is not None}
        if depths & seen:
            raise ValueError(f"two priors fitted at search depth {sorted(depths & seen)[0]}")
        seen |= depths
        rankers += [r for r in prior.rankers if r.search_depth is not None]
    settings = dict(first.settings, search_depth=sorted(seen))
    return PopulationPrior(book=first.book, rankers=tuple(rankers), settings=settings, patterns=first.patterns)


def update_prior(base: PopulationPrior, newer: PopulationPrior) -> PopulationPrior:
    """``base`` with ``newer``'s fits in place of its fits of the same families, left-out master and depth.

    Fits ``newer`` has and ``base`` lacks are added; ``base``'s others are kept. For a build
    that refits some fits (on more positions, say) without recomputing the rest: the book
    and move patterns must be the same in both (they come from the same training games).
    """
    if newer.book.masters != base.book.masters:
        raise ValueError("the two priors have different books: they were built from different games")
    if {name: counts.to_dict() for name, counts in newer.patterns.masters.items()} != {
        name: counts.to_dict() for name, counts in base.patterns.masters.items()
    }:
        raise ValueError("the two priors have different move patterns: they were built from different games")

    def key(r: PriorWeights) -> tuple:
        return (frozenset(r.families), r.without, r.search_depth)

    replaced = {key(r) for r in newer.rankers}
    rankers = tuple(r for r in base.rankers if key(r) not in replaced) + newer.rankers
    settings = dict(base.settings, updated_by=newer.settings)
    return PopulationPrior(book=base.book, rankers=rankers, settings=settings, patterns=base.patterns)


def _trees(data: dict | None, weights: dict) -> ResidualTrees | None:
    """A ranker's residual trees from the file, which must split on its own columns."""
    if data is None:
        return None
    trees = ResidualTrees.from_dict(data)
    if set(trees.columns) != set(weights):
        raise ValueError("a ranker's residual trees must split on that ranker's columns")
    return trees


def _depth(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"a search depth must be a positive integer, not {value!r}")
    return value


def _same_player(a: str, b: str) -> bool:
    return name_matches(a, b) or name_matches(b, a)


PRIOR_FILE = Path(__file__).resolve().parent / "population_prior.json.gz"
"""The bundled population prior (rebuilt by ``iam prior build --bundled``, see ``scripts/build_artefacts.py``)."""


@cache
def bundled_prior() -> PopulationPrior:
    """The bundled population prior, checked against its manifest and read once per process.

    An empty one (no book, no weights) if none is installed.
    """
    if not PRIOR_FILE.is_file():
        return PopulationPrior(book=PopulationBook())
    return load_prior(verified_file(PRIOR_FILE.name))


def load_prior(path: str | Path) -> PopulationPrior:
    """Read a population prior file; ModelFileError if it is not one."""
    data = read_document(path)
    try:
        return PopulationPrior.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelFileError(f"population prior {path} is malformed: {exc}") from None


def save_prior(prior: PopulationPrior, path: str | Path) -> None:
    """Write a population prior file (gzip JSON when the name ends in .gz)."""
    write_document(prior.to_dict(), path)
