"""A UCI engine as the judge of the sparring partner's drawn moves, and his blunder rate by the same judge.

The imitating engine (``iam uci --imitate``) holds its drawn moves to his rate of moves losing two pawns or more
(:data:`~search.chess.imitation.BLUNDER_LOSS`). Its own search can only see so far; a stronger engine sees the
blunders a master would not make. :class:`EngineJudge` is that engine as a
:class:`~search.chess.imitation.MoveJudge`: a move's loss is the position's best score less the move's (searched
alone), each at :attr:`EngineJudge.depth` within the time the move leaves it. His rate is measured by the same
judge, on a sample of the positions of his training games (:func:`judged_rate`), and kept beside the model file
(:func:`cached_judged_rate`), so that the engine pays for the measure once.

    >>> with EngineJudge("/usr/games/stockfish", depth=8) as judge:  # doctest: +SKIP
    ...     found = judge.check(chess.Board(), chess.Move.from_uci("g2g4"), Limits())
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import chess
import chess.engine

from iam.engines.analysis import _ENGINE_FAILURES, EngineError, _analyse_until, _locate, _open_engine, _quit
from iam.games.pgn import PlayerGame
from search.chess.imitation import BLUNDER_LOSS, CHECK_ENGINE_DEPTH, RATE_POSITIONS, DeepCheck
from search.result import Limits

__all__ = ["CHECK_ENGINE_DEPTH", "RATE_POSITIONS", "EngineJudge", "his_positions", "judged_rate",
           "cached_judged_rate"]

_MATE = 100_000
_BEST_SHARE = 0.6  # of a timed check, the search of the position's best; the move alone has the rest


class EngineJudge:
    """A UCI engine judging moves at ``depth`` (a :class:`~search.chess.imitation.MoveJudge`).

    The engine is started at the first check (or :meth:`start`) with one thread and ``hash_mb`` of hash; each
    check begins a new game for it (its hash cleared), so that a check at a fixed depth gives the same verdict
    whatever was checked before. An engine that dies or breaks the protocol is stopped: that check, and the later
    ones until it starts again, return None (the imitation then falls back to its own search).
    """

    def __init__(self, path: str, *, depth: int = CHECK_ENGINE_DEPTH, hash_mb: int = 16, timeout: float = 10.0):
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"the check engine's depth must be a positive whole number, not {depth!r}")
        self.path = path
        self.depth = depth
        self.hash_mb = hash_mb
        self.timeout = timeout
        self.rate: float | None = None
        """His share of moves losing two pawns or more by this judge (set by the caller; None: unmeasured)."""
        self.failure: str | None = None
        """Why the last check could not judge its move (None: it could)."""
        self._engine: chess.engine.SimpleEngine | None = None
        self._engine_name = ""
        self._lock = threading.Lock()

    def __enter__(self) -> EngineJudge:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the engine now (EngineError, one line, when it cannot be)."""
        with self._lock:
            self._running()

    def close(self) -> None:
        """Stop the engine; safe to repeat."""
        with self._lock:
            engine, self._engine = self._engine, None
        if engine is not None:
            _quit(engine)

    @property
    def engine_name(self) -> str:
        """The engine's name as it reports it (started to ask it)."""
        if not self._engine_name:
            self.start()
        return self._engine_name

    @property
    def name(self) -> str:
        return f"{self.engine_name} at depth {self.depth}"

    def check(
        self, board: chess.Board, move: chess.Move, limits: Limits, stop: threading.Event | None = None
    ) -> DeepCheck | None:
        """``move``'s loss against the best of ``board``: the engine's best score at :attr:`depth` less the
        move's, searched alone to the same depth; within ``limits.time`` when it has one (the best's search its
        first 60%). None for a finished game, an illegal move, a stop asked for, or an engine that fails."""
        if (stop is not None and stop.is_set()) or move not in board.legal_moves:
            return None
        seconds = limits.time
        first = chess.engine.Limit(depth=self.depth, time=None if seconds is None else _BEST_SHARE * seconds)
        started = time.perf_counter()
        game = object()  # a new game token: the engine's hash is cleared first
        try:
            with self._lock:
                engine = self._running()
                deadline = time.monotonic() + self._allowed(seconds)
                best = _analyse_until(engine, deadline, board, first, multipv=1, game=game)[0]
                best_pv = best.get("pv") or []
                if best_pv and best_pv[0] == move:  # the engine's best: no second search
                    return DeepCheck(move, 0, int(best.get("depth", 0)))
                rest = None if seconds is None else max(0.001, seconds - (time.perf_counter() - started))
                alone = _analyse_until(
                    engine, deadline, board, chess.engine.Limit(depth=self.depth, time=rest), multipv=1, game=game,
                    root_moves=[move],
                )[0]
        except (*_ENGINE_FAILURES, EngineError) as exc:
            self.failure = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self.close()
            return None
        self.failure = None
        best_value, alone_value = _value(best, board.turn), _value(alone, board.turn)
        if best_value is None or alone_value is None or not best_pv:
            return None
        depth = min(int(best.get("depth", 0)), int(alone.get("depth", 0)))
        loss = max(0, best_value - alone_value)
        return DeepCheck(move if loss == 0 else best_pv[0], loss, depth)

    def losses(self, board: chess.Board, moves: Sequence[chess.Move] | set[chess.Move]) -> dict[chess.Move, int]:
        """Each of ``moves``' loss against the best of ``board`` by :meth:`check` at :attr:`depth` (no time limit):
        a move's verdict is its own, whichever moves are judged with it and in whatever order, and the one the
        imitation's ceiling read. EngineError when the engine cannot judge one of them."""
        found: dict[chess.Move, int] = {}
        for move in sorted(set(moves), key=chess.Move.uci):
            judged = self.check(board, move, Limits())
            if judged is None:
                raise EngineError(f"engine {self.path} did not judge {move.uci()}: {self.failure or 'no score'}")
            found[move] = judged.loss
        return found

    def _allowed(self, seconds: float | None) -> float:
        """Seconds both searches may take before the engine counts as hung."""
        return 30.0 * 2.0 ** (max(0, self.depth - 12) / 3) if seconds is None else 2.0 * seconds + 5.0

    def _running(self) -> chess.engine.SimpleEngine:
        if self._engine is None:
            engine = _open_engine(self.path, _locate(self.path), self.timeout)
            try:
                settings = {"Threads": 1, "Hash": self.hash_mb}
                engine.configure({name: value for name, value in settings.items() if name in engine.options})
            except (chess.engine.EngineError, TimeoutError) as exc:
                _quit(engine)
                raise EngineError(f"engine {self.path} refused its settings: {exc}") from exc
            self._engine = engine
            self._engine_name = engine.id.get("name", "").strip() or Path(self.path).name
        return self._engine


