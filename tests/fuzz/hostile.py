"""Hostile-input fuzzing: seeded mutations of the bundled games, of model files and of UCI
sessions, each checked against invariants, not only for crashes.

One case is a function of its kind and seed (``pgn_case(corpus, seed)``, ...), so any
failure is reproduced by its seed alone. The invariants:

* PGN: every game a plain reading of the tag pairs finds is read (``counts.games_read``), the
  player's games add up (used + skipped with a reason + left out by request), and a
  used game has as many moves as its main line has move tokens (it was not cut short
  without a word). A damaged compressed file may instead be a clear error.
* Model files (both formats, the IAM model's and the move ranker's): loading either
  refuses the file with a clear error or gives a model whose beliefs are in [0, 1] and
  sum to at most 1 (a ranker's: to 1, computed without an overflow), over legal moves only.
* UCI: every ``go`` is answered by one ``bestmove``, legal in the engine's position and
  one of the ``searchmoves`` when it names legal ones;
  a ``position`` command the rules reject is reported with ``info string``, a valid
  one sets exactly the position it names.

Anything else raised is a traceback. The quick sample runs in ``test_fuzz.py``; the
large run is ``run.py`` in this folder.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import io
import json
import lzma
import random
import re
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import chess
import numpy as np
import zstandard

from iam.errors import IAMError, ModelFileError
from iam.games.bundled import default_pgn
from iam.games.pgn import IngestReport, iter_player_games, name_matches
from search.opponent.predictor import abilities_of

__all__ = [
    "Outcome",
    "Corpus",
    "pgn_case",
    "model_case",
    "uci_case",
    "mutate_pgn",
    "mutate_model",
    "uci_session",
    "reference_games",
    "plain_text",
    "mainline_tokens",
    "check_pgn_bytes",
    "check_model_bytes",
    "check_uci_session",
    "PGN_MUTATIONS",
    "CASES",
    "small_model_json",
    "small_ranker_json",
    "mutate_ranker",
    "check_ranker_bytes",
    "ranker_case",
]

BELIEF_TOLERANCE = 1e-9


@dataclass
class Outcome:
    """What one case did: ``ok``, ``refused`` (a clear error), ``traceback`` or ``violation``."""

    kind: str
    seed: int
    status: str = "ok"
    detail: str = ""
    games: int = 0
    unaccounted: int = 0
    cut_short: int = 0
    beliefs_checked: int = 0
    beliefs_out_of_range: int = 0
    gos: int = 0
    bestmoves_missing: int = 0
    seconds: float = 0.0
    mutations: list[str] = field(default_factory=list)

    def fail(self, status: str, detail: str) -> None:
        if self.status in ("ok", "refused"):
            self.status, self.detail = status, detail[:2000]


@dataclass(frozen=True)
class Corpus:
    """The raw material: the bundled games one text each, and a small model file's JSON."""

    games: tuple[str, ...]
    model_json: str = ""
    ranker_json: str = ""

    @classmethod
    def load(cls, *, model_json: str = "", ranker_json: str = "") -> Corpus:
        games: list[str] = []
        for path in sorted(default_pgn().parent.glob("*.pgn")):
            text = path.read_text(encoding="utf-8")
            games.extend("[Event " + block for block in text.split("[Event ")[1:])
        return cls(tuple(games), model_json, ranker_json)


def small_model_json(corpus: Corpus, games: int = 40) -> str:
    """The JSON of a model fitted on the first ``games`` of Botvinnik's bundled games."""
    from iam.chunks.fitted import to_document
    from iam.chunks.model import OpponentModel

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "head.pgn"
        path.write_text("".join([game for game in corpus.games if "Botvinnik" in game][:games]), encoding="utf-8")
        played = list(iter_player_games([path], player="Botvinnik"))
    model = OpponentModel(belief_positions=300).fit(played)
    return json.dumps(to_document(model.state_))


# -- the plain reading: an independent account of what a file holds ---------------

_TAG_LINE = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+\"")
_FULL_TAG = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+\"(.*)\"\]\s*$")
_ONE_TAG = re.compile(r'\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"((?:[^"\\\n\r]|\\.)*)"\]')
_SEVERAL_TAGS = re.compile(r'(?:\s*\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"(?:[^"\\\n\r]|\\.)*"\])+\s*')
_NUMBER_PREFIX = re.compile(r"^\d+\.+")
_SKIPPED_WORDS = re.compile(r"^(?:\d+\.*|\$\d+|[!?+#.]+|(?:1-0|0-1|1/2-1/2|\*)+)$")


@dataclass
class ReferenceGame:
    """One game as a plain reading sees it: its tags and its movetext."""

    tags: dict[str, str] = field(default_factory=dict)
    malformed: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    movetext: list[str] = field(default_factory=list)


