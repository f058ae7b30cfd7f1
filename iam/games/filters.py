"""Game filters shared by every command that reads a player's games.

One home for the rule: a :class:`GameFilter` says which games to keep (whose, and the
:class:`GameConditions` on them: :func:`parse_date`, :func:`parse_rating` and
:func:`parse_time_control` read those from text), and
:func:`read_filtered` reads the games and applies it. A game left out by a
filter is counted by its reason in the :class:`~iam.games.pgn.IngestReport`
(``filtered``), never dropped silently.

Names: ``player`` matches case-insensitively by whole words (``"Lasker"`` matches
``"Lasker, Emanuel"``). The spellings matched are always printed, and when they
belong to different people (the same surname with conflicting given names, or
different surnames) the games are refused unless ``partial_names`` asks for them:
``"Smyslov,V"`` and ``"Smyslov, Vassily"`` are one person (an initial is a prefix of
the name), ``"Lasker, Emanuel"`` and ``"Lasker, Edward"`` are two. A consultation
team (``"Alekhine/Reilly"``) is the player's game when one of its members is him.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import chess

from iam.errors import DataError, ParameterError
from iam.games.pgn import ColorFilter, IngestReport, PlayerGame, Split, iter_player_games, name_matches
from iam.progress import progress

__all__ = [
    "TIME_CONTROLS",
    "GameFilter",
    "GameConditions",
    "read_filtered",
    "apply_filter",
    "reason_left_out",
    "same_person",
    "person_groups",
    "time_control_class",
    "parse_date",
    "parse_rating",
    "parse_time_control",
    "parse_game_date",
    "surely_before",
]

TIME_CONTROLS = ("classical", "rapid", "blitz", "bullet")
"""The time-control classes a filter's ``time_control`` takes (or a raw TimeControl tag)."""

_CLASS_LIMITS = ((180, "bullet"), (480, "blitz"), (1500, "rapid"))
"""Estimated game length (base + 40 increments, in seconds) below which a game is of that class."""


@dataclass(frozen=True)
class GameConditions:
    """What a game must be to be kept: its dates, event, opponent, time control, ratings and length.

    ``None``: no condition. They are read from the game's headers and moves alone, so
    they apply alike to one player's games and to a collection's.
    """

    since: tuple[int, ...] | None = None
    until: tuple[int, ...] | None = None
    event: str | None = None
    opponent: str | None = None
    time_control: str | None = None
    rating: tuple[int, int] | None = None
    min_plies: int | None = None

    def __post_init__(self) -> None:
        if self.min_plies is not None and self.min_plies < 0:
            raise ParameterError("min_plies", self.min_plies, "at least 0")

    @property
    def dated(self) -> bool:
        return self.since is not None or self.until is not None


@dataclass(frozen=True)
class GameFilter:
    """Which of a player's games to keep: his names and colour, and the conditions on the games.

    ``None`` or empty: no condition.
    """

    player: str | None = None
    aliases: tuple[str, ...] = ()
    partial_names: bool = False
    color: str = "any"
    conditions: GameConditions = field(default_factory=GameConditions)


def read_filtered(
    paths: Sequence[str | Path],
    games_filter: GameFilter,
    *,
    quiet: bool = False,
    split: str = "all",
    max_games: int | None = None,
    check_names: bool = True,
    announce: bool = True,
) -> tuple[list[PlayerGame], IngestReport]:
    """The player's games in ``paths`` that pass ``games_filter``, and how the files were read.

    ``max_games`` keeps the first N games after every filter. ``check_names=False``
    accepts every spelling the name matches (the bundled files with their manifest's
    names). ``announce`` prints the names matched on stderr. DataError when the names
    matched are different people (unless ``games_filter.partial_names``) or the
    player is missing.
    """
    if not games_filter.player:
        raise DataError("whose games should be modelled? name the player")
    report = IngestReport()
    stream = iter_player_games(
        paths,
        player=games_filter.player,
        aliases=games_filter.aliases,
        color=cast(ColorFilter, games_filter.color),  # iter_player_games checks both
        split=cast(Split, split),
        report=report,
    )
    kept = apply_filter(progress(stream, quiet=quiet, desc="reading games", unit=" games"), games_filter, report)
    games: list[PlayerGame] = []
    for game in kept:
        if max_games is not None and len(games) >= max_games:
            break
        games.append(game)
    report.counts.used = len(games)
    if check_names and not games_filter.partial_names:
        _refuse_different_people(games_filter, report)
    if announce:
        print(f"iam: {names_line(games)}", file=sys.stderr)
    return games, report