def _value(info: chess.engine.InfoDict, turn: chess.Color) -> int | None:
    score = info.get("score")
    return None if score is None else score.pov(turn).score(mate_score=_MATE)


def his_positions(games: Sequence[PlayerGame], count: int = RATE_POSITIONS, seed: int = 0) -> list[
    tuple[chess.Board, chess.Move]
]:
    """``count`` of the positions where he moved in ``games`` (with the game so far) and his move there, drawn
    with ``seed`` (all of them when there are fewer)."""
    found = []
    for game in games:
        board = game.board()
        for move in game.moves:
            if board.turn == game.color:
                found.append((board.copy(), move))
            board.push(move)
    return random.Random(seed).sample(found, min(count, len(found)))


def judged_rate(
    judge: EngineJudge, moves: Sequence[tuple[chess.Board, chess.Move]],
    progress: Callable[[int], None] | None = None,
) -> float | None:
    """His share of ``moves`` that lose :data:`~search.chess.imitation.BLUNDER_LOSS` or more by ``judge`` at its
    depth (a move it cannot judge counts as sound); None without a move. ``progress(n)``: ``n`` more judged."""
    if not moves:
        return None
    blunders = 0
    for board, move in moves:
        found = judge.check(board, move, Limits())
        blunders += found is not None and found.loss >= BLUNDER_LOSS
        if progress is not None:
            progress(1)
    return blunders / len(moves)


def cached_judged_rate(
    judge: EngineJudge, games: Sequence[PlayerGame], cache: Path | None,
    progress: Callable[[int], None] | None = None,
) -> float | None:
    """:func:`judged_rate` on :data:`RATE_POSITIONS` of his positions in ``games`` (seed 0), read from the JSON file
    ``cache`` when it holds the rate of the same judge (engine name and depth) on the same games, else measured and
    written there (a cache that cannot be read or written is passed over)."""
    digest = hashlib.sha256("\n".join(sorted(_game_key(game) for game in games)).encode()).hexdigest()[:16]
    key = f"{judge.engine_name} | depth {judge.depth} | {RATE_POSITIONS} positions | games {digest}"
    entries: dict[str, float | None] = {}
    if cache is not None:
        try:
            read = json.loads(cache.read_text())
            entries = dict(read["rates"]) if read.get("format") == "iam-check-rates" else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            entries = {}
        if key in entries:
            rate = entries[key]
            return None if rate is None else float(rate)
    rate = judged_rate(judge, his_positions(games), progress)
    if cache is not None:
        entries[key] = rate
        try:
            cache.write_text(json.dumps({"format": "iam-check-rates", "version": 1, "rates": entries}, indent=1))
        except OSError:
            pass
    return rate


def _game_key(game: PlayerGame) -> str:
    return f"{game.color}|{game.start_fen}|{' '.join(move.uci() for move in game.moves)}"
