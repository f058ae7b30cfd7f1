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

import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

from search.chess.imitation import Imitation
from search.chess.uci.identity import EngineModel, Identity
from search.opponent.exploitation import Exploitation

if TYPE_CHECKING:
    from search.chess.exploit import ExploitingSettings
    from search.chess.uci.engine import UciEngine

__all__ = ["serve", "main"]

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


def main(
    model: EngineModel = _NO_MODEL,
    *,
    exploitation: Exploitation | None = None,
    exploit_settings: ExploitingSettings | None = None,
    imitation: Imitation | None = None,
    book: str | None = None,
) -> int:
    """Run the engine on standard input and output (bytes that are not UTF-8 read as U+FFFD);
    ``exploit_settings`` None: the defaults."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    identity = Identity(
        model=None if model.predictor is None else model.name,
        modelled_color=model.modelled_color,
        weight=None if exploitation is None else exploitation.weight,
        imitation=imitation,
        model_file=None if model.loader is None else model.file,
        book=book is not None,
    )

    def build() -> UciEngine:
        from search.chess.exploit import ExploitingSettings
        from search.chess.uci.engine import UciEngine, settle_memory, warm_up

        engine = UciEngine(
            model=model, exploitation=exploitation, exploit_settings=exploit_settings or ExploitingSettings(),
            imitation=imitation, book=book,
        )
        warm_up()
        settle_memory()
        return engine

    serve(identity, build, sys.stdin, sys.stdout)
    return 0