def apply_filter(games: Iterable[PlayerGame], games_filter: GameFilter, report: IngestReport) -> Iterator[PlayerGame]:
    """The games of ``games`` that pass the header conditions; each other one counted in ``report.filtered``."""
    for game in games:
        reason = _reason_left_out(game, games_filter)
        if reason:
            report.filtered[reason] += 1
        else:
            yield game


def names_line(games: Sequence[PlayerGame]) -> str:
    """``games of "Lasker, Emanuel" (526 as White, 372 as Black)``: each spelling used, by colour."""
    counts: Counter[tuple[str, bool]] = Counter((_spelling(game), game.color) for game in games)
    spellings = list(dict.fromkeys(name for name, _ in sorted(counts, key=lambda key: -counts[key])))
    if not spellings:
        return "no game of the player passes the filters"
    parts = [
        f'"{name}" ({counts[name, chess.WHITE]} as White, {counts[name, chess.BLACK]} as Black)' for name in spellings
    ]
    return "games of " + ", ".join(parts)


# -- names ---------------------------------------------------------------------


def same_person(first: str, second: str) -> bool:
    """Whether two spellings can name one person: the same surname, given names that agree.

    >>> same_person("Smyslov,V", "Smyslov, Vassily"), same_person("Botvinnik, M.", "Botvinnik, Mikhail")
    (True, True)
    >>> same_person("Lasker, Emanuel", "Lasker, Edward"), same_person("Lasker", "Lasker, Edward")
    (False, True)
    """
    surname_a, given_a = _person(first)
    surname_b, given_b = _person(second)
    if surname_a != surname_b:
        return False
    return all(a.startswith(b) or b.startswith(a) for a, b in zip(given_a, given_b))


def person_groups(spellings: Counter[str], query: str) -> list[tuple[str, int]]:
    """The people among ``spellings`` (name -> games): each as its most common spelling and its games.

    A team's spelling counts as the member whom ``query`` names. A spelling joins
    the first (most common) person it can be; a bare surname joins anyone.
    """
    groups: list[list[Any]] = []
    for spelling, count in spellings.most_common():
        member = _member(spelling, query)
        for group in groups:
            if same_person(group[0], member):
                group[2] += count
                break
        else:
            groups.append([member, spelling, count])
    return [(spelling, count) for _, spelling, count in groups]


def _refuse_different_people(games_filter: GameFilter, report: IngestReport) -> None:
    spellings = Counter(
        {
            name: count
            for name, count in report.names.spellings.items()
            if not any(name_matches(alias, name) for alias in games_filter.aliases)
        }
    )
    groups = person_groups(spellings, games_filter.player or "")
    if len(groups) > 1:
        named = ", ".join(f'"{name}" ({count} game{"s" if count != 1 else ""})' for name, count in groups)
        raise ParameterError(
            "player", games_filter.player, "one person's full name", reason=f"it matches different people: {named}",
            others=("aliases", "partial_names"),
        )


def _member(spelling: str, query: str) -> str:
    """The member of a team spelling (``"Alekhine/Reilly"``) that ``query`` names (the spelling when none)."""
    members = [part for part in re.split(r"\s*/\s*", spelling) if part.strip()]
    if len(members) < 2:
        return spelling
    return next((member for member in members if name_matches(query, member)), spelling)


