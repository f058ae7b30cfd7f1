"""The UCI protocol's words: reading ``go``, ``position`` and ``setoption`` values, writing ``info`` lines.

Everything here is a pure function of the command's words (or of a search result): no
engine state, no threads, no clock. The ``go`` reader is lenient because every ``go``
must be answered: malformed words are left out and listed, numbers capped and clamped.
The ``position`` reader reports what was wrong instead of raising, so the engine can
stay on the valid part of the command. Keeping the parsing apart lets it be tested and
fuzzed without an engine.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

import chess

from search.chess.game import is_mate_score, mate_in_plies
from search.chess.imitation import Imitation
from search.result import MAX_PLY, SearchResult

MAX_GO_NUMBER = 10**9
"""Larger numbers in ``go`` (milliseconds, nodes, depth) are read as this (11.6 days)."""
MAX_MULTIPV = 256
"""The most lines ``setoption name MultiPV`` accepts."""


@dataclass(frozen=True)
class GoClock:
    """The clock words of one ``go`` command (times in milliseconds, as sent): what time management reads."""

    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None


@dataclass(frozen=True)
class GoCommand:
    """The parameters of one ``go`` command (times in milliseconds, as sent)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    clock: GoClock = GoClock()
    """The clock words (``wtime``, ``btime``, ``winc``, ``binc``, ``movestogo``)."""
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
        clock = self.clock
        return (
            clock.wtime is not None
            or clock.btime is not None
            or clock.movestogo is not None
            or clock.winc > 0
            or clock.binc > 0
        )


_CLOCK_WORDS = {"wtime", "btime", "winc", "binc", "movestogo"}
_GO_INTS = {"depth", "nodes", "movetime", "mate"} | _CLOCK_WORDS
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
    fields: dict[str, Any] = {}
    clock: dict[str, int] = {}
    problems: list[str] = []
    moves: list[chess.Move] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        i += 1
        if word in ("infinite", "ponder"):
            fields[word] = True
        elif word == "searchmoves":
            i = _read_searchmoves(tokens, i, moves, problems)
        elif word in _GO_INTS:
            text = tokens[i] if i < len(tokens) and tokens[i] not in _GO_WORDS else None
            i += text is not None
            value = _go_number(word, text, problems)
            if value is not None:
                (clock if word in _CLOCK_WORDS else fields)[word] = value
        else:
            problems.append(f"unknown go parameter {word[:20]!r}")
    return GoCommand(**fields, clock=GoClock(**clock), searchmoves=tuple(moves), problems=tuple(problems))


def _read_searchmoves(tokens: list[str], i: int, moves: list[chess.Move], problems: list[str]) -> int:
    """Append the moves after ``searchmoves`` (from ``tokens[i]`` to the next ``go`` word) to ``moves``;
    the index of the first word after them."""
    while i < len(tokens) and tokens[i] not in _GO_WORDS:
        try:
            moves.append(chess.Move.from_uci(tokens[i]))
        except ValueError:
            problems.append(f"searchmoves {tokens[i][:20]!r} is not a move")
        i += 1
    return i


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


def _depth_limit(go: GoCommand) -> int | None:
    """The deepest iteration for ``go``: its depth, or the plies a mate in ``mate`` moves takes."""
    depths = [depth for depth in (go.depth, None if go.mate is None else 2 * go.mate - 1) if depth is not None]
    return min(depths, default=None)


def _split_option(args: list[str]) -> tuple[str, str]:
    """The name and value of ``setoption name <id> [value <x>]``; ValueError if it is not that."""
    if len(args) < 2 or args[0] != "name":
        raise ValueError("expected: setoption name <id> [value <x>]")
    words = args[1:]
    name = " ".join(words[: words.index("value")] if "value" in words else words)
    value = " ".join(words[words.index("value") + 1 :]) if "value" in words else ""
    return name, value


def _check(name: str, value: str) -> bool:
    """The value of a check option; ValueError if it is neither ``true`` nor ``false``."""
    if value.lower() not in ("true", "false"):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value.lower() == "true"


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
    """``imitation`` with the UCI option ``Temperature``, ``Seed``, ``Strength`` or ``BlunderRate`` set; ValueError
    if out of range."""
    if name == "blunderrate" and value.strip().lower() == "model":
        return dataclasses.replace(imitation, blunder_rate=None)
    try:
        number = int(value) if name == "seed" else float(value)
    except ValueError:
        raise ValueError(f"{name.title()} needs a number, got {value[:20]!r}") from None
    if name == "seed":
        if not 0 <= number <= 2**31 - 1:
            raise ValueError(f"Seed {number} is out of range 0..2147483647")
        return dataclasses.replace(imitation, seed=int(number))
    if name == "temperature":
        return dataclasses.replace(imitation, temperature=float(number))
    if name == "strength":
        return dataclasses.replace(imitation, strength=float(number))
    return dataclasses.replace(imitation, blunder_rate=float(number))


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


def _info(result: SearchResult, multipv: int | None = None) -> str:
    """The ``info`` line of one completed iteration (``multipv``: the line's rank, when several are reported)."""
    value = cast(float, result.value)  # a two-player search's value is one number, not a max^n vector
    if is_mate_score(value):
        plies = mate_in_plies(value)
        moves = (plies + 1) // 2 if plies > 0 else -((-plies) // 2)
        score = f"mate {moves}"
    else:
        score = f"cp {round(value)}"
    millis = max(1, round(result.seconds * 1000))
    nodes = result.total_nodes
    pv = " ".join(cast(chess.Move, move).uci() for move in result.pv)
    line = "" if multipv is None else f" multipv {multipv}"
    return (
        f"info depth {result.depth}{line} score {score} nodes {nodes} "
        f"nps {nodes * 1000 // millis} time {millis} pv {pv}"
    )
