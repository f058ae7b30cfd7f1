"""Engine evidence: every legal move of a position (or its best few) scored by a UCI engine, cached on disk.

A move ranker needs a score for *every* legal move, not just the engine's best one, and
the same positions come back in training, evaluation and experiments. So one analysis
asks the engine for as many principal variations as there are legal moves (MultiPV), at
a fixed depth, and keeps the result in a SQLite file that several processes may share.
A caller that needs only the engine's best moves asks for ``lines=k``: one MultiPV-``k``
search, far cheaper, kept in the cache apart from the complete analyses.

Scores are centipawns from the side to move's point of view; a mate in ``n`` (moves) for
the mover is ``MATE_SCORE - n``, being mated in ``n`` is ``-(MATE_SCORE - n)``, and
centipawn scores are clipped to ``+-MAX_CENTIPAWNS``, so ``abs(score) > MAX_CENTIPAWNS``
means a forced mate and nothing else.

Results are reproducible: the depth is fixed, the engine runs one thread by default, it
sees the position without the game's history, and its hash table and history are
cleared (``ucinewgame``) before every position, so a position's scores do not depend on
the game it came from or on what was analysed before it. That is also why a batch may
be spread over several engine processes (``engines``), one position each at a time: the
scores are the same whichever process gave them, and the engines share a batch's
positions on as many cores.

    >>> import chess
    >>> with EngineAnalyser("/usr/games/stockfish", depth=4) as analyser:  # doctest: +SKIP
    ...     scores = analyser.analyse(chess.Board()).scores
    >>> len(scores)  # doctest: +SKIP
    20
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import queue
import shutil
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine

from iam.engines.cache import SCHEMA_VERSION, AnalysisCache
from iam.errors import IAMError

__all__ = [
    "EngineAnalyser",
    "EngineError",
    "MoveScores",
    "MATE_SCORE",
    "MAX_CENTIPAWNS",
    "SCHEMA_VERSION",
    "default_analysis_timeout",
]

MATE_SCORE = 100_000
"""A mate in n moves for the side to move scores ``MATE_SCORE - n``."""

MAX_CENTIPAWNS = 20_000
"""Centipawn scores are clipped to +-this, far below any mate score."""

_LONGEST_MATE = MATE_SCORE - MAX_CENTIPAWNS - 1
"""Longer mates an engine reports are read as this long, so they stay in the mate range."""


def default_analysis_timeout(depth: int) -> float:
    """Seconds one position's analysis may take at ``depth`` before the engine counts as hung.

    Generous (a search's cost grows about geometrically with its depth, and one
    analysis scores every legal move): 30 s up to depth 8, doubling every 3 plies beyond.
    """
    return 30.0 * 2.0 ** (max(0, depth - 8) / 3)

# python-chess logs an engine's malformed output (an illegal PV, say) as it parses it; the
# analyser turns what matters into one EngineError line, so those notes reach stderr only
# when the program configures logging itself.
logging.getLogger("chess.engine").addHandler(logging.NullHandler())


class EngineError(IAMError):
    """The engine is missing, not a UCI engine or died, or the cache file is unusable.

    The message is one line for a person (the CLI prints it and exits with status 2).
    """


@dataclass(frozen=True)
class MoveScores:
    """One analysed position: a score for every legal move (or for the best few), and the search depth.

    ``scores`` maps moves to centipawns from the side to move's point of view (see the
    module docstring for mates and clipping), best first (ties in the engine's order),
    fresh or from the cache alike; it is empty for a position without legal moves
    (checkmate, stalemate). With ``lines`` None the analysis is complete: every legal
    move is there. With ``lines`` ``k`` it is partial: only the engine's best ``k`` moves
    of one MultiPV-``k`` search are there (all of them when the position has ``k`` or
    fewer), so a move missing from ``scores`` is one the engine ranks below those.
    """

    scores: dict[chess.Move, int]
    depth: int
    lines: int | None = None


class EngineAnalyser:
    """Scores every legal move (or the best ``lines``) with a UCI engine at a fixed depth, with an on-disk cache.

    ``lines`` None scores every legal move: one MultiPV search as wide as the engine
    allows, then searches restricted to the moves it left out. ``lines`` ``k`` scores the
    engine's best ``k`` moves only, with one MultiPV-``k`` search (see :class:`MoveScores`).

    The cache (a SQLite file, created when missing) is keyed by the position's EPD
    (pieces, side to move, castling rights, en passant square), the engine's UCI name
    (followed by ``multipv k`` for a partial analysis, so complete and partial analyses,
    and partial ones of different widths, never mix) and the depth, and the engine is
    shown exactly that: the position alone, without the game's move history and with
    the half-move clock at 0. So repetitions are ignored (a
    move that would repeat the position for the third time is scored as if it did not),
    and so is the fifty-move rule (Stockfish would otherwise damp its scores as the clock
    grows): a position scores the same whichever game, and whichever move of it, it
    came from.
    Threads and hash size are not part of the key: with ``threads=1`` (the default) the
    scores are exactly reproducible, with more threads they are not.

    Each finished position is committed at once, so an engine that dies mid-run loses
    nothing already computed, and two processes may write to the same file (WAL mode, a
    busy timeout, one short transaction per position). Without ``cache`` the results
    live in memory for as long as the analyser is open.

    The engine is started on first need and stopped by ``close`` (or leaving the
    ``with`` block). The cache remembers which engine name a path reported (with the
    executable's size and modification time), so positions already in the cache are
    served without starting the engine at all, even when the executable is gone.
    ``engines`` engine processes analyse the positions of one :meth:`analyse_many` call
    that are not in the cache, each taking the next position when it finishes one (each
    with ``threads`` threads and ``hash_mb`` of hash); one process serves single positions.
    ``timeout`` bounds how long the engine may take to answer the UCI handshake;
    ``analysis_timeout`` how long one position's analysis may take (default
    :func:`default_analysis_timeout` of the depth). An engine that overruns it, or that
    answers with an illegal move, is stopped (and started afresh for the next position)
    and ``EngineError`` names it, the position and the reason.
    """

    def __init__(
        self,
        path: str | os.PathLike = "stockfish",
        *,
        depth: int = 8,
        cache: str | os.PathLike | None = None,
        threads: int = 1,
        hash_mb: int = 16,
        timeout: float = 10.0,
        analysis_timeout: float | None = None,
        lines: int | None = None,
        engines: int = 1,
    ) -> None:
        for name, value in (("depth", depth), ("threads", threads), ("hash_mb", hash_mb), ("engines", engines)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if lines is not None and (not isinstance(lines, int) or lines < 1):
            raise ValueError(f"lines must be a positive integer or None, not {lines!r}")
        self.path = os.fspath(path)
        self.depth = depth
        self.lines = lines
        self.threads = threads
        self.engines = engines
        self.hash_mb = hash_mb
        self.timeout = timeout
        if analysis_timeout is not None and not 0 < analysis_timeout < float("inf"):
            raise ValueError(f"analysis_timeout must be a positive number of seconds, not {analysis_timeout!r}")
        self.analysis_timeout = default_analysis_timeout(depth) if analysis_timeout is None else analysis_timeout
        self._asked = 0  # positions asked for over this analyser's life, and how many of them are done
        self._done = 0
        self._fresh = 0
        self._cache = AnalysisCache(cache, label="engine cache", error=EngineError)
        self._engines: list[chess.engine.SimpleEngine | None] = [None] * engines  # started on first need
        self._engine_id: str | None = None

    def __enter__(self) -> EngineAnalyser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the engine (if it was started) and close the cache file; safe to repeat."""
        self._stop_engine()
        self._cache.close()

    @property
    def engine_id(self) -> str:
        """The engine's name as it reports it (UCI ``id name``), e.g. ``"Stockfish 15.1"``.

        Taken from the cache when this path was seen before and the executable is
        unchanged (or gone); otherwise the engine is started to ask it.
        """
        if self._engine_id is None:
            self._engine_id = self._cache.engine_for(self.path, _fingerprint(self.path))
        if self._engine_id is None:
            self._start_engine()
        assert self._engine_id is not None
        return self._engine_id

    @property
    def source(self) -> str:
        """The cache key's engine part: the engine's name, followed by ``multipv k`` for a partial analysis."""
        return self.engine_id if self.lines is None else f"{self.engine_id} multipv {self.lines}"

    @property
    def fresh(self) -> int:
        """How many positions the engine has scored for this analyser (the others it gave came from the cache)."""
        return self._fresh

    def analyse(self, board: chess.Board) -> MoveScores:
        """Scores of every legal move of ``board``, or of its best ``lines`` (from the cache when it is there)."""
        return self.analyse_many([board])[0]

    def analyse_many(
        self, boards: Iterable[chess.Board], *, progress: Callable[[int], None] | None = None
    ) -> list[MoveScores]:
        """Scores for each board, in order; cache hits first, then the engines, one position each at a time.

        ``progress(n)`` is told that ``n`` more boards are done (all cache hits at once,
        then each analysed position), so ``tqdm.update`` fits. If an engine dies, hangs or
        breaks the protocol, no engine takes another position, the positions finished so
        far (by every engine) are in the cache, and ``EngineError`` says how many, counted
        over every call to this analyser.
        """
        boards = list(boards)
        for board in boards:
            _check_board(board)
        keys = [board.epd() if any(board.generate_legal_moves()) else None for board in boards]
        copies = Counter(keys)
        found = self._cached({key: board for key, board in zip(keys, boards) if key is not None})
        missing = {key: board for key, board in zip(keys, boards) if key is not None and key not in found}
        done = len(boards) - sum(copies[key] for key in missing)
        self._asked += len(boards)
        self._done += done
        _report(progress, done)

        def finished(key: str, scores: dict[chess.Move, int]) -> None:
            found[key] = self._commit(missing[key], scores)
            self._done += copies[key]
            _report(progress, copies[key])

        if self.engines == 1 or len(missing) == 1:
            for key, board in missing.items():
                finished(key, self._analyse_fresh(board))
        elif missing:
            self._analyse_spread(missing, finished)
        empty = MoveScores(scores={}, depth=self.depth, lines=self.lines)
        return [empty if key is None else found[key] for key in keys]

    def _cached(self, boards: dict[str, chess.Board]) -> dict[str, MoveScores]:
        """The cached analyses among ``boards`` (by EPD; asks for the engine's name only when there are some)."""
        if not boards:
            return {}
        source = self.source
        found = {}
        for key, board in boards.items():
            scores = self._cache.get(key, source, self.depth, board, lines=self.lines)
            if scores is not None:
                found[key] = MoveScores(scores=scores, depth=self.depth, lines=self.lines)
        return found

    def _analyse_fresh(self, board: chess.Board, lane: int = 0) -> dict[chess.Move, int]:
        """Run engine ``lane`` on one position; EngineError (the engine stopped) if it dies, hangs or lies."""
        try:
            return self._score_moves(board, lane)
        except _ENGINE_FAILURES as exc:
            self._stop_engine(lane)
            raise self._failure(board, exc) from exc

    def _analyse_spread(
        self, missing: dict[str, chess.Board], finished: Callable[[str, dict[chess.Move, int]], None]
    ) -> None:
        """Analyse ``missing`` on up to ``engines`` engines at once, each taking the next position when done.

        Each engine runs in its own thread; this thread commits what they finish, in the
        order they finish it. After a failure no engine takes another position, what the
        others finish is still committed, then the first failure is raised.
        """
        lanes = min(self.engines, len(missing))
        for lane in range(lanes):  # started here: an engine that cannot start fails before any work is handed out
            self._running_engine(lane)
        todo = iter(missing.items())
        taking = threading.Lock()
        stop = threading.Event()
        results: queue.SimpleQueue = queue.SimpleQueue()
        threads = [
            threading.Thread(
                target=self._work_lane,
                args=(lane, todo, taking, stop, results),
                name=f"engine-{lane}",
                daemon=True,
            )
            for lane in range(lanes)
        ]
        for thread in threads:
            thread.start()
        try:
            failure = _commit_results(results, lanes, finished)
        except BaseException:  # interrupted, or a commit failed: the engines end with the positions in hand
            stop.set()
            for thread in threads:
                thread.join()
            _commit_left(results, finished)
            raise
        for thread in threads:
            thread.join()
        if failure is not None:
            key, exc = failure
            if isinstance(exc, _ENGINE_FAILURES):
                raise self._failure(missing[key], exc) from exc
            raise exc

    def _work_lane(
        self,
        lane: int,
        todo: Iterator[tuple[str, chess.Board]],
        taking: threading.Lock,
        stop: threading.Event,
        results: queue.SimpleQueue,
    ) -> None:
        """One engine's thread: score the next position of ``todo`` into ``results`` until none is left or ``stop``."""
        try:
            while not stop.is_set():
                with taking:
                    item = next(todo, None)
                if item is None:
                    break
                key, board = item
                try:
                    results.put((key, self._score_moves(board, lane)))
                except BaseException as exc:  # handed to the committing thread, which raises it
                    stop.set()
                    results.put((key, exc))
                    self._stop_engine(lane)
                    break
        finally:
            results.put(None)

    def _failure(self, board: chess.Board, exc: BaseException) -> EngineError:
        """The one-line EngineError for an engine that failed on ``board``, with the positions finished so far."""
        kept = "kept in the cache" if self._cache.on_disk else "kept"
        if isinstance(exc, TimeoutError):
            reason = f"no answer within {self.analysis_timeout:g} s at depth {self.depth} on {board.epd()}"
        else:
            reason = str(exc).replace("\n", " ") or "its connection was closed"
        return EngineError(
            f"engine {self.path} failed during analysis ({reason}): {self._done} of {self._asked} positions "
            f"finished and {kept}, {self._asked - self._done} not analysed"
        )

    def _commit(self, board: chess.Board, scores: dict[chess.Move, int]) -> MoveScores:
        """Keep a fresh analysis in the cache (at once, so nothing finished is lost)."""
        self._cache.put(board.epd(), self.source, self.depth, scores)
        self._fresh += 1
        return MoveScores(scores=scores, depth=self.depth, lines=self.lines)

    def _score_moves(self, board: chess.Board, lane: int = 0) -> dict[chess.Move, int]:
        """One MultiPV search over all legal moves (or the best ``lines``), then restricted searches for the rest.

        The restricted searches run only when the engine caps MultiPV below what is
        wanted: a partial analysis then takes the best of the moves not yet scored, so it
        still holds the engine's best ``lines`` moves.
        """
        engine = self._running_engine(lane)
        board = _position_alone(board)
        legal = list(board.legal_moves)
        wanted = len(legal) if self.lines is None else min(self.lines, len(legal))
        widest = _multipv_limit(engine, wanted)
        game = object()  # a new game token makes python-chess send ucinewgame: hash cleared
        limit = chess.engine.Limit(depth=self.depth)
        deadline = time.monotonic() + self.analysis_timeout
        infos = _analyse_until(engine, deadline, board, limit, multipv=widest, game=game)
        scores = _scores_from_lines(board, infos, set(legal))
        while len(scores) < wanted:
            left = [move for move in legal if move not in scores]
            batch = left[:widest] if self.lines is None else left
            width = min(widest, wanted - len(scores))
            infos = _analyse_until(engine, deadline, board, limit, multipv=width, game=game, root_moves=batch)
            new = _scores_from_lines(board, infos, set(batch))
            if not new:
                raise chess.engine.EngineError(f"no scored line for {wanted - len(scores)} moves of {board.epd()}")
            scores.update(new)
        ranked = sorted(scores.items(), key=lambda item: -item[1])  # stable: ties keep the engine's order
        return dict(ranked[:wanted])

    def _running_engine(self, lane: int = 0) -> chess.engine.SimpleEngine:
        engine = self._engines[lane]
        if engine is None:
            engine = self._start_engine(lane)
        return engine

    def _start_engine(self, lane: int = 0) -> chess.engine.SimpleEngine:
        """Start and configure engine ``lane``, learn its name and remember it in the cache."""
        command = _locate(self.path)
        engine = self._engines[lane] = _open_engine(self.path, command, self.timeout)
        try:
            options = engine.options
            settings = {"Threads": self.threads, "Hash": self.hash_mb}
            engine.configure({name: value for name, value in settings.items() if name in options})
        except (chess.engine.EngineError, TimeoutError) as exc:
            self._stop_engine(lane)
            raise EngineError(f"engine {self.path} refused its settings: {exc}") from exc
        _close_before_exit(self)
        name = engine.id.get("name", "").strip() or f"unnamed engine {Path(command).name}"
        self._engine_id = name
        fingerprint = _fingerprint(self.path)
        if fingerprint is not None:
            self._cache.remember_engine(self.path, fingerprint, name)
        return engine

    def _stop_engine(self, lane: int | None = None) -> None:
        """Stop engine ``lane``, or every engine (None)."""
        for index in range(len(self._engines)) if lane is None else (lane,):
            engine, self._engines[index] = self._engines[index], None
            if engine is not None:
                _quit(engine)


def _commit_results(
    results: queue.SimpleQueue, lanes: int, finished: Callable[[str, dict[chess.Move, int]], None]
) -> tuple[str, BaseException] | None:
    """Commit the analyses of ``lanes`` engine threads as they finish; the first failure, if any."""
    failure: tuple[str, BaseException] | None = None
    running = lanes
    while running:
        message = results.get()
        if message is None:
            running -= 1
        elif isinstance(message[1], BaseException):
            failure = failure or message
        else:
            finished(*message)
    return failure


def _commit_left(results: queue.SimpleQueue, finished: Callable[[str, dict[chess.Move, int]], None]) -> None:
    """Commit the analyses still queued after the committing thread was interrupted, while committing works."""
    while True:
        try:
            message = results.get_nowait()
        except queue.Empty:
            return
        if message is not None and not isinstance(message[1], BaseException):
            try:
                finished(*message)
            except Exception:
                return


_ENGINE_FAILURES = (chess.engine.EngineError, ConnectionError, concurrent.futures.CancelledError, TimeoutError)
"""How an engine's failure during an analysis shows: each becomes one EngineError line."""


def _quit(engine: chess.engine.SimpleEngine) -> None:
    """Ask ``engine`` to quit and close its transport, whatever state it is in."""
    try:
        engine.quit()
    except (chess.engine.EngineError, TimeoutError, ConnectionError, concurrent.futures.CancelledError, RuntimeError):
        pass  # already dead (RuntimeError: its event loop closed with it): closing the transport is all that is left
    finally:
        try:
            engine.close()
        except RuntimeError:
            pass  # the event loop closed with the process: nothing left to close


def _close_before_exit(analyser: EngineAnalyser) -> None:
    """Stop ``analyser``'s engine when the interpreter exits, if its owner forgot to.

    python-chess talks to the engine from a non-daemon thread, and the interpreter
    waits for such threads *before* ordinary exit handlers run: an analyser left open
    would keep a finished program alive forever. The threading module's own
    pre-join hook (the one thread pools use) runs first, so the engine is stopped there.
    """
    register = getattr(threading, "_register_atexit", None)
    if register is None:
        return
    reference = weakref.ref(analyser)

    def stop() -> None:
        alive = reference()
        if alive is not None:
            alive.close()

    try:
        register(stop)
    except RuntimeError:  # the interpreter is already shutting down
        pass


def _check_board(board: chess.Board) -> None:
    """Refuse boards an engine would misread or crash on: variants, Chess960, invalid positions."""
    if board.uci_variant != "chess" or board.chess960:
        raise ValueError("engine analysis takes standard chess boards only, not Chess960 or variants")
    if not board.is_valid():
        raise ValueError(f"invalid position for an engine ({board.status()!r}): {board.fen()}")


def _position_alone(board: chess.Board) -> chess.Board:
    """The board without its move history and with fresh counters: exactly what the cache key says.

    Stockfish damps its evaluation as the half-move clock grows and sees repetitions in
    the history, so both are reset: a position scores the same whichever game it came from.
    """
    alone = board.copy(stack=False)
    alone.halfmove_clock, alone.fullmove_number = 0, 1
    return alone


def _report(progress: Callable[[int], None] | None, count: int) -> None:
    if progress is not None and count:
        progress(count)


def _locate(path: str) -> str:
    """The executable a path or command name stands for; EngineError when there is none."""
    found = shutil.which(path)
    if found is not None:
        return found
    if os.path.isdir(path):
        raise EngineError(f"engine {path} is a folder, not an executable")
    if os.path.exists(path):
        raise EngineError(f"engine {path} is not executable")
    raise EngineError(f"engine {path} not found (no such file, nor a command on PATH)")


def _fingerprint(path: str) -> tuple[int, int] | None:
    """Size and modification time of the executable, or None when there is none."""
    found = shutil.which(path)
    if found is None:
        return None
    status = os.stat(found)
    return status.st_size, status.st_mtime_ns


def _open_engine(path: str, command: str, timeout: float) -> chess.engine.SimpleEngine:
    """Start a UCI engine, turning each way it can fail into one EngineError line."""
    try:
        return chess.engine.SimpleEngine.popen_uci(command, timeout=timeout)
    except TimeoutError as exc:
        raise EngineError(
            f"engine {path} did not answer the UCI handshake within {timeout:g} s: not a UCI engine?"
        ) from exc
    except chess.engine.EngineTerminatedError as exc:
        raise EngineError(f"engine {path} exited during the UCI handshake: not a UCI engine? ({exc})") from exc
    except chess.engine.EngineError as exc:
        raise EngineError(f"engine {path} broke the UCI protocol: {exc}") from exc
    except OSError as exc:
        raise EngineError(f"engine {path} could not be started: {exc.strerror or exc}") from exc


_WAIT_STEP = 0.5
"""Seconds between two looks at whether the engine's event loop still runs, while an analysis is awaited."""


def _analyse_until(
    engine: chess.engine.SimpleEngine, deadline: float, board: chess.Board, limit: chess.engine.Limit, **options: Any
) -> list[chess.engine.InfoDict]:
    """``engine.analyse(board, limit, **options)``, ended by ``deadline`` (a ``time.monotonic`` instant).

    TimeoutError when the engine has not finished by then; EngineError at once when it
    answers with something python-chess cannot accept (an illegal ``bestmove``, say),
    which otherwise leaves the analysis waiting forever: the protocol reports such a
    late error only to its event loop's exception handler.
    """

    async def bounded() -> list[chess.engine.InfoDict]:
        loop = asyncio.get_running_loop()
        broken: asyncio.Future[None] = loop.create_future()

        def on_error(loop: asyncio.AbstractEventLoop, context: dict) -> None:
            if not broken.done():
                problem = context.get("exception")
                broken.set_exception(chess.engine.EngineError(str(problem) if problem else context["message"]))

        previous = loop.get_exception_handler()
        loop.set_exception_handler(on_error)
        task = asyncio.ensure_future(engine.protocol.analyse(board, limit, **options))
        try:
            await asyncio.wait(
                {task, broken}, timeout=max(0.0, deadline - time.monotonic()), return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            loop.set_exception_handler(previous)
        if task.done():
            broken.cancel()
            return task.result()
        # Left running: the caller stops the engine, which ends it (cancelling it instead
        # sends a ``stop`` nobody answers, and python-chess then trips over its own state).
        task.add_done_callback(lambda ended: ended.cancelled() or ended.exception())
        if broken.done():
            broken.result()  # raises the engine's error
        raise TimeoutError

    coroutine = bounded()
    loop = engine.protocol.loop
    try:
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    except RuntimeError as exc:  # python-chess closed the engine's event loop when its process ended
        coroutine.close()
        raise chess.engine.EngineTerminatedError("the engine's process has ended") from exc
    _await_analysis(future, loop, deadline)
    return future.result()


def _await_analysis(future: concurrent.futures.Future, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
    """Wait until ``future`` is done, or raise if the engine's ``loop`` stops or ``deadline`` is well past."""
    while not future.done():  # the loop may stop before it runs the analysis: then nothing would ever answer
        try:
            future.exception(timeout=_WAIT_STEP)
        except concurrent.futures.TimeoutError:
            if loop.is_closed() or not loop.is_running():
                future.cancel()
                raise chess.engine.EngineTerminatedError("the engine's process has ended") from None
            if time.monotonic() > deadline + _WAIT_STEP:
                future.cancel()
                raise TimeoutError from None


def _multipv_limit(engine: chess.engine.SimpleEngine, wanted: int) -> int:
    """How many lines one search may ask for: all moves, unless the engine caps MultiPV lower."""
    option = engine.options.get("MultiPV")
    return wanted if option is None or option.max is None else max(1, min(wanted, int(option.max)))


def _scores_from_lines(
    board: chess.Board, infos: list[chess.engine.InfoDict], asked: set[chess.Move]
) -> dict[chess.Move, int]:
    """Each line's first move and its score from the side to move's view, mate-coded and clipped.

    A mate longer than the mate range holds (an engine may report any number) is read as
    the longest mate it holds: still a mate, for the same side.
    """
    scores = {}
    for info in infos:
        pv, score = info.get("pv"), info.get("score")
        if not pv or score is None or pv[0] not in asked:
            continue
        relative = score.pov(board.turn)
        mate = relative.mate()
        if mate is not None:
            plies = min(abs(mate), _LONGEST_MATE)
            scores[pv[0]] = MATE_SCORE - plies if mate > 0 else -(MATE_SCORE - plies)
            continue
        value = relative.score()
        assert value is not None
        scores[pv[0]] = max(-MAX_CENTIPAWNS, min(MAX_CENTIPAWNS, value))
    return scores