def _person(name: str) -> tuple[str, list[str]]:
    """(surname, given-name words) of ``"Surname, Given"`` or ``"Given Surname"``, lower-case, without dots."""
    if "," in name:
        surname, _, given = name.partition(",")
        return " ".join(_name_words(surname)), _name_words(given)
    words = _name_words(name)
    if not words:
        return "", []
    return words[-1], words[:-1]


def _name_words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.lower())


def _spelling(game: PlayerGame) -> str:
    return game.white if game.color == chess.WHITE else game.black


# -- the header conditions -----------------------------------------------------


def _reason_left_out(game: PlayerGame, games_filter: GameFilter) -> str:
    """Why the player's ``game`` fails the filter ('' when it passes)."""
    tags = {**game.tags, "Date": game.date, "Event": game.event, "White": game.white, "Black": game.black}
    return reason_left_out(tags, len(game.moves), games_filter, color=game.color)


def reason_left_out(tags: Mapping[str, str], plies: int, games_filter: GameFilter, *, color: chess.Color | None) -> str:
    """Why a game of these tag pairs and ``plies`` fails the header conditions ('' when it passes).

    ``color`` is the player's colour; ``None`` for a game seen from no side (a collection's
    game), where ``rating`` asks both players' ratings to be in the band and
    ``opponent`` is not a condition. The date is the ``Date`` tag, else ``UTCDate``.
    """
    conditions = games_filter.conditions
    if conditions.min_plies is not None and plies < conditions.min_plies:
        return f"fewer than {conditions.min_plies} plies"
    if conditions.dated and (reason := _date_reason(tags, conditions)):
        return reason
    if conditions.event is not None and conditions.event.lower() not in tags.get("Event", "").lower():
        return "other event"
    if conditions.opponent is not None and color is not None:
        opponent = tags.get("Black" if color == chess.WHITE else "White", "")
        if not name_matches(conditions.opponent, opponent):
            return "other opponent"
    if conditions.time_control is not None and (reason := _time_control_reason(tags, conditions.time_control)):
        return reason
    if conditions.rating is not None:
        return _rating_reason(tags, conditions.rating, color)
    return ""


def _date_reason(tags: Mapping[str, str], conditions: GameConditions) -> str:
    """Why a game of these tag pairs fails the conditions' dates ('' when it passes)."""
    date = parse_game_date(tags.get("Date", "")) or parse_game_date(tags.get("UTCDate", ""))
    if date is None:
        return "unknown date"
    if conditions.since is not None and surely_before(date, conditions.since):
        return "before the dates"
    if conditions.until is not None and surely_before(conditions.until, date):
        return "after the dates"
    return ""


def _time_control_reason(tags: Mapping[str, str], wanted: str) -> str:
    """Why a game of these tag pairs fails the time control ``wanted`` ('' when it passes)."""
    tag = tags.get("TimeControl", "").strip()
    if wanted in TIME_CONTROLS:
        found = time_control_class(tag)
        if found is None:
            return "unknown time control"
        if found != wanted:
            return "other time control"
    elif tag != wanted:
        return "other time control"
    return ""


def _rating_reason(tags: Mapping[str, str], band: tuple[int, int], color: chess.Color | None) -> str:
    """Why a game of these tag pairs fails the rating ``band`` ('' when it passes)."""
    sides = ("WhiteElo", "BlackElo") if color is None else ("WhiteElo" if color == chess.WHITE else "BlackElo",)
    for side in sides:
        text = tags.get(side, "").strip()
        if not text.isdigit() or int(text) == 0:
            return "unknown rating"
        low, high = band
        if not low <= int(text) <= high:
            return "rating outside the band"
    return ""


