"""Reading PGN text: splitting a stream into games and parsing a game's main line.

Two steps, each linear in the size of its input and bounded in memory:

* :func:`split_games` cuts a text stream into games by its tag pairs alone: a game
  starts at a tag line (``[Name "value"]``) that follows movetext, or at a tag the
  current game already has. Blank lines are separators, never the end of a game, so
  a missing blank line, a blank line inside the movetext or an unclosed comment can
  never merge, cut or lose a game: every block of tag pairs is one game.
* :func:`parse_game` reads one game's headers and main line (variations and comments
  are skipped) and says why a game cannot be used instead of passing over what it
  does not understand: an unclosed comment or variation, a token that is not a move,
  an illegal, ambiguous or unparsable move, moves after the result, an invalid or
  illegal set-up position.

A process that reads the same games again (a file read twice, the same opening text in two files) parses each
main line once: :data:`MAIN_LINES_KEPT` characters of recent main lines are kept with their moves, looked up by
their exact text and starting position, so a repeated reading gives the same moves and problems as the first.

Limits (each a reason for skipping the game, never an error for the file):
:data:`MAX_GAME_CHARS` characters of text per game, :data:`MAX_PLIES` moves in the
main line, :data:`MAX_MOVE_NUMBER` for a FEN header's move counters. Nesting depth
of variations is not limited: variations are counted, never recursed into.
"""

from __future__ import annotations

import re
from array import array
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import chess

__all__ = [
    "typed_move",
    "MAX_GAME_CHARS",
    "MAX_PLIES",
    "MAX_MOVE_NUMBER",
    "MAIN_LINES_KEPT",
    "STANDARD_VARIANTS",
    "GameText",
    "ParsedGame",
    "split_games",
    "read_headers",
    "parse_game",
]

MAX_GAME_CHARS = 4_000_000
"""Characters of one game's text (headers and movetext); a longer game is skipped."""
MAX_PLIES = 20_000
"""Moves (plies) of one game's main line; no legal chess game is longer (75-move rule)."""
MAX_MOVE_NUMBER = 100_000
"""Largest move number and half-move clock a FEN header may give."""
MAIN_LINES_KEPT = 32_000_000
"""Characters of main-line text (with their moves) a process keeps to parse a repeated game once."""
STANDARD_VARIANTS = frozenset({"", "standard", "chess", "normal", "from position", "fromposition"})
"""``Variant`` header values that mean ordinary chess (Lichess writes "From Position" for a set-up game)."""

_LINE_PIECE = 1 << 16
_BOM = "\ufeff"
_TAG_START = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+\"")
_TAG = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+\"([^\r]*)\"\]\s*$")
_STRICT_TAG = re.compile(r"\s*\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+\"((?:[^\"\\\r\n]|\\.)*)\"\]")
_TOKEN = re.compile(
    r"""
    (?P<comment>\{[^}]*\})
    |(?P<open>\{)
    |(?P<rest>;[^\n]*)
    |(?P<paren>[()])
    |(?P<nag>\$\d+)
    |(?P<result>1-0|0-1|1/2-1/2|\*)
    |(?P<null>--|Z0|@@@@)
    |(?P<word>[A-Za-z0-9][A-Za-z0-9@=+#\-]*)
    |(?P<mark>[!?+#.]+)
    |(?P<other>[^\s{}();$!?+#.]+|[}$])
    """,
    re.VERBOSE,
)
_MOVE_ERRORS = {
    chess.IllegalMoveError: "illegal move",
    chess.AmbiguousMoveError: "ambiguous move",
    chess.InvalidMoveError: "unparsable move",
}


@dataclass
class GameText:
    """The text of one game as cut from the stream: tag lines and movetext lines."""

    tags: list[str] = field(default_factory=list)
    movetext: list[str] = field(default_factory=list)
    chars: int = 0
    oversize: bool = False
    has_movetext: bool = False
    names: set[str] = field(default_factory=set)

    def add(self, piece: str, *, tag: bool, continued: bool = False) -> None:
        """Add a line, or a further piece of the line added last (``continued``)."""
        self.chars += len(piece)
        self.has_movetext = self.has_movetext or (not tag and bool(piece.strip()))
        if self.chars > MAX_GAME_CHARS:
            self.oversize = True
            self.movetext.clear()
            return
        lines = self.tags if tag else self.movetext
        if continued and lines:
            lines[-1] += piece
        else:
            lines.append(piece)


