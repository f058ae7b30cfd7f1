"""Engine matches: two UCI engines play each other through python-chess's engine client,
alternating colours, and the score becomes an Elo difference with a 95% interval.

Claims of strength need a match, not an anecdote: a few games say little, and the
interval says how little.

An engine that crashes, hangs (no move within the move's time plus a timeout, node
limits included) or sends an illegal move loses that game by forfeit, with the reason
in the PGN's Termination header and in the record; a crashed or hung engine is started
afresh for the next game, so one failure costs one game, not the match.
"""

from __future__ import annotations

import asyncio
import math
import shlex
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import chess
import chess.engine
import chess.pgn

__all__ = [
    "MatchError",
    "EloEstimate",
    "GameRecord",
    "elo_estimate",
    "likelihood_of_superiority",
    "records_estimate",
    "engine_command",
    "load_openings",
    "play_match",
]

_MAX_PLIES = 400  # adjudicated as a draw beyond this
_START_TIMEOUT = 30.0  # seconds an engine may take to start and answer uci


class MatchError(Exception):
    """A user mistake in a match request: an engine that does not start, a bad file."""


@dataclass(frozen=True)
class EloEstimate:
    """Score of engine A (wins + draws / 2, per game) and the Elo difference A - B."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    low: float
    high: float


@dataclass(frozen=True)
class GameRecord:
    """One finished game: who had White, the result from White's side, the PGN game.

    ``termination`` says how it ended (as in the PGN header); ``forfeited_by`` is
    ``"A"`` or ``"B"`` when that engine lost by forfeit (crash, timeout, illegal or no
    move), else ``None``. ``opening`` is the FEN of the position the engines started
    from (after the opening's moves): games from the same opening can be paired.
    """

    white_is_a: bool
    result: str
    game: chess.pgn.Game
    termination: str = ""
    forfeited_by: str | None = None
    opening: str = ""

    @property
    def score_for_a(self) -> float:
        """Engine A's score in this game: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[_outcome_for_a(self)]


def _elo(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_estimate(wins: int, draws: int, losses: int, *, confidence: float = 0.95) -> EloEstimate:
    """Elo difference from a match score, with a Wilson score interval.

    The interval is Wilson's for a proportion, applied to the score (draws count half),
    mapped through the logistic Elo curve. Unlike the plain normal approximation it
    stays sensible for lopsided scores (a 2-0 sweep bounds the difference on one side
    only); treating draws as half a win each makes it slightly conservative.
    """
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games played")
    score = (wins + 0.5 * draws) / games
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    shrink = 1 + z * z / games
    centre = (score + z * z / (2 * games)) / shrink
    half = z / shrink * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games))
    return EloEstimate(
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        elo=_elo(score),
        low=_elo(max(0.0, centre - half)),
        high=_elo(min(1.0, centre + half)),
    )


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """The likelihood of superiority: Phi((W - L) / sqrt(W + L)); draws say nothing; 0.5 without decisive games.

    >>> round(likelihood_of_superiority(10, 5), 3), likelihood_of_superiority(0, 0)
    (0.902, 0.5)
    """
    if wins + losses == 0:
        return 0.5
    return NormalDist().cdf((wins - losses) / math.sqrt(wins + losses))


def records_estimate(records: Sequence[GameRecord]) -> EloEstimate:
    """Engine A's score and Elo difference over finished games (either colour)."""
    tally = {"win": 0, "draw": 0, "loss": 0}
    for record in records:
        tally[_outcome_for_a(record)] += 1
    return elo_estimate(tally["win"], tally["draw"], tally["loss"])