def surely_before(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
    """Whether date ``first`` is surely before ``second``, compared to the precision both know.

    >>> surely_before((1948, 3), (1948, 4)), surely_before((1948,), (1948, 4)), surely_before((1947, 12, 31), (1948,))
    (True, False, True)
    """
    common = min(len(first), len(second))
    return first[:common] < second[:common]


def parse_date(text: str, parameter: str = "date") -> tuple[int, ...]:
    """``"1948.03"`` -> ``(1948, 3)``; ParameterError naming ``parameter`` for anything but YYYY[.MM[.DD]].

    >>> parse_date("1948", "since"), parse_date("1948.03.02", "until")
    ((1948,), (1948, 3, 2))
    """
    match = re.fullmatch(r"(\d{4})(?:[.-](\d{1,2})(?:[.-](\d{1,2}))?)?", text.strip())
    if not match:
        raise ParameterError(parameter, text, "a date YYYY[.MM[.DD]]")
    parts = tuple(int(part) for part in match.groups() if part is not None)
    if len(parts) > 1 and not 1 <= parts[1] <= 12 or len(parts) > 2 and not 1 <= parts[2] <= 31:
        raise ParameterError(parameter, text, "a date YYYY[.MM[.DD]]")
    return parts


def parse_game_date(text: str) -> tuple[int, ...] | None:
    """The known part of a PGN Date (``"1948.??.??"`` -> ``(1948,)``); None when the year is unknown.

    >>> parse_game_date("1948.03.??"), parse_game_date("????.??.??")
    ((1948, 3), None)
    """
    parts: list[int] = []
    for piece in text.strip().split(".")[:3]:
        if not piece.isdigit():
            break
        parts.append(int(piece))
    if not parts or parts[0] == 0:
        return None
    return tuple(parts)


def time_control_class(tag: str) -> str | None:
    """classical, rapid, blitz or bullet from a TimeControl tag (``"180+2"`` -> blitz); None if unknown.

    The estimated length is the base time plus 40 increments, in seconds; a tag of
    periods (``"40/7200:3600"``) is read by its first period.

    >>> time_control_class("180+2"), time_control_class("60")
    ('blitz', 'bullet')
    >>> time_control_class("40/7200:3600"), time_control_class("-")
    ('classical', None)
    """
    first = tag.strip().split(":")[0]
    if "/" in first:
        first = first.split("/", 1)[1]
    match = re.fullmatch(r"(\d+)(?:\+(\d+(?:\.\d+)?))?", first)
    if not match:
        return None
    seconds = int(match.group(1)) + 40 * float(match.group(2) or 0)
    for limit, name in _CLASS_LIMITS:
        if seconds < limit:
            return name
    return "classical"


def parse_time_control(text: str) -> str:
    """A filter's ``time_control`` from text: a class of :data:`TIME_CONTROLS` (any case) or a TimeControl tag.

    >>> parse_time_control(" Blitz "), parse_time_control("180+2")
    ('blitz', '180+2')
    """
    value = text.strip()
    if not value:
        raise ParameterError("time_control", text, f"{', '.join(TIME_CONTROLS)} or a TimeControl tag such as 180+2")
    return value.lower() if value.lower() in TIME_CONTROLS else value


def parse_rating(text: str) -> tuple[int, int]:
    """A filter's ``rating`` band from text: ``"2200-2500"`` -> ``(2200, 2500)``.

    ``"2200-"`` or ``"-2500"`` leave one end open.

    >>> parse_rating("2200-2500"), parse_rating("2600-")
    ((2200, 2500), (2600, 1000000))
    """
    match = re.fullmatch(r"\s*(\d*)\s*-\s*(\d*)\s*", text)
    if not match or not (match.group(1) or match.group(2)):
        raise ParameterError("rating", text, "MIN-MAX (e.g. 2200-2500)")
    low = int(match.group(1)) if match.group(1) else 0
    high = int(match.group(2)) if match.group(2) else 10**6
    if low > high:
        raise ParameterError("rating", text, "MIN-MAX (e.g. 2200-2500)", reason="the minimum is above the maximum")
    return low, high