def split_games(handle: IO[str]) -> Iterator[GameText]:
    """Cut a text stream into games at their tag pairs (see the module's docstring).

    Text before the first tag line belongs to no game and is not returned. Lines are
    read in pieces of at most 64 KiB, so a file without line breaks costs bounded memory.
    Byte-order marks are dropped wherever they are (files joined with ``cat`` keep each one's).
    """
    game: GameText | None = None
    at_line_start = True
    kind = "text"
    for piece in _text_pieces(handle):
        starts_line, at_line_start = at_line_start, piece.endswith("\n")
        if starts_line:
            match = _TAG_START.match(piece)
            kind = "escape" if piece.startswith("%") else "tag" if match else "text"
            if match:
                name = match.group(1)
                if game is None or game.has_movetext or name in game.names:
                    if game is not None:
                        yield game
                    game = GameText()
                if not game.oversize:
                    game.names.update(tag for tag, _ in _tag_pairs(piece) or [(name, "")])
            elif kind == "text" and not piece.strip():
                continue  # a blank line: a separator at most, never the end of a game
        if game is not None and kind != "escape":
            game.add(piece, tag=kind == "tag", continued=not starts_line)
    if game is not None:
        yield game


def _text_pieces(handle: IO[str]) -> Iterator[str]:
    """The stream's lines in pieces of at most ``_LINE_PIECE`` characters, byte-order marks dropped."""
    while piece := handle.readline(_LINE_PIECE):
        if _BOM in piece:  # concatenated UTF-8 files: each one's byte-order mark is not text
            piece = piece.replace(_BOM, "")
            if not piece:
                continue
        yield piece


@dataclass
class ParsedGame:
    """A game's headers and main line, or the reason it cannot be used."""

    headers: dict[str, str]
    start_fen: str = chess.STARTING_FEN
    moves: list[chess.Move] = field(default_factory=list)
    problem: str = ""
    detail: str = ""
    malformed_tags: list[str] = field(default_factory=list)


def read_headers(text: GameText) -> ParsedGame:
    """The game's tag pairs (later tags win); malformed tag lines are kept aside."""
    headers: dict[str, str] = {}
    malformed: list[str] = []
    for line in text.tags:
        pairs = _tag_pairs(line)
        if pairs:
            headers.update(pairs)
        else:
            malformed.append(line.strip()[:80])
    return ParsedGame(headers=headers, malformed_tags=malformed)


def _tag_pairs(line: str) -> list[tuple[str, str]]:
    """The tag pairs of one tag line, in order; empty if the line is not a tag line.

    A line holding several well-formed tag pairs (``[White "A"] [Black "B"]``) gives
    each of them; otherwise the whole line is one tag whose value runs to the last
    ``"]`` (a value with unescaped quotes is read as written).
    """
    pairs, end = [], 0
    for match in _STRICT_TAG.finditer(line):
        if match.start() != end:
            break
        pairs.append((match.group(1), match.group(2)))
        end = match.end()
    if len(pairs) > 1 and not line[end:].strip():
        return pairs
    single = _TAG.match(line)
    return [(single.group(1), single.group(2))] if single else []


def parse_game(text: GameText, game: ParsedGame | None = None) -> ParsedGame:
    """Parse a game's set-up and main line; ``problem`` says why it cannot be used."""
    game = game if game is not None else read_headers(text)
    if text.oversize:
        return _fail(game, "game too long", f"more than {MAX_GAME_CHARS:,} characters of text")
    if game.malformed_tags:
        return _fail(game, "malformed header", repr(game.malformed_tags[0]))
    variant = game.headers.get("Variant", "").strip().lower()
    if variant not in STANDARD_VARIANTS:
        return _fail(game, "unsupported variant", repr(game.headers["Variant"]))
    board = _start_board(game)
    if board is None:
        return game
    game.start_fen = board.fen()
    movetext = "".join(text.movetext)
    kept = _MAIN_LINES.get(game.start_fen, movetext, MAX_PLIES)
    if kept is None:
        _parse_movetext(movetext, board, game)
        _MAIN_LINES.keep(game, movetext, MAX_PLIES)
    else:
        game.moves, game.problem, game.detail = kept
    return game


class _MainLines:
    """Recently parsed main lines by (starting position, movetext, ply limit), at most :data:`MAIN_LINES_KEPT`
    characters of text; the moves are kept as two bytes each (from, to and promotion), least recently used dropped
    first."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.chars = 0
        self.lines: OrderedDict[tuple[str, str, int], tuple[array, str, str]] = OrderedDict()

    def get(self, start_fen: str, movetext: str, max_plies: int) -> tuple[list[chess.Move], str, str] | None:
        """The moves, problem and detail parsed before from this text and position, or None."""
        key = (start_fen, movetext, max_plies)
        kept = self.lines.get(key)
        if kept is None:
            return None
        self.lines.move_to_end(key)
        codes, problem, detail = kept
        return [chess.Move(code & 63, code >> 6 & 63, code >> 12 or None) for code in codes], problem, detail

    def keep(self, game: ParsedGame, movetext: str, max_plies: int) -> None:
        """Keep ``game``'s main line, parsed from ``movetext``, dropping the oldest lines beyond the budget."""
        size = len(movetext) + 2 * len(game.moves)
        if size > self.budget // 100:  # a game this long is rare; it would push out a hundred others
            return
        codes = array(
            "H", (move.from_square | move.to_square << 6 | (move.promotion or 0) << 12 for move in game.moves)
        )
        self.lines[(game.start_fen, movetext, max_plies)] = (codes, game.problem, game.detail)
        self.chars += size
        while self.chars > self.budget:
            (_, text, _), (old, _, _) = self.lines.popitem(last=False)
            self.chars -= len(text) + 2 * len(old)


