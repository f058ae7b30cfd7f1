"""The UCI engine's state and command loop: :class:`UciEngine`, and what readies a process for it.

The engine holds what persists between commands (the position and its set-up, the
tables, the options, the model and the mode it plays in) and the session of the one
search thread it may run (:mod:`~search.chess.uci.session`). Its command loop reads a
line, dispatches it to a ``_cmd_*`` handler and turns a handler's ValueError into an
``info string`` note, as the protocol asks. Parsing is left to
:mod:`~search.chess.uci.protocol`, time budgets to :mod:`~search.chess.uci.clock`, what
the search thread does to :mod:`~search.chess.uci.modes`, and what the engine says of
itself to :mod:`~search.chess.uci.identity`. :func:`warm_up` and :func:`settle_memory`
ready a process before its first ``go`` (:mod:`~search.chess.uci.startup` calls them).
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import threading
import time
from collections.abc import Iterable
from typing import TextIO

import chess

from search.chess.deadline import PredictionClock
from search.chess.engine import ChessSearch, table_bytes
from search.chess.evaluation import material_pst_evaluator
from search.chess.exploit import ExploitingSearch, ExploitingSettings
from search.chess.game import ChessGame
from search.chess.guided import ModelGuide
from search.chess.imitation import BlunderBudget, Imitation
from search.chess.play import PlaySearch
from search.chess.pst import PieceValues
from search.chess.scoring import RootScoreCache
from search.chess.uci.clock import _waits_for_stop, allotted_time, clock_problem, time_budget
from search.chess.uci.identity import (
    DEFAULT_HASH_MB,
    PIECE_VALUES_DEFAULT,
    EngineModel,
    Identity,
    JudgeLoader,
    ModelLoader,
    piece_values_text,
)
from search.chess.uci.modes import PlayModes
from search.chess.uci.protocol import (
    MAX_MULTIPV,
    GoCommand,
    _check,
    _depth_limit,
    _imitation_option,
    _play,
    _position,
    _spin,
    _split_option,
    _split_position,
    parse_go,
)
from search.chess.uci.session import SearchRun, SearchSession
from search.opponent.exploitation import Exploitation
from search.opponent.omsearch import Guidance
from search.opponent.predictor import MovePredictor
from search.ordering import HeuristicOrderer
from search.result import Limits
from search.transposition import TranspositionTable

SEARCH_HISTORY = 1024
"""Plies of the game a search sees: every real game whole; of a longer one, the recent
part, which holds all that repetitions need (a halfmove clock of 100 is a draw)."""
END_OF_INPUT_WAIT = 10.0
"""Seconds a search that ends on its own may still run once the input has ended."""
_GENERIC_ENTRY_BYTES = 200  # one entry of the generic search's table (go searchmoves), a dict in CPython
_MB = 1 << 20


def core_table_size(megabytes: int) -> int:
    """The compiled core's largest ``table_size`` whose tables (:func:`~search.chess.engine.table_bytes`)
    fit in ``megabytes`` MB (of 2**20 bytes), as the ``Hash`` option asks: at least one entry."""
    size = 1
    while table_bytes(2 * size) <= megabytes * _MB:
        size *= 2
    return size


_NO_MODEL = EngineModel()


def _check_modes(
    predictor: MovePredictor | None, exploitation: Exploitation | None, imitation: Imitation | None
) -> None:
    """ValueError for an engine asked to exploit or imitate without a predictor, or to do both."""
    if (exploitation is not None or imitation is not None) and predictor is None:
        raise ValueError("exploiting or imitating needs a move predictor")
    if exploitation is not None and imitation is not None:
        raise ValueError("an engine either exploits the modelled player or imitates him, not both")


class UciEngine(PlayModes):
    """Reads UCI commands, writes responses; one instance per engine process."""

    def __init__(
        self,
        *,
        output: TextIO = sys.stdout,
        model: EngineModel = _NO_MODEL,
        guidance: Guidance = Guidance(),
        exploitation: Exploitation | None = None,
        exploit_settings: ExploitingSettings = ExploitingSettings(),
        imitation: Imitation | None = None,
        end_of_input_wait: float = END_OF_INPUT_WAIT,
        book: str | None = None,
        piece_values: tuple[int, ...] | None = None,
    ) -> None:
        _check_modes(model.predictor, exploitation, imitation)
        self.piece_values = piece_values
        """The compiled search's piece values (the ``PieceValues`` option; None: the tables' own)."""
        self.exploitation = exploitation
        self.exploit_settings = exploit_settings
        """The exploiting search's budget share, contempt and selectivity."""
        self.imitation = imitation
        self.choices = {"model": 0, "search": 0}
        """How often the imitation played the model's move and how often the search's."""
        self.blunders = BlunderBudget()
        """The imitation's moves and blunders so far (over all its games): the budget of its blunder ceiling."""
        self._root_scores = RootScoreCache(capacity=1)
        self._scores_for: MovePredictor | None = None  # the predictor the imitation's root scores are shared with
        self.output = output
        self.end_of_input_wait = end_of_input_wait
        self.predictor = model.predictor
        self.predictor_name = model.name
        self.modelled_color = model.modelled_color
        self.guidance = guidance
        self.game = ChessGame()
        self.board = chess.Board()
        self._setup: tuple[list[str], list[str]] | None = None  # the last valid position command, to extend
        self.evaluator = material_pst_evaluator()
        self.hash_mb = DEFAULT_HASH_MB
        self._new_tables()
        self._init_search_control()
        self.multipv = 1
        """Lines the plain search reports (UCI MultiPV); the other modes report one."""
        self.model_loader = model.loader
        """Reads a model file for the ``ModelFile`` option (``None``: the option is not offered)."""
        self.model_file = model.file
        self.book = book
        """A polyglot opening book: where it has the position, its most weighted move is played at once."""
        self.own_book = book is not None
        self.judge = model.judge
        """Judges the imitation's drawn moves (None: the engine's own search checks them)."""
        self.judge_loader = model.judge_loader
        """Makes the judge of the ``CheckEngine`` option (``None``: the option is not offered)."""
        self.check_engine = model.check_engine

    def _init_search_control(self) -> None:
        """The session that runs one search at a time and sends its ``bestmove``, and the pondering state."""
        self._lock = threading.Lock()  # one writer of a line at a time
        self._session = SearchSession(self.send)
        self._pondering: GoCommand | None = None
        self._last_guide: ModelGuide | None = None  # the guide of the last search, whose beliefs name the ponder move
        self.ponder_option = False
        self._prediction_clock = PredictionClock()
        self._read_at = time.perf_counter()  # when the command being handled was read

    @property
    def _thread(self) -> threading.Thread | None:
        """The search thread of the last ``go`` until it is stopped (it may have ended)."""
        return self._session.thread

    def _new_tables(self) -> None:
        self.table = TranspositionTable(capacity=max(1, self.hash_mb * _MB // _GENERIC_ENTRY_BYTES))
        self.ordering = HeuristicOrderer()
        self.fast = PlaySearch(table_size=core_table_size(self.hash_mb), selective=False)
        if self.piece_values is not None:
            self.fast.values = PieceValues.uniform(self.piece_values)
        self.exploiting: ExploitingSearch | None = None
        if self.exploitation is not None:
            assert self.predictor is not None  # _check_modes: exploiting needs a predictor
            self.exploiting = ExploitingSearch(
                self.predictor, exploitation=self.exploitation, settings=self.exploit_settings, fast=self.fast,
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
            self._session.finish(self.end_of_input_wait)
        self._stop_search()

    def handle(self, line: str, read_at: float | None = None) -> bool:
        """Handle one command line, read at ``read_at`` (``time.perf_counter``; None: now): a ``go``'s
        clock starts then. ``False`` once the engine should quit."""
        self._read_at = time.perf_counter() if read_at is None else read_at
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
        for line in self.identity.lines():
            self.send(line)

    @property
    def identity(self) -> Identity:
        """The engine's mode and options as ``uci`` lists them."""
        return Identity(
            model=None if self.predictor is None else self.predictor_name,
            modelled_color=self.modelled_color,
            weight=None if self.exploitation is None else self.exploitation.weight,
            imitation=self.imitation,
            model_file=None if self.model_loader is None else self.model_file,
            book=self.book is not None,
            check_engine=self.check_engine if self.judge_loader is not None and self.imitation is not None else None,
            piece_values=PIECE_VALUES_DEFAULT if self.piece_values is None else " ".join(map(str, self.piece_values)),
        )

    @property
    def name(self) -> str:
        """The engine's name in this mode, e.g. ``IAM toolkit 0.1.0 (guided by a model of Botvinnik)``."""
        return self.identity.name

    def _cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")

    def _cmd_ucinewgame(self, args: list[str]) -> None:
        self._stop_search()
        self._new_tables()
        self.board = chess.Board()
        self._setup = None
        if self.imitation is not None:  # a new game of the series draws its own opening
            self.imitation = dataclasses.replace(self.imitation, game=self.imitation.game + 1)

    def _cmd_setoption(self, args: list[str]) -> None:
        name, value = _split_option(args)
        option = name.lower()
        if self._set_model_option(option, value):
            return
        if option == "ponder":
            self.ponder_option = _check("Ponder", value)  # the GUI decides when to ponder
        elif option == "threads":
            if value.strip() != "1":
                raise ValueError(f"Threads {value[:20]!r} refused: this engine searches with one thread")
        elif option == "multipv":
            lines = _spin(name, value, 1, MAX_MULTIPV)
            self._stop_search()
            self.multipv = lines
        elif option == "hash":
            self.hash_mb = _spin("Hash", value, 1, 4096)
            self._new_tables()
        elif option == "piecevalues":
            self.piece_values = piece_values_text(value)
            self._stop_search()
            self._new_tables()
        else:
            raise ValueError(f"unknown option {name!r}")

    def _set_model_option(self, option: str, value: str) -> bool:
        """Set one of the options offered only with a book or a model; False when ``option`` is none of them."""
        if option == "ownbook" and self.book is not None:
            self.own_book = _check("OwnBook", value)
        elif option == "modelfile" and self.model_loader is not None:
            self._load_model(self.model_loader, value.strip())
        elif self.imitation is not None and option in ("temperature", "seed", "strength", "blunderrate"):
            self.imitation = _imitation_option(self.imitation, option, value)
        elif option == "checkengine" and self.judge_loader is not None and self.imitation is not None:
            self._load_judge(self.judge_loader, value.strip())
        else:
            return False
        return True

    def _load_model(self, loader: ModelLoader, path: str) -> None:
        """The ``ModelFile`` option: guide (or exploit, or imitate) with the model of ``path``; empty: none."""
        self._stop_search()
        if path in ("", "<empty>"):
            if self.exploitation is not None or self.imitation is not None:
                raise ValueError("ModelFile cannot be emptied: this engine exploits or imitates a model")
            self.predictor, self.model_file = None, ""
            self.send("info string no model: plain search")
        else:
            self.predictor, self.predictor_name = loader(path)
            self.model_file = path
            self.send(f"info string loaded {path}: {self.predictor_name}")
        self._prediction_clock = PredictionClock()
        self._new_tables()

    def _load_judge(self, loader: JudgeLoader, path: str) -> None:
        """The ``CheckEngine`` option: the imitation's drawn moves judged by the engine at ``path``, his rate by it
        measured (or read from beside the model); empty: by the engine's own search."""
        self._stop_search()
        if path in ("", "<empty>"):
            self.judge, self.check_engine = None, ""
            self.send("info string drawn moves checked by the engine's own search")
            return
        assert self.predictor is not None  # imitating needs a predictor
        self.judge, self.check_engine = loader(path, self.predictor), path
        rate = "unmeasured" if self.judge.rate is None else f"{self.judge.rate:.3f}"
        self.send(f"info string drawn moves checked by {self.judge.name}; his blunder rate by it {rate}")

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
        for note in go.problems:
            self.send(f"info string ignored in go: {note}")
        board = self.board.copy(stack=SEARCH_HISTORY)
        allowed = [move for move in go.searchmoves if move in board.legal_moves]
        if go.searchmoves and not allowed:
            self.send("info string go searchmoves names no legal move; searching all moves")
        turn = board.turn
        problem = clock_problem(go, turn)
        if problem is not None:
            self.send(f"info string {problem}")
        seconds = time_budget(go, turn)
        pondering = go.ponder and not go.infinite
        self._pondering = go if pondering else None
        limits = Limits(depth=_depth_limit(go), nodes=go.nodes, time=seconds)
        imitation = self.imitation  # the options as they are at go

        started = self._read_at

        def play(run: SearchRun) -> str:
            return self._think(run, board, limits, tuple(allowed), imitation, started)

        allotted = allotted_time(go, turn)
        self._session.start(
            play, self._best_move(None, board, tuple(allowed)),
            released=not pondering and not _waits_for_stop(go, seconds),
            seconds=None if allotted is None else max(0.0, allotted - (time.perf_counter() - started)),
        )

    def _cmd_ponderhit(self, args: list[str]) -> None:
        """The opponent played the move we pondered on: search on under the clock."""
        go = self._pondering
        if go is None:
            raise ValueError("no ponder search is running")
        self._pondering = None
        normal = dataclasses.replace(go, ponder=False)
        seconds = time_budget(normal, self.board.turn)
        self._session.release(seconds, wait_for_stop=_waits_for_stop(normal, seconds))

    def _cmd_stop(self, args: list[str]) -> None:
        self._stop_search()

    def _stop_search(self) -> None:
        """End the running search (its ``bestmove`` is sent) before the engine's state changes."""
        self._session.stop()
        self._pondering = None


def settle_memory() -> None:
    """Collect garbage once and move every object the process holds now (the model, the
    tables) out of the collector's reach, so that a full collection cannot stall a move:
    with a model's many small objects one lasted about 0.1 s, past a short ``go``'s budget."""
    gc.collect()
    gc.freeze()


_WARM_UP_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"  # captures, checks, a mate


def warm_up() -> None:
    """Load the compiled core's machine code for every entry point a ``go`` uses (numba loads
    it on first use, about 0.1 s), so that the first search has the time of any other."""
    board = chess.Board(_WARM_UP_FEN)
    search = ChessSearch(table_size=1024)
    search.search(board, Limits(depth=2))
    PlaySearch(table_size=1024).search(board, Limits(depth=2))
    search.score_moves(board, 1)
    for _ in search.iterate_lines(board, Limits(depth=1), 2):
        pass
