"""A UCI chess engine around the search library (the protocol any chess GUI speaks).

Commands: uci, isready, ucinewgame, setoption, position startpos|fen ... [moves ...],
go depth|nodes|mate|movetime|wtime|btime|winc|binc|movestogo|infinite|ponder|searchmoves,
ponderhit, stop, quit. Options: Hash, Ponder, Threads (1 only: another number is
refused with an ``info string``), MultiPV (the plain search's best lines), OwnBook (with a
polyglot book: its most weighted move where it has the position, without a search), ModelFile
(when the engine is given a way to read model files: a GUI loads the model of the
player the engine then searches against) and, when imitating, Temperature and Seed. The
engine's name says its mode (``... (guided by a model of X)``). The search runs in a thread so ``stop`` and ``isready`` are
answered while it thinks; an ``info`` line follows every completed depth and
``bestmove`` (with the expected reply as ``ponder``: with a model, the modelled player's most believed reply where
the search asked the model, else the principal variation's) ends every ``go``, also when the search breaks. Unknown or malformed commands are ignored with an ``info string``
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
the side not to move when ``go`` arrives. With an
:class:`~search.opponent.exploitation.Exploitation` it plays the value-exploiting search of
:mod:`search.chess.exploit` against that opponent instead. With an
:class:`~search.chess.imitation.Imitation` it plays *as* the modelled player: the
model's move (options ``Temperature`` and ``Seed``), the fast core's only where the
model is unsure in a tactical position.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.metadata
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

import chess
import chess.polyglot

from search.chess.deadline import BoundedPredictor, PredictionClock
from search.chess.engine import ChessSearch
from search.chess.evaluation import material_pst_evaluator
from search.chess.exploit import ExploitingSearch
from search.chess.game import ChessGame, is_mate_score, mate_in_plies
from search.chess.guided import GuideSettings, ModelGuide
from search.chess.imitation import Imitation, choose_imitation_move
from search.opponent.exploitation import Exploitation
from search.opponent.omsearch import Guidance, ModelPolicy
from search.opponent.predictor import MovePredictor, abilities_of
from search.ordering import HeuristicOrderer
from search.result import MAX_PLY, Limits, SearchResult
from search.searcher import Searcher
from search.transposition import TranspositionTable

__all__ = [
    "UciEngine",
    "GoCommand",
    "parse_go",
    "allotted_time",
    "time_budget",
    "settle_memory",
    "MAX_MULTIPV",
    "ModelLoader",
    "clock_problem",
    "ENGINE_NAME",
    "FALLBACK_SECONDS",
    "UNTIMED_SECONDS",
    "MAX_GO_NUMBER",
    "END_OF_INPUT_WAIT",
    "SEARCH_HISTORY",
]

def _version() -> str:
    try:
        return importlib.metadata.version("iam-toolkit")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "(source)"


ENGINE_NAME = f"IAM toolkit {_version()}"
"""The engine's name; each mode adds what it plays with (see :meth:`UciEngine.name`)."""
FALLBACK_SECONDS = 1.0
"""Thinking time for a ``go`` whose clock words leave out the side to move's clock."""
UNTIMED_SECONDS = 10.0
"""Thinking time bound of a ``go`` that names no time (not ``infinite`` or ``ponder``)."""
MAX_GO_NUMBER = 10**9
"""Larger numbers in ``go`` (milliseconds, nodes, depth) are read as this (11.6 days)."""
SEARCH_HISTORY = 1024
"""Plies of the game a search sees: every real game whole; of a longer one, the recent
part, which holds all that repetitions need (a halfmove clock of 100 is a draw)."""
END_OF_INPUT_WAIT = 10.0
"""Seconds a search that ends on its own may still run once the input has ended."""
_IMITATION_SEARCH_SHARE = 0.25  # of an imitating move's time, kept for a search when the model cannot answer
_SAFETY = 0.030  # seconds kept back for unwinding, printing and pipe latency
_DEFAULT_HASH_MB = 64
_ENTRY_BYTES = 200  # rough size of one table entry in CPython


