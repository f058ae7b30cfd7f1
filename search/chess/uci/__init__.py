"""A UCI chess engine around the search library (the protocol any chess GUI speaks).

Commands: uci, isready, ucinewgame, setoption, position startpos|fen ... [moves ...],
go depth|nodes|mate|movetime|wtime|btime|winc|binc|movestogo|infinite|ponder|searchmoves,
ponderhit, stop, quit. Options: Hash, Ponder, Threads (1 only: another number is
refused with an ``info string``), MultiPV (the plain search's best lines), PieceValues (five
numbers, pawn to queen, for the compiled search's material; ``<tables>``: its own), OwnBook (with a
polyglot book: its most weighted move where it has the position, without a search), ModelFile
(when the engine is given a way to read model files: a GUI loads the model of the
player the engine then searches against) and, when imitating, Temperature, Seed, Strength,
BlunderRate and CheckEngine (when the engine is given a way to start one: a UCI engine
that judges the drawn moves, :class:`~search.chess.imitation.MoveJudge`). The
engine's name says its mode (``... (guided by a model of X)``). The search runs in a
thread so ``stop`` and ``isready`` are answered while it thinks; an ``info`` line follows
every completed depth and ``bestmove`` (with the expected reply as ``ponder``: with a
model, the modelled player's most believed reply where the search asked the model, else
the principal variation's) ends every ``go``, also when the search breaks. Unknown or
malformed commands are ignored with an ``info string``
note, as the protocol asks; a ``go`` always searches, its unknown or malformed words
noted and left out, its numbers capped at :data:`MAX_GO_NUMBER` and out-of-range ones
clamped (a negative time to 0, a depth or node count below 1 to 1, a depth beyond the
search's deepest ply to that ply), so that every
``go`` but ``go infinite`` and ``go ponder`` ends with a ``bestmove`` of its own. An invalid
``position`` is noted and leaves the engine on the valid part of it (the start
position if the set-up itself is invalid, the moves up to the first illegal one),
never on the previous position. A ``position`` whose moves extend the previous one's
only plays the new moves, so setting up costs the same at any length of game. The game
history reaches the search (its last :data:`SEARCH_HISTORY` plies): repetitions count,
and a move predictor sees the moves played.

Time: ``movetime`` is the time from ``go`` to ``bestmove``; with clocks, a share of
the mover's clock (a fortieth, or the moves to go) plus most of the increment. A
``go`` with clock words but no clock for the side to move is malformed: it is noted
and searched for a fixed :data:`FALLBACK_SECONDS`. ``go ponder`` searches without a
time limit until ``ponderhit`` (from then on the clock budget of that ``go`` applies)
or ``stop``; ``go infinite`` searches until ``stop``. ``go mate N`` searches at most
``2N - 1`` plies deep. A ``go`` with no limit of time, depth or nodes (a bare ``go``, a
``go mate``, a ``go`` whose every word was malformed) searches :data:`UNTIMED_SECONDS`.

The engine searches with the fast chess core (:mod:`search.chess.engine`). Given a
move predictor (an opponent model), the core is guided at the modelled player's nodes
(:mod:`search.chess.guided`): by default the modelled player is the engine's opponent,
the side not to move when ``go`` arrives. A timed guided move keeps a floor of plain
search: the plain core searches first, for half the time; the guided search, and the
model's predictions in it, have the other half (:data:`~search.chess.uci.modes.GUIDED_SHARE`),
and its move is played only from a depth the plain search completed too; an ``info
string`` says what the model cost and which search's move is played. With an
:class:`~search.opponent.exploitation.Exploitation` it plays the value-exploiting search of
:mod:`search.chess.exploit` against that opponent instead. With an
:class:`~search.chess.imitation.Imitation` it plays *as* the modelled player: the
model's move (options ``Temperature`` and ``Seed``), the fast core's only where the
model is unsure in a tactical position.

One owner, :class:`~search.chess.uci.session.SearchSession`, starts, stops and answers
the search thread: every ``go`` gets exactly one ``bestmove`` (a search that ends at
once, raises, races a ``stop``, meets ``quit`` or a new ``go``), and a timed search that
has not answered shortly after its time is answered for with its deepest move so far.

The package's modules: :mod:`~search.chess.uci.protocol` reads the commands' words and
writes ``info`` lines, :mod:`~search.chess.uci.clock` turns a ``go`` into a time budget,
:mod:`~search.chess.uci.engine` holds the engine's state and command loop,
:mod:`~search.chess.uci.session` the life of its search thread,
:mod:`~search.chess.uci.modes` what that thread plays, :mod:`~search.chess.uci.identity` what
the engine says of itself, and :mod:`~search.chess.uci.startup` how a process answers
``uci`` at once while the compiled core loads (``isready`` waits for it). The names below
are imported when first used, so that answer needs python-chess only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers and readers
    from search.chess.uci.clock import FALLBACK_SECONDS, UNTIMED_SECONDS, allotted_time, clock_problem, time_budget
    from search.chess.uci.engine import END_OF_INPUT_WAIT, SEARCH_HISTORY, UciEngine, settle_memory
    from search.chess.uci.identity import ENGINE_NAME, EngineModel, ModelLoader
    from search.chess.uci.protocol import MAX_GO_NUMBER, MAX_MULTIPV, GoClock, GoCommand, parse_go
    from search.chess.uci.startup import main

_PUBLIC = {
    **dict.fromkeys(
        ("FALLBACK_SECONDS", "UNTIMED_SECONDS", "allotted_time", "clock_problem", "time_budget"),
        "search.chess.uci.clock",
    ),
    **dict.fromkeys(("END_OF_INPUT_WAIT", "SEARCH_HISTORY", "UciEngine", "settle_memory"), "search.chess.uci.engine"),
    **dict.fromkeys(("EngineModel", "ModelLoader"), "search.chess.uci.identity"),
    "main": "search.chess.uci.startup",
    "ENGINE_NAME": "search.chess.uci.identity",
    **dict.fromkeys(
        ("MAX_GO_NUMBER", "MAX_MULTIPV", "GoClock", "GoCommand", "parse_go"), "search.chess.uci.protocol",
    ),
}
"""Public name -> the module that defines it."""

__all__ = [
    "UciEngine",
    "GoCommand",
    "GoClock",
    "parse_go",
    "allotted_time",
    "time_budget",
    "settle_memory",
    "MAX_MULTIPV",
    "ModelLoader",
    "EngineModel",
    "clock_problem",
    "ENGINE_NAME",
    "FALLBACK_SECONDS",
    "UNTIMED_SECONDS",
    "MAX_GO_NUMBER",
    "END_OF_INPUT_WAIT",
    "SEARCH_HISTORY",
    "main",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'search.chess.uci' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