def engine_command(text: str, *, known: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """The argument list for an engine given as a command line ("iam uci", "stockfish").

    The program is looked up on PATH, then in Debian's games folder (where its
    stockfish lives), then in ``known``: the caller's own programs by name, e.g.
    ``{"iam": [sys.executable, "-m", "iam"]}`` when no ``iam`` script is on PATH.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:  # an unclosed quotation mark
        raise MatchError(f"engine command {text!r} cannot be read: {exc}") from None
    if not words:
        raise MatchError("empty engine command")
    program = words[0]
    found = shutil.which(program) or shutil.which(program, path="/usr/games")
    if found:
        return [found, *words[1:]]
    if known and program in known:
        return [*known[program], *words[1:]]
    raise MatchError(f"engine command not found: {program}")


def load_openings(path: str | Path) -> list[chess.Board]:
    """Start positions from a PGN file (each game's moves) or a FEN/EPD file (one a line)."""
    path = Path(path)
    if not path.is_file():
        raise MatchError(f"openings file not found: {path}")
    boards = _pgn_openings(path) if path.suffix.lower() == ".pgn" else _position_openings(path)
    if not boards:
        raise MatchError(f"no openings in {path}")
    return boards


def _pgn_openings(path: Path) -> list[chess.Board]:
    """The position at the end of each game of a PGN file."""
    boards: list[chess.Board] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if game.errors:
                raise MatchError(f"{path}: unreadable game {len(boards) + 1}: {game.errors[0]}")
            if game.headers == chess.pgn.Headers() and game.next() is None:  # python-chess's reading of no game
                raise MatchError(f"{path}: game {len(boards) + 1} has no tag pair and no move: not a PGN file?")
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
            boards.append(board)
    return boards


def _position_openings(path: Path) -> list[chess.Board]:
    """The positions of a FEN/EPD file, one a line (blank lines and ``#`` comments skipped)."""
    boards: list[chess.Board] = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board = chess.Board(text)
        except ValueError:
            try:
                board = chess.Board.from_epd(text)[0]
            except ValueError as exc:
                raise MatchError(f"{path}:{number}: not a FEN or EPD position ({exc})") from None
        if not board.is_valid() or board.is_game_over():
            raise MatchError(f"{path}:{number}: not a playable position")
        boards.append(board)
    return boards


def play_match(
    command_a: Sequence[str],
    command_b: Sequence[str],
    *,
    games: int,
    limit: chess.engine.Limit,
    openings: Sequence[chess.Board] = (),
    on_game: Callable[[GameRecord], None] | None = None,
    move_timeout: float = 30.0,
    options_a: Mapping[str, str] | None = None,
    options_b: Mapping[str, str] | None = None,
    clock: tuple[float, float] | None = None,
) -> tuple[EloEstimate, list[GameRecord], tuple[str, str]]:
    """Play ``games`` games, A with White in the even-numbered ones.

    Each opening is played twice, once with each colour. An engine gets
    ``move_timeout`` seconds beyond the limit's time (all of it under a node or depth
    limit) for each move. ``options_a`` and ``options_b`` are UCI options set on each
    engine when it starts (``{"UCI_LimitStrength": "true", "UCI_Elo": "1500"}``, say).
    ``clock`` is ``(base, increment)`` in seconds: each engine gets its remaining time
    and the increment (UCI wtime/btime/winc/binc) instead of ``limit``, and loses on
    time when its clock runs out. Returns the estimate, the games and the engines' names.
    """
    _check_match(games, move_timeout, clock)
    starts = list(openings) or [chess.Board()]
    commands = (list(command_a), list(command_b))
    options = (dict(options_a or {}), dict(options_b or {}))
    engines: list[chess.engine.SimpleEngine | None] = []
    try:
        _start_engines(commands, options, engines)
        names = _engine_names([engine for engine in engines if engine is not None])  # both started
        records = []
        for index in range(games):
            start = starts[(index // 2) % len(starts)]
            record = _play_round(
                engines, commands, options, names, start, limit,
                index=index, move_timeout=move_timeout, clock=clock,
            )
            records.append(record)
            if on_game is not None:
                on_game(record)
        return records_estimate(records), records, (names[0], names[1])
    finally:
        for engine in engines:
            if engine is not None:
                _shut_down(engine)


def _check_match(games: int, move_timeout: float, clock: tuple[float, float] | None) -> None:
    """MatchError for a match :func:`play_match` cannot play, before any engine starts."""
    if games < 1:
        raise MatchError(f"games must be at least 1, not {games}")
    if move_timeout <= 0:
        raise MatchError("the move timeout must be positive")
    if clock is not None and not (clock[0] > 0 and clock[1] >= 0):
        raise MatchError("the clock needs a positive base time and an increment of at least 0")


def _start_engines(
    commands: tuple[list[str], list[str]],
    options: tuple[dict[str, str], dict[str, str]],
    engines: list[chess.engine.SimpleEngine | None],
) -> None:
    """Start and configure both engines, appending each to ``engines`` as soon as it runs.

    Appending at once lets the caller shut down the first engine when the second fails.
    """
    for command, chosen in zip(commands, options):
        try:
            engine = _start(command)
            engines.append(engine)
        except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as exc:
            why = str(exc) or ("no uciok in time" if isinstance(exc, TimeoutError) else type(exc).__name__)
            raise MatchError(f"engine {' '.join(command)} did not start as UCI: {why}") from None
        _configure(engine, chosen, command)


def _engine_names(engines: list[chess.engine.SimpleEngine]) -> list[str]:
    """The engines' UCI names, marked (A) and (B) when they are the same, so that the games tell them apart."""
    names = [engine.id.get("name", "engine") for engine in engines]
    if names[0] == names[1]:
        names = [f"{names[0]} (A)", f"{names[1]} (B)"]
    return names


def _restart_missing(
    engines: list[chess.engine.SimpleEngine | None],
    commands: tuple[list[str], list[str]],
    options: tuple[dict[str, str], dict[str, str]],
) -> None:
    """Try to start afresh each engine that crashed or hung in an earlier game; one that fails stays ``None``."""
    missing = [i for i in (0, 1) if engines[i] is None]
    for i in missing:
        try:
            engine = _start(commands[i])
            engines[i] = engine
            engine.configure(options[i])
        except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
            pass


def _play_round(
    engines: list[chess.engine.SimpleEngine | None],
    commands: tuple[list[str], list[str]],
    options: tuple[dict[str, str], dict[str, str]],
    names: list[str],
    start: chess.Board,
    limit: chess.engine.Limit,
    *,
    index: int,
    move_timeout: float,
    clock: tuple[float, float] | None,
) -> GameRecord:
    """Play game ``index`` of the match (A with White when it is even) from ``start``.

    An engine that could not be restarted forfeits the game; one that crashes or hangs
    during it is shut down and left ``None`` in ``engines``, to be restarted for the next.
    """
    white_is_a = index % 2 == 0
    sides = (0, 1) if white_is_a else (1, 0)  # engine index of White, of Black
    _restart_missing(engines, commands, options)
    white, black = engines[sides[0]], engines[sides[1]]
    if white is None or black is None:
        loser = next(i for i in (0, 1) if engines[i] is None)
        return _forfeit_record(
            start, sides, names, loser, f"forfeit: {names[loser]} did not restart",
            round_number=index + 1, white_is_a=white_is_a,
        )
    record, broken = _play_game(
        [white, black], [names[i] for i in sides], start, limit,
        round_number=index + 1, white_is_a=white_is_a, move_timeout=move_timeout, clock=clock,
    )
    if broken is not None:  # crashed or hung: start it afresh for the next game
        _shut_down((white, black)[broken], polite=False)
        engines[sides[broken]] = None
    return record


def _start(command: list[str]) -> chess.engine.SimpleEngine:
    """A started engine that has answered ``isready``: one that answers ``uci`` at once and loads
    meanwhile is loaded before its first move's clock runs."""
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=_START_TIMEOUT)
    try:
        engine.ping()
    except BaseException:
        engine.close()
        raise
    return engine


def _configure(engine: chess.engine.SimpleEngine, options: dict[str, str], command: list[str]) -> None:
    """Set UCI options on a started engine; MatchError naming the option it does not take."""
    for name in options:
        if name not in engine.options:
            raise MatchError(f"engine {' '.join(command)} has no UCI option {name!r}")
    try:
        engine.configure(options)
    except chess.engine.EngineError as exc:
        raise MatchError(f"engine {' '.join(command)} refused its options: {exc}") from None


def _shut_down(engine: chess.engine.SimpleEngine, *, polite: bool = True) -> None:
    """Send ``quit`` (when ``polite``), then close the process and its event loop; a
    crashed or hung engine is not asked, it is killed."""
    if polite:
        try:
            engine.quit()
        except Exception:  # dead or deaf after all: closing below kills it
            pass
    engine.close()


def _play_move(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    limit: chess.engine.Limit,
    *,
    round_number: int,
    seconds: float,
) -> chess.engine.PlayResult:
    """``engine.play`` with a deadline also under node and depth limits (where
    python-chess sets none); ``TimeoutError`` when the engine does not answer."""
    coroutine = asyncio.wait_for(engine.protocol.play(board, limit, game=round_number), seconds)
    return asyncio.run_coroutine_threadsafe(coroutine, engine.protocol.loop).result()


def _outcome_for_a(record: GameRecord) -> str:
    if record.result == "1/2-1/2":
        return "draw"
    white_won = record.result == "1-0"
    return "win" if white_won == record.white_is_a else "loss"


def _play_game(
    engines: Sequence[chess.engine.SimpleEngine],
    labels: Sequence[str],
    start: chess.Board,
    limit: chess.engine.Limit,
    *,
    round_number: int,
    white_is_a: bool,
    move_timeout: float,
    clock: tuple[float, float] | None = None,
) -> tuple[GameRecord, int | None]:
    """Play one game; also returns the side (0 White, 1 Black) whose engine crashed or
    hung and needs a restart, or ``None``."""
    board = start.copy()
    result: str | None = None
    termination: str | None = None
    forfeit: int | None = None
    broken: int | None = None
    seconds = (limit.time or 0.0) + move_timeout
    remaining = [clock[0], clock[0]] if clock is not None else None
    increment = clock[1] if clock is not None else 0.0
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, termination = outcome.result(), outcome.termination.name.lower()
            break
        if len(board.move_stack) - len(start.move_stack) >= _MAX_PLIES:
            result, termination = "1/2-1/2", "adjudicated: move limit"
            break
        side = 0 if board.turn == chess.WHITE else 1
        if remaining is not None:
            limit = chess.engine.Limit(
                white_clock=remaining[0], black_clock=remaining[1], white_inc=increment, black_inc=increment
            )
            seconds = remaining[side] + move_timeout
        move, termination, broken = _clocked_move(
            engines[side], board, limit, round_number=round_number, seconds=seconds,
            label=labels[side], side=side, remaining=remaining, increment=increment,
        )
        if move is not None:
            board.push(move)
            continue
        termination = termination or "forfeit: no move"
        result = "0-1" if board.turn == chess.WHITE else "1-0"
        forfeit = side
    if forfeit is not None:
        forfeited_by = "A" if (forfeit == 0) == white_is_a else "B"
    else:
        forfeited_by = None
    return _record(board, labels, result, termination, round_number, white_is_a, forfeited_by, start), broken


def _clocked_move(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    limit: chess.engine.Limit,
    *,
    round_number: int,
    seconds: float,
    label: str,
    side: int,
    remaining: list[float] | None,
    increment: float,
) -> tuple[chess.Move | None, str | None, int | None]:
    """The engine's move (``None`` when it forfeits), the forfeit's termination, and ``side`` when it crashed or hung.

    With a clock (``remaining``: each side's seconds left) the move's time is charged to
    ``side``, which loses on time below zero and otherwise gains ``increment``.
    """
    started = time.monotonic()
    try:
        played = _play_move(engine, board, limit, round_number=round_number, seconds=seconds)
    except chess.engine.EngineTerminatedError as exc:
        return None, f"forfeit: {label} crashed ({exc})", side
    except TimeoutError:
        return None, f"forfeit: {label} did not move within {seconds:g} s", side
    except chess.engine.EngineError as exc:  # an illegal or missing move forfeits
        return None, f"forfeit: {exc}", None
    if remaining is not None:
        remaining[side] -= time.monotonic() - started
        if remaining[side] < 0:
            return None, f"time forfeit: {label} ran out of time", None
        remaining[side] += increment
    return played.move, None, None


def _forfeit_record(start, sides, names, loser, termination, *, round_number, white_is_a) -> GameRecord:
    """A game lost before it started (an engine that could not be restarted)."""
    white_lost = sides[0] == loser
    labels = [names[i] for i in sides]
    forfeited_by = "A" if loser == 0 else "B"
    return _record(start.copy(), labels, "0-1" if white_lost else "1-0", termination, round_number,
                   white_is_a, forfeited_by, start)


def _record(board, labels, result, termination, round_number, white_is_a, forfeited_by, start) -> GameRecord:
    game = chess.pgn.Game.from_board(board)
    game.headers.update(
        Event="iam match",
        Round=str(round_number),
        White=labels[0],
        Black=labels[1],
        Result=result,
        Termination=termination,
    )
    return GameRecord(
        white_is_a=white_is_a, result=result, game=game, termination=termination, forfeited_by=forfeited_by,
        opening=start.fen(),
    )