@dataclass(frozen=True)
class GoCommand:
    """The parameters of one ``go`` command (times in milliseconds, as sent)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    mate: int | None = None
    """Search for a mate in this many moves (``go mate``): at most ``2 * mate - 1`` plies."""
    infinite: bool = False
    ponder: bool = False
    searchmoves: tuple[chess.Move, ...] = ()
    """Root moves to search (``go searchmoves``); empty: all legal moves."""
    problems: tuple[str, ...] = ()
    """What was malformed and left out of the command, for an ``info string`` note."""

    @property
    def has_clock(self) -> bool:
        """Whether any clock word (wtime, btime, winc, binc, movestogo) was sent."""
        return (
            self.wtime is not None
            or self.btime is not None
            or self.movestogo is not None
            or self.winc > 0
            or self.binc > 0
        )


_GO_INTS = {"depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate"}
MAX_MULTIPV = 256
"""The most lines ``setoption name MultiPV`` accepts."""

ModelLoader = Callable[[str], "tuple[MovePredictor, str]"]
"""Reads a model file for the ``ModelFile`` option: the predictor and the name it goes by
(``a model of X``); a ValueError's message is reported to the GUI."""

_DEEPEST = {"depth": MAX_PLY, "mate": MAX_PLY // 2}  # a deeper limit could not be reached: read as the deepest
_AT_LEAST_ONE = ("depth", "nodes", "mate")
_GO_WORDS = _GO_INTS | {"infinite", "ponder", "searchmoves"}


def parse_go(tokens: list[str]) -> GoCommand:
    """Parse the words after ``go``, leniently: a ``go`` must always be answered.

    Unknown words and missing or malformed numbers are left out and listed in
    ``problems``; numbers above :data:`MAX_GO_NUMBER` are capped; out-of-range numbers
    are clamped (negative times to 0; depth, nodes and mate to at least 1; a
    ``movestogo`` below 1 left out) and listed in ``problems`` too.
    """
    fields: dict = {}
    problems: list[str] = []
    moves: list[chess.Move] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        i += 1
        if word in ("infinite", "ponder"):
            fields[word] = True
        elif word == "searchmoves":
            while i < len(tokens) and tokens[i] not in _GO_WORDS:
                try:
                    moves.append(chess.Move.from_uci(tokens[i]))
                except ValueError:
                    problems.append(f"searchmoves {tokens[i][:20]!r} is not a move")
                i += 1
        elif word in _GO_INTS:
            text = tokens[i] if i < len(tokens) and tokens[i] not in _GO_WORDS else None
            i += text is not None
            value = _go_number(word, text, problems)
            if value is not None:
                fields[word] = value
        else:
            problems.append(f"unknown go parameter {word[:20]!r}")
    return GoCommand(**fields, searchmoves=tuple(moves), problems=tuple(problems))


def _go_number(word: str, text: str | None, problems: list[str]) -> int | None:
    """The number after a ``go`` word, capped; ``None`` (with a problem noted) if unusable."""
    if text is None or not (text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()):
        problems.append(f"go {word} needs a number" + (f", not {text[:20]!r}" if text else ""))
        return None
    digits = text.lstrip("+-").lstrip("0") or "0"
    value = MAX_GO_NUMBER if len(digits) > 10 else min(int(digits), MAX_GO_NUMBER)
    if text.startswith("-") and value:
        value = -value
    if word == "movestogo" and value < 1:
        problems.append(f"go {word} {text[:20]} is out of range")
        return None
    ceiling = _DEEPEST.get(word)
    if ceiling is not None and value > ceiling:
        problems.append(f"go {word} {text[:20]} is beyond the search's {MAX_PLY} plies; read as {ceiling}")
        return ceiling
    floor = 1 if word in _AT_LEAST_ONE else 0
    if value < floor:
        problems.append(f"go {word} {text[:20]} is out of range; read as {floor}")
        return floor
    return value


def clock_problem(go: GoCommand, turn: chess.Color) -> str | None:
    """Why ``go`` cannot be timed for the side ``turn`` to move, or ``None``."""
    if go.infinite or go.movetime is not None or not go.has_clock:
        return None
    if (go.wtime if turn == chess.WHITE else go.btime) is None:
        missing = "wtime" if turn == chess.WHITE else "btime"
        return f"go without {missing} for the side to move; searching {FALLBACK_SECONDS:g} s"
    return None


def allotted_time(go: GoCommand, turn: chess.Color) -> float | None:
    """Seconds from ``go`` to ``bestmove`` the engine means to take; ``None``: no limit.

    ``movetime`` as sent; with a clock, a share of the mover's remaining time (a
    fortieth, or the moves to go) plus most of the increment, never more than the clock
    minus a safety margin; with clock words but no clock for the mover,
    :data:`FALLBACK_SECONDS`; with no time, depth or node word (a bare ``go``, a
    ``go mate``), :data:`UNTIMED_SECONDS`. Pondering, ``infinite`` and a depth or node
    limit alone have no time limit.
    """
    if go.infinite or go.ponder:
        return None
    if go.movetime is not None:
        return go.movetime / 1000
    remaining = go.wtime if turn == chess.WHITE else go.btime
    if remaining is None:
        if go.has_clock:
            return FALLBACK_SECONDS
        return UNTIMED_SECONDS if go.depth is None and go.nodes is None else None
    increment = (go.winc if turn == chess.WHITE else go.binc) / 1000
    clock = remaining / 1000
    share = clock / (go.movestogo or 40) + 0.8 * increment
    return max(0.0, min(share, clock - _SAFETY))


def time_budget(go: GoCommand, turn: chess.Color) -> float | None:
    """Seconds the search itself may run for ``go``: :func:`allotted_time` less a
    safety margin for unwinding and answering; ``None`` for no time limit."""
    allotted = allotted_time(go, turn)
    return None if allotted is None else max(0.0, allotted - _SAFETY)


def _check_modes(
    predictor: MovePredictor | None, exploitation: Exploitation | None, imitation: Imitation | None
) -> None:
    """ValueError for an engine asked to exploit or imitate without a predictor, or to do both."""
    if (exploitation is not None or imitation is not None) and predictor is None:
        raise ValueError("exploiting or imitating needs a move predictor")
    if exploitation is not None and imitation is not None:
        raise ValueError("an engine either exploits the modelled player or imitates him, not both")


class UciEngine:
    """Reads UCI commands, writes responses; one instance per engine process."""

    def __init__(
        self,
        *,
        output: TextIO = sys.stdout,
        predictor: MovePredictor | None = None,
        predictor_name: str = "opponent model",
        modelled_color: chess.Color | None = None,
        guidance: Guidance = Guidance(),
        exploitation: Exploitation | None = None,
        exploit_share: float = 0.35,
        exploit_contempt: float = 0.0,
        exploit_reduce: float = 0.0,
        imitation: Imitation | None = None,
        end_of_input_wait: float = END_OF_INPUT_WAIT,
        model_loader: ModelLoader | None = None,
        model_file: str = "",
        book: str | None = None,
    ) -> None:
        _check_modes(predictor, exploitation, imitation)
        self.exploitation = exploitation
        self.exploit_share = exploit_share
        """The most of each move's budget the exploiting search's probes may use."""
        self.exploit_contempt = exploit_contempt
        """How many of the modelled player's expected errors a draw costs the exploiting search."""
        self.exploit_reduce = exploit_reduce
        """His quiet moves his reply policy believes less than this are searched a ply shallower (0: none)."""
        self.imitation = imitation
        self.choices = {"model": 0, "search": 0}
        """How often the imitation played the model's move and how often the search's."""
        self.output = output
        self.end_of_input_wait = end_of_input_wait
        self.predictor = predictor
        self.predictor_name = predictor_name
        self.modelled_color = modelled_color
        self.guidance = guidance
        self.game = ChessGame()
        self.board = chess.Board()
        self._setup: tuple[list[str], list[str]] | None = None  # the last valid position command, to extend
        self.evaluator = material_pst_evaluator()
        self.hash_mb = _DEFAULT_HASH_MB
        self._new_tables()
        self._init_search_control()
        self.multipv = 1
        """Lines the plain search reports (UCI MultiPV); the other modes report one."""
        self.model_loader = model_loader
        """Reads a model file for the ``ModelFile`` option (``None``: the option is not offered)."""
        self.model_file = model_file
        self.book = book
        """A polyglot opening book: where it has the position, its most weighted move is played at once."""
        self.own_book = book is not None

    def _init_search_control(self) -> None:
        """The lock, events, thread and timer that let one search run at a time, and the pondering state."""
        self._lock = threading.Lock()
        # One search at a time. ``_stop`` ends its iterations; ``_release`` lets it
        # send ``bestmove`` (set at once, or by stop / ponderhit for infinite and ponder
        # searches). Both are new for every ``go``, so a late timer cannot touch the next.
        self._stop = threading.Event()
        self._release = threading.Event()
        self._thread: threading.Thread | None = None
        self._pondering: GoCommand | None = None
        self._last_guide: ModelGuide | None = None  # the guide of the last search, whose beliefs name the ponder move
        self._timer: threading.Timer | None = None
        self.ponder_option = False
        self._prediction_clock = PredictionClock()

    def _new_tables(self) -> None:
        entries = max(1, self.hash_mb * 1_000_000 // _ENTRY_BYTES)
        self.table = TranspositionTable(capacity=entries)
        self.ordering = HeuristicOrderer()
        self.fast = ChessSearch(table_size=entries)
        self.exploiting = (
            ExploitingSearch(
                self.predictor, exploitation=self.exploitation, fast=self.fast,
                appraisal_share=self.exploit_share, contempt=self.exploit_contempt, reduce_below=self.exploit_reduce,
            )
            if self.exploitation is not None else None
        )

    def send(self, line: str) -> None:
        with self._lock:
            self.output.write(line + "\n")
            self.output.flush()

    def run(self, lines: Iterable[str]) -> None:
        """Handle commands until ``quit`` (which stops a search at once) or the end of
        input (which lets a search with a depth, node or time limit finish first, for at
        most ``end_of_input_wait`` seconds: nobody is left to send ``stop``)."""
        for line in lines:
            if not self.handle(line):
                break
        else:
            if self._thread is not None and self._release.is_set():
                self._thread.join(self.end_of_input_wait)
        self._stop_search()

    def handle(self, line: str) -> bool:
        """Handle one command line; ``False`` once the engine should quit."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            self.send(f"info string unknown command ignored: {line.strip()}")
            return True
        try:
            handler(args)
        except ValueError as exc:
            self.send(f"info string ignored {command}: {exc}")
        return True

    def _cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {self.name}")
        self.send("id author IAM toolkit")
        self.send(f"option name Hash type spin default {_DEFAULT_HASH_MB} min 1 max 4096")
        self.send("option name Threads type spin default 1 min 1 max 1")
        self.send("option name Ponder type check default false")
        self.send(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
        if self.model_loader is not None:
            self.send(f"option name ModelFile type string default {self.model_file or '<empty>'}")
        if self.book is not None:
            self.send("option name OwnBook type check default true")
        if self.imitation is not None:
            self.send(f"option name Temperature type string default {self.imitation.temperature:g}")
            self.send(f"option name Seed type spin default {self.imitation.seed} min 0 max 2147483647")
        self.send("uciok")
        if self.imitation is not None:
            self.send(f"info string imitating {self.predictor_name}")
        elif self.exploitation is not None:
            self.send(f"info string exploiting {self.predictor_name} (weight {self.exploitation.weight:g})")
        elif self.predictor is not None:
            whose = {None: "the opponent's", chess.WHITE: "White's", chess.BLACK: "Black's"}[self.modelled_color]
            self.send(f"info string guided search with {self.predictor_name} at {whose} nodes")

    @property
    def name(self) -> str:
        """The engine's name in this mode, e.g. ``IAM toolkit 0.1.0 (guided by a model of Botvinnik)``."""
        if self.imitation is not None:
            return f"{ENGINE_NAME} (playing as {self.predictor_name})"
        if self.exploitation is not None:
            return f"{ENGINE_NAME} (exploiting {self.predictor_name})"
        if self.predictor is not None:
            return f"{ENGINE_NAME} (guided by {self.predictor_name})"
        return ENGINE_NAME

    def _cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")

    def _cmd_ucinewgame(self, args: list[str]) -> None:
        self._stop_search()
        self._new_tables()
        self.board = chess.Board()
        self._setup = None

    def _cmd_setoption(self, args: list[str]) -> None:
        if len(args) < 2 or args[0] != "name":
            raise ValueError("expected: setoption name <id> [value <x>]")
        words = args[1:]
        name = " ".join(words[: words.index("value")] if "value" in words else words)
        value = " ".join(words[words.index("value") + 1 :]) if "value" in words else ""
        if name.lower() == "ponder":
            if value.lower() not in ("true", "false"):
                raise ValueError(f"Ponder must be true or false, got {value!r}")
            self.ponder_option = value.lower() == "true"  # the GUI decides when to ponder
            return
        if name.lower() == "threads":
            if value.strip() != "1":
                raise ValueError(f"Threads {value[:20]!r} refused: this engine searches with one thread")
            return
        if name.lower() == "multipv":
            lines = _spin(name, value, 1, MAX_MULTIPV)
            self._stop_search()
            self.multipv = lines
            return
        if name.lower() == "ownbook" and self.book is not None:
            if value.lower() not in ("true", "false"):
                raise ValueError(f"OwnBook must be true or false, got {value!r}")
            self.own_book = value.lower() == "true"
            return
        if name.lower() == "modelfile" and self.model_loader is not None:
            self._load_model(value.strip())
            return
        if self.imitation is not None and name.lower() in ("temperature", "seed"):
            self.imitation = _imitation_option(self.imitation, name.lower(), value)
            return
        if name.lower() != "hash":
            raise ValueError(f"unknown option {name!r}")
        self.hash_mb = _spin("Hash", value, 1, 4096)
        self._new_tables()

    def _load_model(self, path: str) -> None:
        """The ``ModelFile`` option: guide (or exploit, or imitate) with the model of ``path``; empty: none."""
        self._stop_search()
        if path in ("", "<empty>"):
            if self.exploitation is not None or self.imitation is not None:
                raise ValueError("ModelFile cannot be emptied: this engine exploits or imitates a model")
            self.predictor, self.model_file = None, ""
            self.send("info string no model: plain search")
        else:
            self.predictor, self.predictor_name = self.model_loader(path)
            self.model_file = path
            self.send(f"info string loaded {path}: {self.predictor_name}")
        self._prediction_clock = PredictionClock()
        self._new_tables()

    def _cmd_position(self, args: list[str]) -> None:
        """Set the position; a move list that extends the previous one only plays the new moves."""
        self._stop_search()
        setup, moves = _split_position(args)
        previous = self._setup
        if previous is not None and setup == previous[0] and moves[: len(previous[1])] == previous[1]:
            problem = _play(self.board, moves[len(previous[1]) :])
        else:
            self.board, problem = _position(args)
        self._setup = (setup, moves) if problem is None else None
        if problem is not None:
            self.send(f"info string invalid position ({problem}); the position is now {self.board.fen()}")

    def _cmd_go(self, args: list[str]) -> None:
        go = parse_go(args)
        self._stop_search()
        for problem in go.problems:
            self.send(f"info string ignored in go: {problem}")
        board = self.board.copy(stack=SEARCH_HISTORY)
        allowed = [move for move in go.searchmoves if move in board.legal_moves]
        if go.searchmoves and not allowed:
            self.send("info string go searchmoves names no legal move; searching all moves")
        turn = board.turn
        problem = clock_problem(go, turn)
        if problem is not None:
            self.send(f"info string {problem}")
        seconds = time_budget(go, turn)
        self._stop, self._release = threading.Event(), threading.Event()
        if go.ponder and not go.infinite:
            self._pondering = go
        elif not _waits_for_stop(go, seconds):
            self._release.set()
        limits = Limits(depth=_depth_limit(go), nodes=go.nodes, time=seconds)
        self._thread = threading.Thread(
            target=self._think, args=(board, limits, self._stop, self._release, tuple(allowed), self.imitation),
            daemon=True,
        )
        self._thread.start()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        """The opponent played the move we pondered on: search on under the clock."""
        go = self._pondering
        if go is None:
            raise ValueError("no ponder search is running")
        self._pondering = None
        normal = dataclasses.replace(go, ponder=False)
        seconds = time_budget(normal, self.board.turn)
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._stop.set)
            self._timer.daemon = True
            self._timer.start()
        if not _waits_for_stop(normal, seconds):
            self._release.set()

    def _cmd_stop(self, args: list[str]) -> None:
        self._stop_search()

    def _stop_search(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._release.set()
            self._thread.join()
            self._thread = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pondering = None

    def _think(
        self,
        board: chess.Board,
        limits: Limits,
        stop: threading.Event,
        release: threading.Event,
        allowed: tuple[chess.Move, ...] = (),
        imitation: Imitation | None = None,
    ) -> None:
        """The search thread: ``info`` per completed depth, then always one ``bestmove``.

        Anything raised inside the search (a predictor breaking its contract, say) is
        reported as an ``info string`` and the deepest completed iteration's move is
        played, or a legal fallback move, so a GUI never waits for a ``bestmove`` that
        does not come.
        """
        deadline = None if limits.time is None else time.perf_counter() + limits.time
        self._last_guide = None
        booked = self._book_move(board, allowed)
        if booked is not None:
            self.send(f"info string book move {booked.uci()}")
            release.wait()
            self.send(f"bestmove {booked.uci()}")
            return
        if imitation is not None and not allowed:  # the options as they were at go
            self._imitate(board, limits, stop, release, deadline, imitation)
            return
        if self.exploiting is not None and not allowed:
            self._exploit(board, limits, stop, release)
            return
        deepest: list[SearchResult] = []
        try:
            self._search(board, limits, stop, deadline, allowed, deepest)
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            self.send(f"info string search error: {type(exc).__name__}: {exc}")
        finally:
            self.fast.guide = None
        release.wait()
        self.send(f"bestmove {self._best_move(deepest[-1] if deepest else None, board, allowed)}")

    def _search(
        self, board: chess.Board, limits: Limits, stop: threading.Event, deadline: float | None,
        allowed: tuple[chess.Move, ...], deepest: list[SearchResult],
    ) -> None:
        """The plain or guided search, an ``info`` line per completed depth, each result appended to ``deepest``
        (kept when the search breaks later)."""
        guided = self._last_guide = self._guide(board, deadline)
        if allowed:  # go searchmoves: the generic search with a root filter and a table of its own
            inner = None if guided is None else ModelPolicy(
                self._bounded, modelled_player=0 if not board.turn else 1, guidance=self.guidance,
            )
            restricted = Searcher(
                self.game, evaluator=self.evaluator, ordering=self.ordering, quiescence=True,
                policy=_RootMoves(allowed, inner), table=TranspositionTable(capacity=self.table.capacity),
            )
            iterations = restricted.iterate(board, limits, stop=stop)
        elif guided is None and self.multipv > 1:  # the plain search, its best lines
            iterations = ()
            for lines in self.fast.iterate_lines(board, limits, self.multipv, stop=stop):
                deepest.append(lines[0])
                for index, line in enumerate(lines, 1):
                    self.send(self._info(line, board, index))
        else:  # the fast core, guided at his nodes when there is a guide
            self.fast.guide = guided
            iterations = self.fast.iterate(board, limits, stop=stop)
        if self.multipv > 1 and (guided is not None or allowed):
            self.send(f"info string MultiPV {self.multipv} is for the plain search; this search reports one line")
        for result in iterations:
            deepest.append(result)
            self.send(self._info(result, board))
        if guided is not None and not allowed:
            stats = guided.stats()
            skipped = f", {self._bounded.skipped} left out for time" if self._bounded.skipped else ""
            self.send(
                f"info string predictor {stats.calls} positions, {stats.cache_hits} cached, "
                f"{round(stats.seconds * 1000)} ms{skipped}"
            )

    def _imitate(
        self, board: chess.Board, limits: Limits, stop: threading.Event, release: threading.Event,
        deadline: float | None, imitation: Imitation,
    ) -> None:
        """The imitation's move: the model's, or the fast core's where the model leaves it to the search.

        With a time limit the prediction may use most of it (the rest is kept for a
        search); a prediction that cannot finish in that time is given up and the fast
        core's move played.
        """
        best: SearchResult | None = None
        move: chess.Move | None = None
        try:
            reserve = None if deadline is None else deadline - _IMITATION_SEARCH_SHARE * limits.time
            bounded = BoundedPredictor(self.predictor, reserve, self._prediction_clock)
            beliefs = bounded.predict_proba(board)
            choice = None if bounded.skipped else choose_imitation_move(board, beliefs, imitation)
            if choice is not None:
                self.choices[choice.source] += 1
            if choice is not None and choice.move is not None:
                move = choice.move
                self.send(f"info string model move {move.uci()} belief {choice.belief:.3f} (most believed {choice.top_belief:.3f})")
            else:
                if choice is None:
                    self.choices["search"] += 1
                    self.send("info string search move: no time for the model's prediction")
                else:
                    self.send(f"info string search move: model unsure ({choice.top_belief:.3f}) in a tactical position")
                if deadline is not None:
                    limits = dataclasses.replace(limits, time=max(0.0, deadline - time.perf_counter()))
                for best in self.fast.iterate(board, limits, stop=stop):
                    self.send(self._info(best, board))
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            self.send(f"info string imitation error: {type(exc).__name__}: {exc}")
        self.send(f"info string imitation so far: {self.choices['model']} model moves, {self.choices['search']} search moves")
        release.wait()
        self.send(f"bestmove {move.uci() if move is not None else self._best_move(best, board)}")

    def _exploit(self, board: chess.Board, limits: Limits, stop: threading.Event, release: threading.Event) -> None:
        """The value-exploiting choice against the modelled opponent (the side not to move)."""
        move: chess.Move | None = None
        best: SearchResult | None = None
        try:
            found = self.exploiting.search(board, limits, stop=stop, on_iteration=lambda r: self.send(self._info(r, board)))
            best, move = found.deepened or found.plain, found.move
            probed = sum(len(probe.replies) for probe in found.probes)
            verdict = "no candidate promised more than the plain move"
            candidate = found.candidate
            if candidate is not None:
                kept = "kept" if found.changed else "rejected"
                verdict = (f"checked {candidate.action.uci()} alone to depth {found.checked.depth}: "
                           f"{found.checked.value:g}, gain {candidate.gain(found.checked.value, self.exploitation.threshold):.0f}, {kept}")
            self.send(
                f"info string exploit probed {probed} replies of {len(found.probes)} moves; {verdict}; "
                f"playing {move.uci() if move is not None else '(none)'}; predictor {round(found.predictor_seconds * 1000)} ms"
                + (f"; contempt {found.contempt} cp" if self.exploit_contempt else "")
                + (f"; reduced {self.fast.reduced} of his moves" if self.fast.replies is not None else "")
            )
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            self.send(f"info string exploit error: {type(exc).__name__}: {exc}")
        release.wait()
        legal = move is not None and move in board.legal_moves
        self.send(f"bestmove {move.uci() if legal else self._best_move(best, board)}")

    def _guide(self, board: chess.Board, deadline: float | None = None) -> ModelGuide | None:
        """The guide of the fast core's search from ``board``; ``None`` for a plain search.

        The predictor's calls end by ``deadline``: its time counts against the move's budget.
        A predictor with a cheap reply policy (a move ranker fitted with one) guides every
        one of his nodes through that policy; another is asked at his nodes one ply below
        the root (:class:`~search.chess.guided.GuideSettings`). A new guide per ``go``: a
        prediction left out for time is asked again at the next move.

        The model steers only the modelled player's nodes. When the engine itself is
        asked to move for the modelled colour (``--player-color`` names the side to
        move), its own moves are not the model's business: that search is plain.
        """
        if self.predictor is None:
            return None
        modelled = self.modelled_color if self.modelled_color is not None else not board.turn
        if modelled == board.turn:
            self.send("info string the engine moves for the modelled player here: plain search")
            return None
        self._bounded = BoundedPredictor(self.predictor, deadline, self._prediction_clock)
        cheap = abilities_of(self.predictor).reply_policy
        settings = GuideSettings(guidance=self.guidance, near=0 if cheap is not None else 1)
        return ModelGuide(self._bounded, cheap=cheap, settings=settings)

    def _book_move(self, board: chess.Board, allowed: tuple[chess.Move, ...]) -> chess.Move | None:
        """The book's most weighted legal move here (one of ``allowed`` if given), or ``None``."""
        if self.book is None or not self.own_book:
            return None
        try:
            with chess.polyglot.open_reader(self.book) as reader:
                moves = [entry.move for entry in reader.find_all(board) if entry.move in board.legal_moves]
        except (OSError, ValueError) as exc:
            self.send(f"info string book {self.book} unreadable ({exc}); searching")
            return None
        moves = [move for move in moves if not allowed or move in allowed]
        return moves[0] if moves else None

    def _best_move(self, best: SearchResult | None, board: chess.Board, allowed: tuple[chess.Move, ...] = ()) -> str:
        """The move to send (with the expected reply as ``ponder`` when known), one of ``allowed`` if given."""
        if best is not None and best.move is not None and best.move in (allowed or board.legal_moves):
            reply = self._expected_reply(best, board)
            return best.move.uci() if reply is None else f"{best.move.uci()} ponder {reply.uci()}"
        moves = list(allowed or board.legal_moves)
        if not moves:
            return "0000"  # the game is over: the protocol's null move
        try:
            ordered = self.ordering.order(self.game.cursor(board), moves, ply=0, hint=None)
        except Exception:  # a broken orderer must not cost the move
            ordered = moves
        return ordered[0].uci()

    def _expected_reply(self, best: SearchResult, board: chess.Board) -> chess.Move | None:
        """The reply to ponder on: the modelled player's most believed one where the guided search asked the model
        (no new prediction: its time is spent), else the principal variation's."""
        after = board.copy()  # with the game's moves: a model's context reads them
        after.push(best.move)
        guide = self._last_guide
        believed = guide.believed_move(after) if guide is not None else None
        if believed is not None:
            return believed
        if len(best.pv) >= 2 and best.pv[0] == best.move and best.pv[1] in after.legal_moves:
            return best.pv[1]
        return None

    @staticmethod
    def _info(result: SearchResult, board: chess.Board, multipv: int | None = None) -> str:
        if is_mate_score(result.value):
            plies = mate_in_plies(result.value)
            moves = (plies + 1) // 2 if plies > 0 else -((-plies) // 2)
            score = f"mate {moves}"
        else:
            score = f"cp {round(result.value)}"
        millis = max(1, round(result.seconds * 1000))
        nodes = result.total_nodes
        pv = " ".join(move.uci() for move in result.pv)
        line = "" if multipv is None else f" multipv {multipv}"
        return (
            f"info depth {result.depth}{line} score {score} nodes {nodes} "
            f"nps {nodes * 1000 // millis} time {millis} pv {pv}"
        )


class _RootMoves:
    """A search policy that keeps only ``allowed`` at the root (``go searchmoves``), then defers to ``inner``."""

    def __init__(self, allowed: tuple[chess.Move, ...], inner: ModelPolicy | None) -> None:
        self.allowed = set(allowed)
        self.inner = inner

    def plan(self, cursor, actions, *, ply: int, depth: float):
        plan = self.inner.plan(cursor, actions, ply=ply, depth=depth) if self.inner is not None else None
        if ply > 0:
            return plan
        pairs = plan if plan is not None else [(action, 0) for action in actions]
        kept = [(action, adjustment) for action, adjustment in pairs if action in self.allowed]
        return kept or [(action, 0) for action in actions if action in self.allowed]


def _spin(name: str, value: str, low: int, high: int) -> int:
    """The whole number a spin option was set to; ValueError if it is not one or out of ``low..high``."""
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{name} needs a whole number, got {value[:20]!r}") from None
    if not low <= number <= high:
        raise ValueError(f"{name} {number} is out of range {low}..{high}")
    return number


def _imitation_option(imitation: Imitation, name: str, value: str) -> Imitation:
    """``imitation`` with the UCI option ``Temperature`` or ``Seed`` set; ValueError if out of range."""
    try:
        number = float(value) if name == "temperature" else int(value)
    except ValueError:
        raise ValueError(f"{name.title()} needs a number, got {value[:20]!r}") from None
    if name == "seed" and not 0 <= number <= 2**31 - 1:
        raise ValueError(f"Seed {number} is out of range 0..2147483647")
    return dataclasses.replace(imitation, **{name: number})


def _position(args: list[str]) -> tuple[chess.Board, str | None]:
    """The board a ``position`` command sets, and what was wrong with it (``None``: nothing).

    An invalid set-up gives the start position; an illegal or malformed move ends the
    move list there (the moves before it are played).
    """
    setup, moves = _split_position(args)
    if setup == ["startpos"]:
        board = chess.Board()
    elif setup and setup[0] == "fen" and len(setup) > 1:
        try:
            board = chess.Board(" ".join(setup[1:]))
        except ValueError as exc:
            return chess.Board(), f"bad FEN: {exc}"
        if not board.is_valid():
            return chess.Board(), f"illegal position {board.fen()}"
    else:
        return chess.Board(), "expected: position startpos|fen <fen> [moves ...]"
    return board, _play(board, moves)


def _split_position(args: list[str]) -> tuple[list[str], list[str]]:
    """The set-up words of a ``position`` command and its moves."""
    if "moves" in args:
        split = args.index("moves")
        return args[:split], args[split + 1 :]
    return args, []


def _play(board: chess.Board, moves: list[str]) -> str | None:
    """Push ``moves`` (UCI) on ``board`` up to the first bad one; what was wrong with it, or ``None``."""
    for uci in moves:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            return f"malformed move {uci[:20]!r}"
        if not board.is_legal(move):
            return f"illegal move {uci} in {board.fen()}"
        board.push(move)
    return None


def _depth_limit(go: GoCommand) -> int | None:
    """The deepest iteration for ``go``: its depth, or the plies a mate in ``mate`` moves takes."""
    depths = [depth for depth in (go.depth, None if go.mate is None else 2 * go.mate - 1) if depth is not None]
    return min(depths, default=None)


def _waits_for_stop(go: GoCommand, seconds: float | None) -> bool:
    """Whether a search for ``go`` sends ``bestmove`` only after ``stop``."""
    return go.infinite or (seconds is None and go.depth is None and go.nodes is None and go.mate is None)


def settle_memory() -> None:
    """Collect garbage once and move every object the process holds now (the model, the
    tables) out of the collector's reach, so that a full collection cannot stall a move:
    with a model's many small objects one lasted about 0.1 s, past a short ``go``'s budget."""
    gc.collect()
    gc.freeze()


def main(
    predictor: MovePredictor | None = None,
    *,
    predictor_name: str = "opponent model",
    modelled_color: chess.Color | None = None,
    exploitation: Exploitation | None = None,
    exploit_share: float = 0.35,
    exploit_contempt: float = 0.0,
    exploit_reduce: float = 0.0,
    imitation: Imitation | None = None,
    model_loader: ModelLoader | None = None,
    model_file: str = "",
    book: str | None = None,
) -> int:
    """Run the engine on standard input and output (bytes that are not UTF-8 read as U+FFFD)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    engine = UciEngine(
        predictor=predictor, predictor_name=predictor_name, modelled_color=modelled_color,
        exploitation=exploitation, exploit_share=exploit_share, exploit_contempt=exploit_contempt,
        exploit_reduce=exploit_reduce, imitation=imitation, model_loader=model_loader, model_file=model_file,
        book=book,
    )
    settle_memory()
    engine.run(sys.stdin)
    return 0