def plain_text(data: bytes) -> str:
    """The text of a file: UTF-8, each byte that is not as Windows-1252 (Latin-1 where it has none), no BOMs."""
    text = data.decode("utf-8", errors="surrogateescape")

    def byte(match: re.Match) -> str:
        raw = bytes([ord(match.group()) - 0xDC00])
        return raw.decode("cp1252", errors="ignore") or raw.decode("latin-1")

    return re.sub("[\udc80-\udcff]", byte, text).replace("\ufeff", "")


def reference_games(data: bytes) -> list[ReferenceGame]:
    """Games by a plain reading of the tag pairs (the definition the reader must meet).

    A game starts at a tag line that follows movetext or repeats a tag of the game;
    lines starting with ``%`` are escapes; text before the first tag line is no game.
    """
    text = plain_text(data)
    games: list[ReferenceGame] = []
    current: ReferenceGame | None = None
    for line in io.StringIO(text, newline=None):
        if line.startswith("%"):
            continue
        match = _TAG_LINE.match(line)
        if match:
            if current is None or current.movetext or match.group(1) in current.names:
                current = ReferenceGame()
                games.append(current)
            several = _ONE_TAG.findall(line) if _SEVERAL_TAGS.fullmatch(line) else []
            current.names.update(name for name, _ in several or [(match.group(1), "")])
            full = _FULL_TAG.match(line)
            if len(several) > 1:
                current.tags.update(several)
            elif full:
                current.tags[full.group(1)] = full.group(2)
            else:
                current.malformed.append(line)
        elif current is not None and line.strip():
            current.movetext.append(line)
    return games


def is_players(game: ReferenceGame, player: str) -> bool:
    """Whether the reader must count the game as the player's."""
    if any(name_matches(player, game.tags.get(tag, "")) for tag in ("White", "Black")):
        return True
    return any(name_matches(player, line) for line in game.malformed)


def mainline_tokens(movetext: str) -> int | None:
    """Move tokens of the main line, by a character scan (``None``: unclosed comment or variation)."""
    count, depth, i, n = 0, 0, 0, len(movetext)
    while i < n:
        char = movetext[i]
        if char == "{":
            end = movetext.find("}", i)
            if end < 0:
                return None
            i = end + 1
        elif char == ";":
            end = movetext.find("\n", i)
            i = n if end < 0 else end + 1
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth < 0:
                return None
            i += 1
        elif char.isspace():
            i += 1
        elif char == "$" and movetext[i + 1 : i + 2].isdigit():  # a NAG
            i = _digits_end(movetext, i + 1)
        else:
            end = max(_word_end(movetext, i), i + 1)
            word = _NUMBER_PREFIX.sub("", movetext[i:end])
            i = end
            if depth == 0 and word and not _SKIPPED_WORDS.match(word):
                count += 1
    return None if depth else count


def _digits_end(movetext: str, i: int) -> int:
    """The index after the run of digits starting at ``i``."""
    while i < len(movetext) and movetext[i].isdigit():
        i += 1
    return i


def _word_end(movetext: str, i: int) -> int:
    """The index where the word starting at ``i`` ends (at a space or a PGN delimiter)."""
    while i < len(movetext) and not movetext[i].isspace() and movetext[i] not in "{};()!?$":
        i += 1
    return i


# -- PGN mutations -------------------------------------------------------------------


def _flip_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _lines_op(op: str) -> Callable[[random.Random, bytes], bytes]:
    def apply(rng: random.Random, data: bytes) -> bytes:
        lines = data.split(b"\n")
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(lines))
            if op == "delete" and len(lines) > 1:
                del lines[k]
            elif op == "duplicate":
                lines.insert(k, lines[k])
        return b"\n".join(lines)

    apply.__name__ = f"{op}_lines"
    return apply


def _no_blank_lines(rng: random.Random, data: bytes) -> bytes:
    if rng.random() < 0.5:
        return re.sub(rb"\n\s*\n", b"\n", data)
    return data.replace(b"\n\n[", b"\n[")


def _insert(rng: random.Random, data: bytes, piece: bytes) -> bytes:
    k = rng.randrange(len(data) + 1)
    return data[:k] + piece + data[k:]


def _unclosed_comment(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, rng.choice([b"{", b" { unclosed", b"{[%clk 0:01:00]", b"}"]))


def _unclosed_variation(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, rng.choice([b"(", b" ( 1. e4", b")", b" (( ", b"))"]))


