"""What the engine is: the model it starts with (:class:`EngineModel`), and what it says of
itself in answer to ``uci`` (:class:`Identity`: its name, its options, its mode's note).

Kept apart from the engine, without the compiled core, so that a process answers ``uci``
before the core has loaded (:mod:`~search.chess.uci.startup`).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass

import chess

from search.chess.imitation import Imitation, MoveJudge
from search.chess.uci.protocol import MAX_MULTIPV
from search.opponent.predictor import MovePredictor

__all__ = ["ENGINE_NAME", "DEFAULT_HASH_MB", "EngineModel", "ModelLoader", "JudgeLoader", "Identity"]


def _version() -> str:
    try:
        return importlib.metadata.version("iam-toolkit")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "(source)"


ENGINE_NAME = f"IAM toolkit {_version()}"
"""The engine's name; each mode adds what it plays with (see :attr:`Identity.name`)."""
DEFAULT_HASH_MB = 64
"""The ``Hash`` option's default, in MB."""


ModelLoader = Callable[[str], "tuple[MovePredictor, str]"]
"""Reads a model file for the ``ModelFile`` option: the predictor and the name it goes by
(``a model of X``); a ValueError's message is reported to the GUI."""

JudgeLoader = Callable[[str, MovePredictor], MoveJudge]
"""Starts the engine at a path as the judge of the imitation's drawn moves, his rate by it measured for the model
(the ``CheckEngine`` option); a ValueError's message is reported to the GUI."""


@dataclass(frozen=True)
class EngineModel:
    """The model of the player the engine starts with, and how its ``ModelFile`` option reads another."""

    predictor: MovePredictor | None = None
    """The modelled player's move predictor (None: no model, the plain search)."""
    name: str = "opponent model"
    """What the model goes by in the engine's name and notes (``a model of X``)."""
    modelled_color: chess.Color | None = None
    """The colour whose nodes the model guides (None: the engine's opponent at each move)."""
    loader: ModelLoader | None = None
    """Reads a model file for the ``ModelFile`` option (``None``: the option is not offered)."""
    file: str = ""
    """The ``ModelFile`` option's value: the file ``predictor`` was read from."""
    pending: Callable[[], MovePredictor] | None = None
    """Reads the predictor while the engine starts (:mod:`~search.chess.uci.startup`: ``uci`` is answered
    first, ``isready`` after it); None: ``predictor`` is the model."""

    judge: MoveJudge | None = None
    """Judges the imitation's drawn moves (a stronger engine); None: the toolkit's own search checks them."""
    check_engine: str = ""
    """The ``CheckEngine`` option's value: the engine ``judge_loader`` makes the judge of (empty: none)."""
    judge_loader: JudgeLoader | None = None
    """Makes the judge of ``check_engine`` for the model, while the engine starts and for the ``CheckEngine``
    option (None: the option is not offered)."""

    @property
    def has_model(self) -> bool:
        """Whether the engine plays with a model (given, or read at its start)."""
        return self.predictor is not None or self.pending is not None


PIECE_VALUES_DEFAULT = "<tables>"
"""The ``PieceValues`` option's value for the evaluation's own material (:mod:`search.chess.pst`)."""


def piece_values_text(text: str) -> tuple[int, ...] | None:
    """The ``PieceValues`` option read: five whole centipawns (pawn, knight, bishop, rook, queen, separated
    by spaces or commas) for both phases of the compiled search's evaluation; None for the tables' own
    (empty or ``<tables>``). ValueError otherwise."""
    words = text.replace(",", " ").split()
    if not words or words == [PIECE_VALUES_DEFAULT]:
        return None
    try:
        values = tuple(int(round(float(word))) for word in words)
    except ValueError:
        raise ValueError(f"PieceValues takes five numbers (pawn knight bishop rook queen), not {text[:40]!r}") from None
    if len(values) != 5 or not all(1 <= v <= 10_000 for v in values):
        raise ValueError(f"PieceValues takes five centipawn values from 1 to 10000, not {text[:40]!r}")
    return values


@dataclass(frozen=True)
class Identity:
    """The engine's mode and options as ``uci`` lists them.

    The mode: imitating (``imitation`` given), exploiting (``weight`` given), guided
    (``model`` given) or plain.
    """

    model: str | None = None
    """What the model goes by (``a model of X``); None: no model."""
    modelled_color: chess.Color | None = None
    """The colour whose nodes a guiding model plans (None: the engine's opponent)."""
    weight: float | None = None
    """The exploiting search's weight (None: it does not exploit)."""
    imitation: Imitation | None = None
    """The imitation's settings (None: it does not imitate)."""
    model_file: str | None = None
    """The ``ModelFile`` option's value (None: the option is not offered; empty: no file)."""
    book: bool = False
    """Whether the ``OwnBook`` option is offered."""
    check_engine: str | None = None
    """The ``CheckEngine`` option's value (None: the option is not offered; empty: no engine)."""
    piece_values: str = PIECE_VALUES_DEFAULT
    """The ``PieceValues`` option's value: five numbers (pawn, knight, bishop, rook, queen), or the tables' own."""

    @property
    def name(self) -> str:
        """The engine's name in this mode, e.g. ``IAM toolkit 0.1.0 (guided by a model of Botvinnik)``."""
        if self.model is None:
            return ENGINE_NAME
        if self.imitation is not None:
            return f"{ENGINE_NAME} (playing as {self.model})"
        if self.weight is not None:
            return f"{ENGINE_NAME} (exploiting {self.model})"
        return f"{ENGINE_NAME} (guided by {self.model})"

    def lines(self) -> list[str]:
        """The answer to ``uci``: ``id``, ``option`` lines, ``uciok``, then the mode's ``info string``."""
        lines = [
            f"id name {self.name}",
            "id author IAM toolkit",
            f"option name Hash type spin default {DEFAULT_HASH_MB} min 1 max 4096",
            "option name Threads type spin default 1 min 1 max 1",
            "option name Ponder type check default false",
            f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}",
            f"option name PieceValues type string default {self.piece_values}",
        ]
        if self.model_file is not None:
            lines.append(f"option name ModelFile type string default {self.model_file or '<empty>'}")
        if self.book:
            lines.append("option name OwnBook type check default true")
        if self.imitation is not None:
            lines.append(f"option name Temperature type string default {self.imitation.temperature:g}")
            lines.append(f"option name Seed type spin default {self.imitation.seed} min 0 max 2147483647")
            lines.append(f"option name Strength type string default {self.imitation.strength:g}")
            rate = self.imitation.blunder_rate
            lines.append(f"option name BlunderRate type string default {'model' if rate is None else f'{rate:g}'}")
            if self.check_engine is not None:
                lines.append(f"option name CheckEngine type string default {self.check_engine or '<empty>'}")
        lines.append("uciok")
        if self.model is None:
            return lines
        if self.imitation is not None:
            lines.append(f"info string imitating {self.model}")
        elif self.weight is not None:
            lines.append(f"info string exploiting {self.model} (weight {self.weight:g})")
        else:
            whose = {None: "the opponent's", chess.WHITE: "White's", chess.BLACK: "Black's"}[self.modelled_color]
            lines.append(f"info string guided search with {self.model} at {whose} nodes")
        return lines
