"""Every predictor by name, and model files of either kind.

``iam evaluate`` compares predictors in one table; each is built here from its
name and the training games: ``iam`` (the source notes' chunks, :class:`~iam.chunks.model.OpponentModel`),
``ranker`` (the pure-Python :class:`~iam.ranker.MoveRanker`; ``ranker-no-prior`` the same
without its population prior, a control), ``ranker+engine``
(the ranker with a UCI engine's evidence), and the baselines of :mod:`iam.measure.baselines`.
:func:`load_predictor` reads a model file of either model kind.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from iam.chunks.fitted import FORMAT, from_document
from iam.chunks.model import OpponentModel
from iam.errors import ModelFileError
from iam.evidence.registry import with_engine
from iam.evidence.settings import DEFAULT_SEARCH_DEPTH
from iam.games.pgn import PlayerGame
from iam.measure.baselines import EngineBest, OpeningMemory, SearchBest, UniformRandom
from iam.models.files import read_document
from iam.ranker import DEFAULT_FAMILIES, MoveRanker
from iam.ranker.persistence import RANKER_FORMAT
from iam.runtime import Runtime

__all__ = [
    "PREDICTORS",
    "TRAINED",
    "PredictorSettings",
    "build_predictor",
    "load_predictor",
    "is_model_file",
    "available_predictors",
]

PREDICTORS: tuple[str, ...] = (
    "iam",
    "ranker",
    "ranker-no-prior",
    "ranker+engine",
    "search-best",
    "engine-best",
    "opening-memory",
    "random",
)
"""Every predictor name, in the order of the comparison table."""

TRAINED: frozenset[str] = frozenset({"iam", "ranker", "ranker-no-prior", "ranker+engine", "opening-memory"})
"""Predictors that learn from the training games (the others are the same for every training size)."""

_NEEDS_ENGINE = frozenset({"ranker+engine", "engine-best"})
_CONTROLS = frozenset({"ranker-no-prior"})
"""Predictors only asked for by name (``all`` leaves them out): the ranker without its population prior."""


@dataclass(frozen=True)
class PredictorSettings:
    """What the predictors are built with."""

    iam: dict = field(default_factory=dict)
    """Parameters of :class:`~iam.chunks.model.OpponentModel`."""
    ranker: dict = field(default_factory=dict)
    """Parameters of :class:`~iam.ranker.MoveRanker` (its families without the engine)."""
    engine_depth: int = 8
    """Depth of the engine's analyses (``ranker+engine`` and ``engine-best``, with an engine in ``runtime``)."""
    runtime: Runtime = Runtime()
    """What the predictors run on: the engine, the caches (the rankers' search scores across runs: the same
    scores) and the processes computing a ranker's training features."""
    search_depth: int = DEFAULT_SEARCH_DEPTH
    """Depth of the ``search-best`` baseline (the ranker's own search depth is in ``ranker``)."""


def available_predictors(settings: PredictorSettings) -> list[str]:
    """The predictors that can run with these settings (those needing an engine only with one)."""
    engine = settings.runtime.engine
    return [name for name in PREDICTORS if name not in _CONTROLS and (name not in _NEEDS_ENGINE or engine)]


def build_predictor(name: str, training: Sequence[PlayerGame], settings: PredictorSettings):
    """The predictor ``name``, fitted on ``training`` when it learns (ValueError for an unknown name)."""
    if name not in PREDICTORS:
        raise ValueError(f"unknown predictor {name!r} (known: {', '.join(PREDICTORS)})")
    runtime = settings.runtime
    if name in _NEEDS_ENGINE and not runtime.engine:
        raise ValueError(f"the {name} predictor needs an engine")
    if name == "iam":
        return OpponentModel(**settings.iam).fit(training)
    if name in ("ranker", "ranker-no-prior", "ranker+engine"):
        params = dict(settings.ranker)
        if name == "ranker-no-prior":
            params["prior"] = "none"
        if name == "ranker+engine":
            families = tuple(params.get("families", DEFAULT_FAMILIES))
            params.update(families=with_engine(families), engine_depth=settings.engine_depth)
        return MoveRanker(**params).fit(training, runtime=runtime)
    if name == "search-best":
        return SearchBest(settings.search_depth)
    if name == "engine-best":
        assert runtime.engine is not None  # checked above: it needs an engine
        return EngineBest(
            runtime.engine, depth=settings.engine_depth, cache=runtime.engine_cache, timeout=runtime.engine_timeout
        )
    if name == "opening-memory":
        return OpeningMemory(min_games=settings.iam.get("min_games", 2)).fit(training)
    return UniformRandom()


def load_predictor(path: str | Path, *, runtime: Runtime | None = None) -> OpponentModel | MoveRanker:
    """A model file of either kind (IAM model or move ranker); ModelFileError if it is neither.

    ``runtime``: what a ranker runs on, its engine among them when it has engine evidence (files never name one).
    """
    data = read_document(path)
    kind = data.get("format") if isinstance(data, dict) else None
    if kind == RANKER_FORMAT:
        return MoveRanker.from_dict(data, source=f"model file {path}", runtime=runtime)
    if kind == FORMAT:
        return OpponentModel.from_state(from_document(data, source=f"model file {path}"))
    raise ModelFileError(
        f"model file {path} is not an IAM model file (format {FORMAT!r} or {RANKER_FORMAT!r} expected, found {kind!r})"
    )


_SNIFF_BYTES = 4096


def is_model_file(path: str | Path) -> bool:
    """Whether ``path`` holds a model file of either kind, judged by its first bytes (not its name).

    A model file is JSON (plain or gzip) whose first key is its format; anything
    else, or a file that cannot be read, is not one.
    """
    try:
        with Path(path).open("rb") as stream:
            head = stream.read(_SNIFF_BYTES)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, _SNIFF_BYTES)
        except zlib.error:
            return False
    text = head.lstrip()
    return text.startswith(b"{") and any(f'"{kind}"'.encode() in text[:200] for kind in (FORMAT, RANKER_FORMAT))
