"""Engine matches: two UCI engines play each other through python-chess's engine client,
alternating colours, and the score becomes an Elo difference with a 95% interval.

Claims of strength need a match, not an anecdote: a few games say little, and the
interval says how little.
"""

from __future__ import annotations

import math
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
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
    "engine_command",
    "load_openings",
    "play_match",
]

_MAX_PLIES = 400  # adjudicated as a draw beyond this


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
    """One finished game: who had White, the result from White's side, the PGN game."""

    white_is_a: bool
    result: str
    game: chess.pgn.Game


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


def engine_command(text: str) -> list[str]:
    """The argument list for an engine given as a command line ("iam uci", "stockfish").

    ``iam`` falls back to this interpreter's module when no ``iam`` script is on PATH,
    and Debian's games folder is searched too (where its stockfish lives).
    """
    words = shlex.split(text)
    if not words:
        raise MatchError("empty engine command")
    program = words[0]
    found = shutil.which(program) or shutil.which(program, path="/usr/games")
    if found:
        return [found, *words[1:]]
    if program == "iam":
        return [sys.executable, "-m", "iam", *words[1:]]
    raise MatchError(f"engine command not found: {program}")


def load_openings(path: str | Path) -> list[chess.Board]:
    """Start positions from a PGN file (each game's moves) or a FEN/EPD file (one a line)."""
    path = Path(path)
    if not path.is_file():
        raise MatchError(f"openings file not found: {path}")
    boards: list[chess.Board] = []
    if path.suffix.lower() == ".pgn":
        with path.open(encoding="utf-8", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                if game.errors:
                    raise MatchError(f"{path}: unreadable game {len(boards) + 1}: {game.errors[0]}")
                board = game.board()
                for move in game.mainline_moves():
                    board.push(move)
                boards.append(board)
    else:
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
    if not boards:
        raise MatchError(f"no openings in {path}")
    return boards


def play_match(
    command_a: Sequence[str],
    command_b: Sequence[str],
    *,
    games: int,
    limit: chess.engine.Limit,
    openings: Sequence[chess.Board] = (),
    on_game: Callable[[GameRecord], None] | None = None,
) -> tuple[EloEstimate, list[GameRecord], tuple[str, str]]:
    """Play ``games`` games, A with White in the even-numbered ones.

    Each opening is played twice, once with each colour. Returns the estimate, the
    games and the engines' names.
    """
    if games < 1:
        raise MatchError("--games must be at least 1")
    starts = list(openings) or [chess.Board()]
    engines = []
    try:
        for command in (command_a, command_b):
            try:
                engines.append(chess.engine.SimpleEngine.popen_uci(list(command), timeout=30))
            except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
                raise MatchError(f"engine {' '.join(command)} did not start as UCI: {exc}") from None
        names = [engine.id.get("name", "engine") for engine in engines]
        if names[0] == names[1]:
            names = [f"{names[0]} (A)", f"{names[1]} (B)"]
        records, tally = [], {"win": 0, "draw": 0, "loss": 0}
        for index in range(games):
            white_is_a = index % 2 == 0
            start = starts[(index // 2) % len(starts)]
            order = (engines[0], engines[1]) if white_is_a else (engines[1], engines[0])
            labels = (names[0], names[1]) if white_is_a else (names[1], names[0])
            record = _play_game(order, labels, start, limit, round_number=index + 1, white_is_a=white_is_a)
            records.append(record)
            tally[_outcome_for_a(record)] += 1
            if on_game is not None:
                on_game(record)
        estimate = elo_estimate(tally["win"], tally["draw"], tally["loss"])
        return estimate, records, (names[0], names[1])
    finally:
        for engine in engines:
            engine.quit()


def _outcome_for_a(record: GameRecord) -> str:
    if record.result == "1/2-1/2":
        return "draw"
    white_won = record.result == "1-0"
    return "win" if white_won == record.white_is_a else "loss"


def _play_game(
    engines, labels, start: chess.Board, limit, *, round_number: int, white_is_a: bool
) -> GameRecord:
    board = start.copy()
    result, termination = None, None
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, termination = outcome.result(), outcome.termination.name.lower()
            break
        if len(board.move_stack) - len(start.move_stack) >= _MAX_PLIES:
            result, termination = "1/2-1/2", "adjudicated: move limit"
            break
        engine = engines[0] if board.turn == chess.WHITE else engines[1]
        try:
            played = engine.play(board, limit, game=round_number)
        except chess.engine.EngineError as exc:  # an illegal or missing move forfeits
            result = "0-1" if board.turn == chess.WHITE else "1-0"
            termination = f"forfeit: {exc}"
            break
        if played.move is None:
            result = "0-1" if board.turn == chess.WHITE else "1-0"
            termination = "forfeit: no move"
            break
        board.push(played.move)
    game = chess.pgn.Game.from_board(board)
    game.headers.update(
        Event="iam match",
        Round=str(round_number),
        White=labels[0],
        Black=labels[1],
        Result=result,
        Termination=termination,
    )
    return GameRecord(white_is_a=white_is_a, result=result, game=game)