def _deep_variations(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice([10, 1000, 40_000])
    return _insert(rng, data, b" " + b"( e4 " * depth + b")" * (depth - rng.randint(0, 1)) + b" ")


def _many_comments(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, b" " + b"{c} " * rng.choice([10, 10_000, 100_000]))


def _nul_and_non_utf8(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, rng.choice([b"\x00", b"\xff", b"\xfe\xff", b"\xc3", b"\x80\x80", b"\xef\xbb\xbf"]))


def _crlf(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\n", rng.choice([b"\r\n", b"\r", b"\n\r"]))


_ODD_FENS = (
    "8/8/8/8/8/8/8/k7 w - - 0 1",
    "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
    f"4k3/8/8/8/8/8/4P3/4K3 w - - 0 {2**63 - 1}",
    "4k3/8/8/8/8/8/4P3/4K3 w - - " + "9" * 500 + " 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
    "not a fen",
    "",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "K7/8/8/8/8/8/8/7k b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - \u00b2 \u0663",
)


def _odd_fen_header(rng: random.Random, data: bytes) -> bytes:
    fen = rng.choice(_ODD_FENS)
    tags = f'[SetUp "1"]\n[FEN "{fen}"]\n'
    if rng.random() < 0.3:
        tags += f'[Variant "{rng.choice(["From Position", "Chess960", "Standard", "atomic"])}"]\n'
    at = [m.start() for m in re.finditer(rb"\[Result ", data)]
    if not at:
        return _insert(rng, data, tags.encode())
    k = rng.choice(at)
    return data[:k] + tags.encode() + data[k:]


def _odd_tags(rng: random.Random, data: bytes) -> bytes:
    piece = rng.choice(
        [b'[White "Botvinnik', b'[Black "Botvinnik, M."]\n', b"[\n", b'[Event "x"]', b'[Variant "From Position"]\n',
         b'[White "Capablanca, Jose"]\n', b"%escape\n", b";comment\n", b"1-0\n", b"*"]
    )
    return _insert(rng, data, piece)


def _garbage_tokens(rng: random.Random, data: bytes) -> bytes:
    junk = [b" Qxh9 ", b" foo ", b" -- ", b" 99. ", b" $ ", b" e9 ", b" O-O-O-O ", b" 1-0 e4 "]
    return _insert(rng, data, rng.choice(junk))


PGN_MUTATIONS: tuple[Callable[[random.Random, bytes], bytes], ...] = (
    _flip_bytes,
    _truncate,
    _lines_op("delete"),
    _lines_op("duplicate"),
    _no_blank_lines,
    _unclosed_comment,
    _unclosed_variation,
    _deep_variations,
    _many_comments,
    _nul_and_non_utf8,
    _crlf,
    _odd_fen_header,
    _odd_tags,
    _garbage_tokens,
)
_RARE = {"_deep_variations", "_many_comments"}
_COMPRESSORS = {
    "gz": lambda data: gzip.compress(data, mtime=0),
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zst": lambda data: zstandard.ZstdCompressor(write_checksum=True).compress(data),
}


@dataclass(frozen=True)
class MutatedPgn:
    """A mutated file: its bytes on disk, the text it holds, and how it was made."""

    data: bytes
    text: bytes
    player: str
    suffix: str
    damaged_container: bool
    mutations: tuple[str, ...]


def mutate_pgn(corpus: Corpus, seed: int) -> MutatedPgn:
    """A slice of the bundled games with 1-4 seeded mutations, sometimes compressed (and cut)."""
    rng = random.Random(seed)
    start = rng.randrange(len(corpus.games))
    data = "".join(corpus.games[start : start + rng.randint(1, 8)]).encode("utf-8")
    names: list[str] = []
    for _ in range(rng.randint(1, 4)):
        operation = rng.choice(PGN_MUTATIONS)
        if operation.__name__ in _RARE and rng.random() < 0.8:
            operation = _flip_bytes
        data = operation(rng, data)
        names.append(operation.__name__.lstrip("_"))
    names_in_slice = re.findall(r'\[(?:White|Black) "([^"]*)"\]', plain_text(data))
    player = rng.choice(names_in_slice + ["Botvinnik", "Capablanca"] if names_in_slice else ["Botvinnik", "Euwe, Max"])
    suffix, stored, damaged = "pgn", data, False
    if rng.random() < 0.25:
        suffix = rng.choice(list(_COMPRESSORS))
        stored = _COMPRESSORS[suffix](data)
        if rng.random() < 0.5:
            damaged = True
            stored = _truncate(rng, stored) if rng.random() < 0.5 else _flip_bytes(rng, stored)
            names.append(f"{suffix} cut or flipped")
        else:
            names.append(suffix)
        suffix = f"pgn.{suffix}"
    return MutatedPgn(stored, data, player, suffix, damaged, tuple(names))


def check_pgn_bytes(mutated: MutatedPgn, folder: Path, outcome: Outcome) -> None:
    """Read a mutated file and check every invariant of the PGN reader (see module docstring)."""
    path = folder / f"games.{mutated.suffix}"
    path.write_bytes(mutated.data)
    report = IngestReport()
    try:
        games = list(iter_player_games([path], player=mutated.player, report=report))
    except IAMError as exc:
        outcome.status, outcome.detail = "refused", str(exc)[:300]
        games = None
    except Exception:  # the harness's business is exactly this
        outcome.fail("traceback", traceback.format_exc())
        return
    if mutated.damaged_container:
        return  # a damaged container: an error or whatever survived intact, never a traceback
    reference = reference_games(mutated.text)
    players = [game for game in reference if is_players(game, mutated.player)]
    outcome.games = len(reference)
    if games is None:
        if not _refusal_expected(mutated.text, reference, players, outcome.detail):
            outcome.fail("violation", f"refused a readable file: {outcome.detail}")
        return
    _check_report(outcome, report, reference, players, games)


def _refusal_expected(text: str, reference: list, players: list, message: str) -> bool:
    """Whether refusing the file with ``message`` is right: no games, none of the player's, or no text."""
    if not reference and "no PGN games" in message or not players and "no game with player" in message:
        return True
    return not text.strip() and "empty" in message


def _check_report(outcome: Outcome, report: IngestReport, reference: list, players: list, games: list) -> None:
    """The reader's counts and games against a plain reading of the same text."""
    counts = report.counts
    accounted = counts.used + report.skipped_total + counts.filtered_color + counts.filtered_split
    outcome.unaccounted = abs(len(reference) - counts.games_read) + abs(counts.player_games - accounted)
    if counts.games_read != len(reference) or counts.player_games != len(players):
        outcome.fail("violation", f"games read {counts.games_read} (plain reading {len(reference)}), "
                     f"player's {counts.player_games} (plain reading {len(players)})")
    if counts.player_games != accounted:
        outcome.fail("violation", f"player's games {counts.player_games} != used + skipped {accounted}")
    for game in games:
        expected = mainline_tokens("".join(players[game.index].movetext)) if game.index < len(players) else None
        if expected != len(game.moves):
            outcome.cut_short += 1
            outcome.fail("violation", f"game {game.index} used with {len(game.moves)} moves, main line has {expected}")


def pgn_case(corpus: Corpus, seed: int) -> Outcome:
    """One mutated PGN file, read and checked."""
    outcome = Outcome("pgn", seed)
    started = time.perf_counter()
    mutated = mutate_pgn(corpus, seed)
    outcome.mutations = list(mutated.mutations)
    with tempfile.TemporaryDirectory() as folder:
        check_pgn_bytes(mutated, Path(folder), outcome)
    outcome.seconds = time.perf_counter() - started
    return outcome


# -- model files -------------------------------------------------------------------

_EXTREMES: tuple = (
    1e308, -1e308, 1e-308, 10**30, -(10**18), 2**63, float("nan"), float("inf"), 0, -1, 0.5, True, None,
    "text", "", [], {}, [1, 2, 3], {"a": 1}, "e2e4", "x" * 10_000,
)


def _paths(value, prefix=()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index in sorted({0, len(value) // 2, len(value) - 1}) if value else []:
            found.extend(_paths(value[index], (*prefix, index)))
    return found


def _set(data, path: tuple, value) -> None:
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE and isinstance(target, dict):
        del target[path[-1]]
    elif value is not _DELETE:
        target[path[-1]] = value


_DELETE = object()


def mutate_model(corpus: Corpus, seed: int) -> tuple[bytes, tuple[str, ...]]:
    """A model file with seeded damage: to its structure, its bytes or its compression."""
    rng = random.Random(seed)
    data = json.loads(corpus.model_json)
    names: list[str] = []
    numeric_only = rng.random() < 0.4  # damage that keeps the file well-formed: numbers within the limits
    for _ in range(rng.randint(1, 3)):
        paths = _paths(data)[1:]
        if numeric_only:
            paths = [p for p in paths if type(_get(data, p)) in (int, float)] or paths
        path = rng.choice(paths)
        value = _damaged_value(rng, data, path, numeric_only)
        _set(data, path, value if value is _DELETE else copy.deepcopy(value))
        names.append(f"{'/'.join(map(str, path))} = {str(value)[:20] if value is not _DELETE else 'deleted'}")
    text, names = _damaged_text(rng, json.dumps(data).encode(), names, numeric_only)
    return text, tuple(names)


def _damaged_value(rng: random.Random, data, path: tuple, numeric_only: bool):
    """A seeded replacement for the value at ``path`` (``_DELETE``: remove it)."""
    choice = rng.random()
    if numeric_only:
        value = rng.choice([999_999.0, -999_999.0, 1e-300, 0.0, 1e5, -1e5, 3.0, rng.uniform(-50, 50)])
        if type(_get(data, path)) is int:
            value = rng.choice([0, 1, 2, 10**6, 2**62])
    elif choice < 0.15:
        value = _DELETE
    elif choice < 0.3 and isinstance(_get(data, path), list):
        value = [rng.choice(_EXTREMES) for _ in _get(data, path)]
    else:
        value = rng.choice(_EXTREMES)
    return value


def _damaged_text(rng: random.Random, text: bytes, names: list[str], numeric_only: bool) -> tuple[bytes, list[str]]:
    """The model file's bytes with seeded damage to their form or compression, and the damage's names."""
    form = rng.random() if not numeric_only else 1.0
    if form < 0.1:
        text = b"[" * 1000 + b"]" * 1000
        names = ["nested 1000 deep"]
    elif form < 0.18:
        text = text.replace(b'"games":', b'"games":' + b"9" * 5000 + b",\"x\":", 1)
        names.append("5000-digit number")
    elif form < 0.35:
        text = _flip_bytes(rng, text) if rng.random() < 0.5 else _truncate(rng, text)
        names.append("bytes flipped or cut")
    elif form < 0.42:
        text = _nul_and_non_utf8(rng, text)
        names.append("NUL or non-UTF-8")
    if rng.random() < 0.3:
        text = gzip.compress(text, mtime=0)
        if rng.random() < 0.5:
            text = _truncate(rng, text) if rng.random() < 0.5 else _flip_bytes(rng, text)
            names.append("gzip cut or flipped")
        else:
            names.append("gzip")
    return text, names


def _get(data, path: tuple):
    for key in path:
        data = data[key]
    return data


def _probe_boards(corpus: Corpus) -> list[chess.Board]:
    boards = [chess.Board()]
    board = chess.Board()
    for uci in ("d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4"):
        board.push_uci(uci)
        boards.append(board.copy())
    boards.append(chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"))
    boards.append(chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 9999"))
    return boards


def _load_or_refuse(load, data: bytes, path: Path, outcome: Outcome):
    """The model ``load`` reads from ``data`` written at ``path``; None once a refusal or a traceback is recorded."""
    path.write_bytes(data)
    try:
        return load(path)
    except ModelFileError as exc:
        outcome.status, outcome.detail = "refused", str(exc)[:300]
    except Exception:
        outcome.fail("traceback", traceback.format_exc())
    return None


def check_beliefs(beliefs: dict, board: chess.Board, abstains: bool, outcome: Outcome) -> None:
    """Count the beliefs and note a violation of the predictor contract: each in [0, 1], over legal moves, and
    summing to at most 1 for an abstaining model (the IAM model), to 1 over every legal move for any other."""
    values = np.array(list(beliefs.values()), dtype=np.float64)
    outcome.beliefs_checked += len(values)
    bad = int(np.count_nonzero(~((values >= 0) & (values <= 1))))
    if abstains:
        bad += values.sum() > 1 + BELIEF_TOLERANCE
        bad += any(move not in board.legal_moves for move in beliefs)
    else:
        bad += bool(values.size) and abs(values.sum() - 1) > 1e-6
        bad += set(beliefs) != set(board.legal_moves)
    if bad:
        outcome.beliefs_out_of_range += bad
        outcome.fail("violation", f"beliefs {values.tolist()[:8]} (sum {values.sum()}) in {board.fen()}")


def check_model_bytes(data: bytes, folder: Path, outcome: Outcome, boards: list[chess.Board]) -> None:
    """Load a model file: a clear refusal, or beliefs that are probabilities over legal moves."""
    from iam.chunks.model import OpponentModel

    model = _load_or_refuse(OpponentModel.load, data, folder / "model.json.gz", outcome)
    if model is None:
        return
    for board in boards:
        try:
            beliefs = model.predict_proba(board)
            model.predict(board, top=3)
        except Exception:
            outcome.fail("traceback", traceback.format_exc())
            return
        check_beliefs(beliefs, board, abilities_of(model).abstains, outcome)


def model_case(corpus: Corpus, seed: int) -> Outcome:
    """One mutated model file, loaded and (if accepted) asked for beliefs."""
    outcome = Outcome("model", seed)
    started = time.perf_counter()
    data, names = mutate_model(corpus, seed)
    outcome.mutations = list(names)
    with tempfile.TemporaryDirectory() as folder:
        check_model_bytes(data, Path(folder), outcome, _probe_boards(corpus))
    outcome.seconds = time.perf_counter() - started
    return outcome


# -- ranker model files ----------------------------------------------------------------

RANKER_FAMILIES = ("move", "population")
"""The small ranker's evidence (quick to fit and to score)."""


def small_ranker_json(corpus: Corpus, games: int = 20) -> str:
    """The JSON of a move ranker fitted on the first ``games`` of Botvinnik's bundled games, with residual trees.

    The trees (two one-split trees on its first columns, small leaves) are set by hand:
    the population's trees exist only for its own families, and the damage needs some to reach.
    """
    from iam.ranker import MoveRanker

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "head.pgn"
        path.write_text("".join([game for game in corpus.games if "Botvinnik" in game][:games]), encoding="utf-8")
        played = list(iter_player_games([path], player="Botvinnik"))
    document = MoveRanker(families=RANKER_FAMILIES, max_positions=150, prior="none").fit(played).to_dict()
    columns = list(document["weights"])[:2]
    document["trees"] = {
        "columns": columns,
        "depth": 1,
        "roots": [0, 3],
        "nodes": {
            "feature": [0, -1, -1, 1, -1, -1],
            "threshold": [0.5, 0.0, 0.0, 0.0, 0.0, 0.0],
            "left": [1, 0, 0, 4, 0, 0],
            "right": [2, 0, 0, 5, 0, 0],
            "value": [0.0, -0.25, 0.5, 0.0, 0.125, -0.125],
        },
    }
    return json.dumps(document)


_RANKER_NUMBERS = (1e308, -1e308, 1e300, -1e300, 1e-300, 5e-324, 999_999.0, -999_999.0, 1e6, 1e7, 0.0, -1.0, 3.0)
"""Finite numbers that can overflow a score once multiplied, summed or divided."""


def mutate_ranker(corpus: Corpus, seed: int) -> tuple[bytes, tuple[str, ...]]:
    """A ranker model file with seeded damage: its numbers (trees, weights, temperature, calibration)
    or its structure."""
    rng = random.Random(seed)
    data = json.loads(corpus.ranker_json)
    names: list[str] = []
    for _ in range(rng.randint(1, 3)):
        numeric = [p for p in _paths(data)[1:] if type(_get(data, p)) in (int, float)]
        targeted = [p for p in numeric if p[0] in ("trees", "weights", "prior_weights", "scale", "training")]
        roll = rng.random()
        if targeted and roll < 0.6:
            path = rng.choice(targeted)
            if type(_get(data, path)) is float:
                value = rng.choice(_RANKER_NUMBERS)
            else:
                value = rng.choice([0, 1, -1, 2**62, 10**7])
        elif (
            roll < 0.7 and isinstance(data, dict) and isinstance(data.get("trees"), dict)
            and isinstance(data["trees"].get("nodes"), dict) and isinstance(data["trees"]["nodes"].get("value"), list)
        ):
            path = ("trees", "nodes", "value")
            value = [rng.choice(_RANKER_NUMBERS) for _ in _get(data, path)]
        elif roll < 0.75 and isinstance(data, dict):
            path, value = ("version",), rng.choice([True, False, 1.0, "5", None])
        elif _paths(data)[1:]:
            path = rng.choice(_paths(data)[1:])
            value = _DELETE if rng.random() < 0.15 else rng.choice(_EXTREMES)
        else:
            break  # the whole document was replaced by a number or text: nothing left to reach
        _set(data, path, value if value is _DELETE else copy.deepcopy(value))
        names.append(f"{'/'.join(map(str, path))} = {str(value)[:20] if value is not _DELETE else 'deleted'}")
    text = json.dumps(data).encode()
    if rng.random() < 0.1:
        text = _flip_bytes(rng, text) if rng.random() < 0.5 else _truncate(rng, text)
        names.append("bytes flipped or cut")
    if rng.random() < 0.2:
        text = gzip.compress(text, mtime=0)
        names.append("gzip")
    return text, tuple(names)


def check_ranker_bytes(data: bytes, folder: Path, outcome: Outcome, boards: list[chess.Board]) -> None:
    """Load a ranker file: a clear refusal, or finite beliefs that are probabilities over legal moves."""
    from iam.ranker import MoveRanker

    ranker = _load_or_refuse(MoveRanker.load, data, folder / "ranker.json.gz", outcome)
    if ranker is None:
        return
    for board in boards:
        try:
            # an overflow or NaN on the way to a belief fails, even if clipped later
            with np.errstate(over="raise", invalid="raise"):
                beliefs = ranker.predict_proba(board)
        except Exception:
            outcome.fail("traceback", traceback.format_exc())
            return
        check_beliefs(beliefs, board, abilities_of(ranker).abstains, outcome)


def ranker_case(corpus: Corpus, seed: int) -> Outcome:
    """One mutated ranker model file, loaded and (if accepted) asked for beliefs."""
    outcome = Outcome("ranker", seed)
    started = time.perf_counter()
    data, names = mutate_ranker(corpus, seed)
    outcome.mutations = list(names)
    with tempfile.TemporaryDirectory() as folder:
        check_ranker_bytes(data, Path(folder), outcome, _probe_boards(corpus)[::3])
    outcome.seconds = time.perf_counter() - started
    return outcome


# -- UCI sessions -----------------------------------------------------------------------

_FENS = (
    chess.STARTING_FEN,
    "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "k7/8/1K6/8/8/8/8/1Q6 w - - 0 1",
    f"4k3/8/8/8/8/8/4P3/4K3 w - - 0 {2**63 - 1}",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
    "not/a/fen w",
)


def _random_line(rng: random.Random, board: chess.Board) -> str:
    roll = rng.random()
    if roll < 0.3:
        return _position_line(rng)
    if roll < 0.6:
        return "go " + " ".join(_go_words(rng, board))
    return rng.choice([
        "uci", "isready", "ucinewgame", "stop", "ponderhit", "setoption name Hash value 1",
        "setoption name Hash value " + "9" * 50, "setoption name Ponder value true", "setoption", "debug on",
        "", "   ", "\ufffd\ufffd", "go\tdepth\t1", "position", "position startpos moves", "quitx", "register later",
    ])


def _position_line(rng: random.Random) -> str:
    setup = "startpos" if rng.random() < 0.5 else "fen " + rng.choice(_FENS)
    board = chess.Board() if setup == "startpos" else None
    if board is None:
        try:
            board = chess.Board(setup[4:])
        except ValueError:
            board = chess.Board()
    moves = []
    for _ in range(rng.randint(0, 12)):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move.uci())
        board.push(move)
    if moves and rng.random() < 0.2:
        moves.insert(rng.randrange(len(moves)), rng.choice(["e2e5", "zzzz", "a7a8q", "0000", "e1g1", "\ufffd"]))
    return f"position {setup}" + (" moves " + " ".join(moves) if moves or rng.random() < 0.1 else "")


def _go_words(rng: random.Random, board: chess.Board) -> list[str]:
    words: list[str] = []
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.25:
            words += ["depth", str(rng.randint(1, 3))]
        elif roll < 0.4:
            words += ["nodes", str(rng.randint(1, 3000))]
        elif roll < 0.55:
            words += ["movetime", str(rng.randint(0, 40))]
        elif roll < 0.65:
            words += ["wtime", str(rng.randint(0, 3000)), "btime", str(rng.randint(0, 3000)),
                      "winc", str(rng.randint(0, 50))]
        elif roll < 0.72:
            words += [rng.choice(["ponder", "infinite"])]
        elif roll < 0.8:
            legal = [move.uci() for move in board.legal_moves]
            words += (
                ["searchmoves", *rng.sample(legal, min(len(legal), rng.randint(1, 3)))] if legal else ["searchmoves"]
            )
        elif roll < 0.88:
            words += [rng.choice(["movetime", "wtime", "btime", "depth", "nodes"]), "9" * rng.choice([20, 400, 5000])]
        else:
            words += [rng.choice(["wibble", "mate", "-1", "depth", "nodes x", "movestogo 0", "searchmoves zz", "\ufffd",
                                  "depth \u00b2", "movetime \u0663"])]
    if rng.random() < 0.7 and not any(word in ("depth", "nodes", "movetime") for word in words):
        words += ["depth", str(rng.randint(1, 2))]  # most searches end on their own
    return words


def uci_session(seed: int) -> list[str]:
    """A seeded random command sequence (positions, go's of every kind, stops, garbage)."""
    rng = random.Random(seed)
    board = chess.Board()
    lines = ["uci"] if rng.random() < 0.7 else []
    for _ in range(rng.randint(1, 12)):
        line = _random_line(rng, board)
        lines.append(line)
        if line.startswith("go") and rng.random() < 0.5:
            lines.append("stop")
    return lines


def _expected_board(line: str) -> chess.Board | None:
    """The board a ``position`` command names, by python-chess's rules; ``None`` if invalid."""
    words = line.split()[1:]
    moves: list[str] = []
    if "moves" in words:
        moves = words[words.index("moves") + 1 :]
        words = words[: words.index("moves")]
    try:
        if words == ["startpos"]:
            board = chess.Board()
        elif len(words) > 1 and words[0] == "fen":
            board = chess.Board(" ".join(words[1:]))
            if not board.is_valid():
                return None
        else:
            return None
        for uci in moves:
            move = chess.Move.from_uci(uci)
            if not board.is_legal(move):
                return None
            board.push(move)
    except ValueError:
        return None
    return board


def check_uci_session(lines: list[str], outcome: Outcome) -> None:
    """Feed a session to an in-process engine and check every go and position invariant."""
    from search.chess.uci import UciEngine, parse_go

    out = io.StringIO()
    engine = UciEngine(output=out)
    go_boards: list[chess.Board] = []
    restrictions: list[set[str]] = []
    try:
        for line in lines:
            seen = len(out.getvalue())
            if line.split()[:1] == ["go"]:
                go_boards.append(engine.board.copy())
                named = parse_go(line.split()[1:]).searchmoves
                restrictions.append({move.uci() for move in named if move in engine.board.legal_moves})
            engine.handle(line)
            if line.split()[:1] == ["position"]:
                _check_position(line, engine, out.getvalue()[seen:], outcome)
        engine.handle("stop")
        engine.run([])
    except Exception:
        outcome.fail("traceback", traceback.format_exc())
        return
    answers = [line.split() for line in out.getvalue().splitlines() if line.startswith("bestmove")]
    outcome.gos = len(go_boards)
    outcome.bestmoves_missing = max(0, len(go_boards) - len(answers))
    if len(answers) != len(go_boards):
        outcome.fail("violation", f"{len(go_boards)} go commands, {len(answers)} bestmove answers")
        return
    for board, answer, allowed in zip(go_boards, answers, restrictions):
        legal = allowed or {move.uci() for move in board.legal_moves}
        if (answer[1] not in legal) if legal else answer[1] != "0000":
            outcome.fail("violation", f"bestmove {answer[1]} is not legal (or not in searchmoves) in {board.fen()}")


def _check_position(line: str, engine, printed: str, outcome: Outcome) -> None:
    expected = _expected_board(line)
    noted = "info string invalid position" in printed
    if expected is None and not noted:
        outcome.fail("violation", f"invalid {line[:200]!r} not reported")
    elif expected is not None and (noted or engine.board.fen() != expected.fen()):
        outcome.fail("violation", f"{line[:200]!r} set {engine.board.fen()}, expected {expected.fen()}")


def uci_case(corpus: Corpus, seed: int) -> Outcome:
    """One random UCI session, played and checked; odd seeds never send ``stop``."""
    if seed % 2:
        return uci_case_without_stop(corpus, seed)
    outcome = Outcome("uci", seed)
    started = time.perf_counter()
    lines = uci_session(seed)
    outcome.mutations = [line[:60] for line in lines]
    check_uci_session(lines, outcome)
    outcome.seconds = time.perf_counter() - started
    return outcome


# --- UCI sessions that never send ``stop``, as a match runner's: every go must end on its own.

_HOSTILE_GOS = (
    "go wtime -5 btime -5", "go movetime -1", "go depth 0", "go nodes 0", "go mate 2", "go mate 0",
    "go mate -3", "go depth -1 nodes -1", "go movetime x", "go wtime 0 btime 0", "go winc -100 binc -100 wtime 50",
    "go movestogo -2 wtime 100 btime 100", "go", "go ponder", "go infinite",
)


def uci_session_without_stop(seed: int) -> list[str]:
    """A seeded session like :func:`uci_session` without any ``stop``, its go's mixed with out-of-range limits."""
    rng = random.Random(seed)
    lines = [line for line in uci_session(seed) if line.strip() != "stop"]
    for _ in range(rng.randint(1, 4)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(_HOSTILE_GOS))
    return lines


def _last_go_waits_for_stop(lines: list[str]) -> bool:
    """Whether the session's last ``go`` searches until a ``stop`` that never comes (infinite, ponder
    unhit, or a huge depth or node limit alone, with no later ``position`` or ``ucinewgame`` to end it)."""
    from search.chess.uci import parse_go

    gos = [index for index, line in enumerate(lines) if line.split()[:1] == ["go"]]
    if not gos:
        return False
    go = parse_go(lines[gos[-1]].split()[1:])
    later = {line.split()[0] for line in lines[gos[-1] + 1 :] if line.split()}
    if later & {"position", "ucinewgame"}:  # each stops the search, which then answers
        return False
    plies = min((d for d in (go.depth, None if go.mate is None else 2 * go.mate - 1) if d is not None), default=None)
    bounded = (plies is not None and plies <= 20) or (go.nodes is not None and go.nodes <= 10**7)
    if go.movetime is None and not go.has_clock and (plies is not None or go.nodes is not None) and not bounded:
        return True  # depth or node limits alone, as asked, each beyond what ends within a case's time
    return go.infinite or (go.ponder and "ponderhit" not in later)


def check_uci_session_without_stop(lines: list[str], outcome: Outcome, *, wait: float | None = None) -> None:
    """Feed a session with no ``stop`` and count the answers: every go but an unstopped infinite or ponder one.

    The last search is given ``wait`` seconds to end; by default three times the longest
    bound the engine sets itself for a ``go`` (the clock fallback, or a bare go's bound,
    set short here), so a search that ends on any of them has ended by then, and one that
    answers an unstopped infinite or ponder ``go`` on such a bound is seen doing so.
    """
    import search.chess.uci as uci
    from search.chess.uci import clock

    untimed, clock.UNTIMED_SECONDS = clock.UNTIMED_SECONDS, 0.2  # a bare go's bound, short so the run stays quick
    if wait is None:
        wait = 3 * max(clock.FALLBACK_SECONDS, clock.UNTIMED_SECONDS)
    out = io.StringIO()
    engine = uci.UciEngine(output=out)
    gos = 0
    try:
        for line in lines:
            gos += line.split()[:1] == ["go"]
            engine.handle(line)
        if engine._thread is not None:
            engine._thread.join(wait)
    except Exception:
        outcome.fail("traceback", traceback.format_exc())
        return
    finally:
        clock.UNTIMED_SECONDS = untimed
    answers = sum(1 for line in out.getvalue().splitlines() if line.startswith("bestmove"))
    expected = gos - _last_go_waits_for_stop(lines)
    outcome.gos = gos
    outcome.bestmoves_missing = max(0, expected - answers)
    engine._stop_search()
    if answers != expected:
        outcome.fail("violation", f"{gos} go commands without stop, {expected} to end on their own, {answers} answered")


def uci_case_without_stop(corpus: Corpus, seed: int) -> Outcome:
    """One random UCI session that never sends ``stop``, played and its answers counted."""
    outcome = Outcome("uci", seed)
    started = time.perf_counter()
    lines = uci_session_without_stop(seed)
    outcome.mutations = [line[:60] for line in lines]
    check_uci_session_without_stop(lines, outcome)
    outcome.seconds = time.perf_counter() - started
    return outcome


CASES: Mapping[str, Callable[[Corpus, int], Outcome]] = MappingProxyType(
    {"pgn": pgn_case, "model": model_case, "ranker": ranker_case, "uci": uci_case}
)
"""The case kinds by name (read-only)."""
