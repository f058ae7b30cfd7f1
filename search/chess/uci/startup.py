"""An engine process's start: ``uci`` answered at once, the engine built meanwhile, ``isready`` after it.

A GUI starts the engine and sends ``uci``, and many wait only a few seconds for
``uciok``; loading the compiled core takes longer than that on a busy machine. So
:func:`serve` answers ``uci`` from the engine's :class:`~search.chess.uci.identity.Identity`
(python-chess only) while a thread builds the engine: imports the core, loads its
machine code, searches once so that the first ``go`` is as fast as any other. Every
other command waits for the engine, in the order read: ``isready`` is answered once it
is built, as the protocol means it, and a ``go`` read meanwhile keeps the time it was
read, which its clock counts from.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

import chess

from search.chess.imitation import Imitation
from search.chess.uci.identity import PIECE_VALUES_DEFAULT, EngineModel, Identity
from search.opponent.exploitation import Exploitation
from search.opponent.predictor import abilities_of

if TYPE_CHECKING:
    from search.chess.exploit import ExploitingSettings
    from search.chess.uci.engine import UciEngine

__all__ = ["SWITCH_INTERVAL", "serve", "main"]

SWITCH_INTERVAL = 0.001
"""Seconds a thread holds Python's interpreter lock before another may take it, in an engine
process (Python's default: 0.005). The command loop then reads a ``stop`` and answers it while
a prediction or the start-up's imports run in another thread, instead of queueing for the
lock at each of its steps."""

class _Builder:
    """Builds the engine in a thread of its own; :meth:`engine` waits for it (and raises what it raised)."""

    def __init__(self, build: Callable[[], UciEngine]) -> None:
        self._build = build
        self._box: list[UciEngine | BaseException] = []
        self._thread = threading.Thread(target=self._run, name="uci-start", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._box.append(self._build())
        except BaseException as exc:  # handed to the command loop by engine()
            self._box.append(exc)

    @property
    def ready(self) -> bool:
        return bool(self._box)

    def engine(self) -> UciEngine:
        self._thread.join()
        outcome = self._box[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def serve(identity: Identity, build: Callable[[], UciEngine], lines: Iterable[str], output: TextIO) -> None:
    """Run the engine ``build`` makes on ``lines``, answering ``uci`` from ``identity`` until it is built."""
    builder = _Builder(build)
    commands = iter(lines)
    for line in commands:
        words = line.split()
        if builder.ready or words[:1] not in (["uci"], ["quit"]):
            read_at = time.perf_counter()
            engine = builder.engine()
            if engine.handle(line, read_at):
                engine.run(commands)
            return
        if words[0] == "quit":
            return
        output.write("".join(f"{answer}\n" for answer in identity.lines()))
        output.flush()
    builder.engine().run(())


_NO_MODEL = EngineModel()


def _read_model(model: EngineModel, exploitation: Exploitation | None) -> tuple[EngineModel, Exploitation | None]:
    """``model`` with its predictor read (when it is pending), and the exploiting search scoring the replies at
    the depth the model scores moves (its search features then come from the same scores)."""
    loaded = model if model.pending is None else dataclasses.replace(model, predictor=model.pending(), pending=None)
    if loaded.judge is None and loaded.check_engine and loaded.judge_loader is not None and (
        loaded.predictor is not None
    ):
        loaded = dataclasses.replace(loaded, judge=loaded.judge_loader(loaded.check_engine, loaded.predictor))
    depth = abilities_of(loaded.predictor).root_score_depth if loaded.predictor is not None else 0
    if exploitation is not None and depth:
        exploitation = dataclasses.replace(exploitation, reply_depth=depth)
    return loaded, exploitation


def main(
    model: EngineModel = _NO_MODEL,
    *,
    exploitation: Exploitation | None = None,
    exploit_settings: ExploitingSettings | Callable[[], ExploitingSettings] | None = None,
    imitation: Imitation | None = None,
    book: str | None = None,
    piece_values: tuple[int, ...] | None = None,
) -> int:
    """Run the engine on standard input and output (bytes that are not UTF-8 read as U+FFFD);
    ``exploit_settings`` None: the defaults; a function: called while the engine is built (after ``uciok``)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    sys.setswitchinterval(SWITCH_INTERVAL)
    identity = Identity(
        model=model.name if model.has_model else None,
        modelled_color=model.modelled_color,
        weight=None if exploitation is None else exploitation.weight,
        imitation=imitation,
        model_file=None if model.loader is None else model.file,
        book=book is not None,
        check_engine=model.check_engine if model.judge_loader is not None and imitation is not None else None,
        piece_values=PIECE_VALUES_DEFAULT if piece_values is None else " ".join(map(str, piece_values)),
    )

    def build() -> UciEngine:
        from search.chess.exploit import ExploitingSettings
        from search.chess.uci.engine import UciEngine, settle_memory, warm_up

        loaded, exploiting = _read_model(model, exploitation)
        engine = UciEngine(
            output=sys.stdout, model=loaded, exploitation=exploiting,
            exploit_settings=(exploit_settings() if callable(exploit_settings) else exploit_settings)
            or ExploitingSettings(),
            imitation=imitation, book=book, piece_values=piece_values,
        )
        warm_up()
        if loaded.predictor is not None:  # its lazy parts (networks, evidence) read now, not at the first go
            with contextlib.suppress(Exception):  # a predictor that breaks is reported at the go that asks it
                loaded.predictor.predict_proba(chess.Board())
        settle_memory()
        return engine

    serve(identity, build, sys.stdin, sys.stdout)
    return 0