_MAIN_LINES = _MainLines(MAIN_LINES_KEPT)


def _fail(game: ParsedGame, problem: str, detail: str = "") -> ParsedGame:
    game.problem, game.detail = problem, detail[:120]
    return game


def _start_board(game: ParsedGame) -> chess.Board | None:
    """The starting position (FEN header or the standard one), or ``None`` with a problem set."""
    fen = game.headers.get("FEN")
    if fen is None:
        return chess.Board()
    fields = fen.split()
    counters = fields[4:6]
    if any(part.isascii() and part.isdigit() and (len(part) > 6 or int(part) > MAX_MOVE_NUMBER) for part in counters):
        _fail(
            game, "bad FEN header", f"move counters {' '.join(counters)!r} out of range (at most {MAX_MOVE_NUMBER:,})"
        )
        return None
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        _fail(game, "bad FEN header", f"{fen!r}: {exc}")
        return None
    if board.has_chess960_castling_rights():
        _fail(game, "unsupported variant", f"{fen!r}: Chess960 castling rights")
        return None
    status = board.status()
    if status != chess.STATUS_VALID:
        flags = [(flag.name or "").lower().replace("_", " ") for flag in chess.Status if flag and flag in status]
        _fail(game, "illegal set-up position", f"{fen!r}: {', '.join(flags)}")
        return None
    return board


def _parse_movetext(movetext: str, board: chess.Board, game: ParsedGame) -> None:
    """Play the main line of ``movetext`` on ``board`` into ``game.moves`` (linear time)."""
    depth = 0
    result_seen = False
    for match in _TOKEN.finditer(movetext):
        kind, token = match.lastgroup, match.group()
        if kind == "open":
            _fail(game, "unclosed comment", movetext[match.start() : match.start() + 40])
            return
        if kind == "paren":
            depth += _paren_step(token)
            if depth < 0:
                _fail(game, "unbalanced variation", "')' without '('")
                return
            continue
        if depth or _not_a_move(kind, token):
            continue
        if kind == "result":
            result_seen = True
            continue
        problem = _token_problem(kind, token, result_seen)
        if problem is not None:
            _fail(game, *problem)
            return
        if not _play(board, token, game):
            return
    _check_movetext_end(game, depth)


def _paren_step(token: str) -> int:
    """How a parenthesis changes the variation depth: 1 for ``(``, -1 for ``)``."""
    return 1 if token == "(" else -1


def _not_a_move(kind: str | None, token: str) -> bool:
    """Whether a main-line token is passed over: a comment, the rest of a line, a NAG, a mark, a bare move number."""
    return kind in ("comment", "rest", "nag", "mark") or (kind == "word" and token.isdigit())


def _token_problem(kind: str | None, token: str, result_seen: bool) -> tuple[str, str] | None:
    """The (problem, detail) of a main-line token that cannot be played as a move, if any."""
    if kind == "other":
        return "unrecognised movetext", repr(token[:40])
    if kind == "null":
        return "null move", repr(token)
    if result_seen:
        return "moves after the result", repr(token[:40])
    return None


def _check_movetext_end(game: ParsedGame, depth: int) -> None:
    """Set the game's problem if a variation is left open at the end, or it has no moves."""
    if depth:
        _fail(game, "unclosed variation", f"{depth} '(' not closed")
    elif not game.moves:
        _fail(game, "no moves")


def _play(board: chess.Board, san: str, game: ParsedGame) -> bool:
    """Push one SAN move; ``False`` with the game's problem set if it cannot be."""
    try:
        move = board.parse_san(san)
    except ValueError as exc:
        reason = next((text for kind, text in _MOVE_ERRORS.items() if isinstance(exc, kind)), "unparsable move")
        _fail(game, reason, f"{san!r} in {board.fen()}: {exc}")
        return False
    if len(game.moves) >= MAX_PLIES:
        _fail(game, "game too long", f"more than {MAX_PLIES:,} moves")
        return False
    board.push(move)
    game.moves.append(move)
    return True


def typed_move(board: chess.Board, text: str) -> chess.Move | None:
    """The legal move of ``board`` a user typed, in SAN (``Nf3``) or UCI (``g1f3``); None when it names none."""
    for parse in (board.parse_san, board.parse_uci):
        try:
            return parse(text)
        except ValueError:
            continue
    return None
