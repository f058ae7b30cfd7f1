"""Game filters (iam.games.filters): names of one person and of several, the header conditions and the reason each
left-out game is counted under, and the parsers of the conditions' text, on hand-written games.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from iam.errors import DataError, ParameterError
from iam.games.bundled import bundled_pgn, manifest
from iam.games.filters import (
    GameConditions,
    GameFilter,
    apply_filter,
    names_line,
    parse_date,
    parse_game_date,
    parse_rating,
    parse_time_control,
    person_groups,
    read_filtered,
    reason_left_out,
    same_person,
    surely_before,
    time_control_class,
)
from iam.games.pgn import IngestReport, PlayerGame

LASKERS = """[Event "World Championship"]
[Date "1907.01.26"]
[White "Lasker, Emanuel"]
[Black "Marshall, Frank"]
[Result "1/2-1/2"]

1. e4 e5 1/2-1/2

[Event "New York"]
[Date "1924.??.??"]
[White "Lasker, Edward"]
[Black "Capablanca, Jose Raul"]
[Result "1/2-1/2"]

1. e4 e5 1/2-1/2

[Event "New York"]
[Date "1924.03.20"]
[White "Capablanca, Jose Raul"]
[Black "Lasker, Emanuel"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2
"""
"""Two games of Emanuel Lasker and one of Edward Lasker."""


def _pgn(tmp_path) -> Path:
    path = tmp_path / "laskers.pgn"
    path.write_text(LASKERS, encoding="utf-8")
    return path


def _game(color: chess.Color = chess.WHITE, plies: int = 10, **tags: str) -> PlayerGame:
    """A player's game of ``plies`` plies (the moves are never looked at) with these tag pairs."""
    tags = {"White": "Me, Myself", "Black": "Other, One", "Date": "1950.06.15", "Event": "Open", **tags}
    moves = (chess.Move.from_uci("g1f3"),) * plies
    return PlayerGame(
        index=0, color=color, start_fen=chess.STARTING_FEN, moves=moves, result="draw", white=tags["White"],
        black=tags["Black"], event=tags["Event"], date=tags["Date"], tags=tags,
    )


def test_same_person_by_surname_and_compatible_given_names():
    assert same_person("Smyslov,V", "Smyslov, Vassily")
    assert same_person("Botvinnik, M.", "Botvinnik, Mikhail")
    assert same_person("Spassky,B", "Spassky, Boris V")
    assert same_person("Lasker", "Lasker, Edward")  # a bare surname goes with anyone
    assert not same_person("Lasker, Emanuel", "Lasker, Edward")
    assert not same_person("Tal, Mikhail", "Botvinnik, Mikhail")


def test_person_groups_put_a_team_with_its_member():
    from collections import Counter

    groups = person_groups(Counter({"Lasker, Emanuel": 5, "Lasker,Em/Curt,C": 1, "Lasker, Edward": 1}), "Lasker")
    assert groups == [("Lasker, Emanuel", 6), ("Lasker, Edward", 1)]


def test_the_api_refuses_different_people_in_its_own_words(tmp_path):
    with pytest.raises(ParameterError) as caught:
        read_filtered([_pgn(tmp_path)], GameFilter(player="Lasker"), quiet=True, announce=False)
    found = (caught.value.parameter, caught.value.value, caught.value.others)
    assert found == ("player", "Lasker", ("aliases", "partial_names"))
    assert str(caught.value).endswith("; or use aliases or partial_names") and "--" not in str(caught.value)
    with pytest.raises(DataError, match=r"^whose games should be modelled\? name the player$"):
        read_filtered([_pgn(tmp_path)], GameFilter(), quiet=True, announce=False)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parse_date("1948.13", "since"), "since must be a date YYYY[.MM[.DD]], not '1948.13'"),
        (lambda: parse_date("yesterday"), "date must be a date YYYY[.MM[.DD]], not 'yesterday'"),
        (
            lambda: parse_rating("2500-2000"),
            "rating must be MIN-MAX (e.g. 2200-2500), not '2500-2000': the minimum is above the maximum",
        ),
        (lambda: parse_rating("strong"), "rating must be MIN-MAX (e.g. 2200-2500), not 'strong'"),
        (
            lambda: parse_time_control(""),
            "time_control must be classical, rapid, blitz, bullet or a TimeControl tag such as 180+2, not ''",
        ),
        (lambda: GameConditions(min_plies=-1), "min_plies must be at least 0, not -1"),
    ],
)
def test_bad_filter_values_name_the_parameter(call, message):
    with pytest.raises(ParameterError) as caught:
        call()
    assert str(caught.value) == message


def test_time_control_classes():
    assert [time_control_class(tag) for tag in ("15", "120+1", "300", "600+0", "900+10", "5400+30", "?", "")] == [
        "bullet", "bullet", "blitz", "rapid", "rapid", "classical", None, None
    ]


def test_bundled_masters_games_are_the_same_through_the_filters(bundled_master_games):
    """The default commands read each bundled master's file through the filters: the same games, in order."""
    assert list(bundled_master_games) == [entry.player for entry in manifest()]
    for entry in manifest():
        path = bundled_pgn(entry.file)
        before = bundled_master_games[entry.player]  # read_games([path], player=entry.player), once per session
        after, report = read_filtered(
            [path], GameFilter(player=entry.player), quiet=True, check_names=False, announce=False
        )
        assert [g.index for g in after] == [g.index for g in before], entry.player
        assert [g.moves for g in after] == [g.moves for g in before], entry.player
        assert not report.filtered


def test_the_api_refuses_two_laskers_and_takes_one_by_full_name_or_both_by_partial_names(tmp_path):
    """"Lasker" names two people in the file: refused, naming each with his games; his full name, or
    ``partial_names``, reads his games, and the names line counts them by colour."""
    path = _pgn(tmp_path)
    with pytest.raises(ParameterError, match=r'"Lasker, Emanuel" \(2 games\), "Lasker, Edward" \(1 game\)'):
        read_filtered([path], GameFilter(player="Lasker"), quiet=True, announce=False)
    games, report = read_filtered([path], GameFilter(player="Lasker, Emanuel"), quiet=True, announce=False)
    assert [(game.color, game.date) for game in games] == [(chess.WHITE, "1907.01.26"), (chess.BLACK, "1924.03.20")]
    assert report.counts.used == 2 and not report.filtered
    assert names_line(games) == 'games of "Lasker, Emanuel" (1 as White, 1 as Black)'
    games, _ = read_filtered([path], GameFilter(player="Lasker", partial_names=True), quiet=True, announce=False)
    assert len(games) == 3
    assert names_line(games) == (
        'games of "Lasker, Emanuel" (1 as White, 1 as Black), "Lasker, Edward" (1 as White, 0 as Black)'
    )
    games, report = read_filtered(
        [path], GameFilter(player="Lasker, Emanuel", conditions=GameConditions(since=(1920,))), quiet=True,
        announce=False, max_games=5,
    )
    assert [game.date for game in games] == ["1924.03.20"] and dict(report.filtered) == {"before the dates": 1}
    assert names_line([]) == "no game of the player passes the filters"


def test_each_condition_gives_its_reason_and_the_first_failed_one_is_counted():
    """A game failing a condition is left out under that condition's reason (length first, then dates, event,
    opponent, time control, rating); a game meeting them all passes with ''."""

    def reason(game: PlayerGame, **conditions) -> str:
        report = IngestReport()
        kept = list(apply_filter([game], GameFilter(conditions=GameConditions(**conditions)), report))
        assert (kept == [game]) == (not report.filtered)
        return next(iter(report.filtered), "")

    game = _game(TimeControl="300+0", WhiteElo="2400", BlackElo="2100")
    assert reason(game) == ""
    assert reason(game, min_plies=11) == "fewer than 11 plies" and reason(game, min_plies=10) == ""
    assert reason(game, since=(1950, 7)) == "before the dates" and reason(game, since=(1950,)) == ""
    assert reason(game, until=(1950, 6, 14)) == "after the dates" and reason(game, until=(1950, 6)) == ""
    assert reason(_game(Date="????.??.??"), since=(1900,)) == "unknown date"
    assert reason(_game(Date="????.??.??", UTCDate="1950.01.01"), until=(1949,)) == "after the dates"
    assert reason(game, event="OPEN") == "" and reason(game, event="closed") == "other event"
    assert reason(game, opponent="Other") == "" and reason(game, opponent="Someone") == "other opponent"
    assert reason(game, time_control="blitz") == "" and reason(game, time_control="rapid") == "other time control"
    assert reason(game, time_control="300+0") == "" and reason(game, time_control="300+2") == "other time control"
    assert reason(_game(), time_control="blitz") == "unknown time control"
    assert reason(game, rating=(2400, 2400)) == ""  # his rating as White, not his opponent's
    assert reason(_game(chess.BLACK, BlackElo="2100"), rating=(2200, 3000)) == "rating outside the band"
    assert reason(_game(WhiteElo="0"), rating=(0, 3000)) == "unknown rating"
    assert reason(game, min_plies=20, event="closed") == "fewer than 20 plies"


def test_a_game_seen_from_no_side_asks_both_ratings_and_no_opponent():
    """For a collection's game (``color=None``) the rating band holds for both players and ``opponent`` is not a
    condition."""
    tags = {"White": "A", "Black": "B", "Date": "1950.01.01", "WhiteElo": "2400", "BlackElo": "2100"}
    band = GameFilter(conditions=GameConditions(rating=(2300, 2500)))
    assert reason_left_out(tags, 10, band, color=None) == "rating outside the band"
    assert reason_left_out(tags, 10, band, color=chess.WHITE) == ""
    opponent = GameFilter(conditions=GameConditions(opponent="Z"))
    assert reason_left_out(tags, 10, opponent, color=None) == ""
    assert reason_left_out(tags, 10, opponent, color=chess.WHITE) == "other opponent"


def test_dates_are_compared_to_the_precision_both_know():
    """Game dates keep their known part; a date is surely before another only on the parts both give."""
    assert parse_game_date("1948.03.02") == (1948, 3, 2)
    assert parse_game_date("1948.??.02") == (1948,)
    assert parse_game_date("0000.01.01") is None and parse_game_date("") is None
    assert parse_date("1948-3-2") == (1948, 3, 2) and parse_date(" 1948.12 ") == (1948, 12)
    for bad in ("1948.00", "1948.1.32", "48", "1948.1.1.1"):
        with pytest.raises(ParameterError):
            parse_date(bad)
    assert surely_before((1947,), (1948, 1)) and not surely_before((1948, 5), (1948,))
    assert not surely_before((1948, 3, 2), (1948, 3, 2))


def test_parsers_of_time_controls_and_rating_bands():
    """A time-control class in any case or a raw tag; a band with either end open; periods read by the first."""
    assert parse_time_control("RAPID") == "rapid" and parse_time_control(" 40/7200 ") == "40/7200"
    assert parse_rating("-2500") == (0, 2500) and parse_rating(" 2200 - 2300 ") == (2200, 2300)
    assert parse_rating("2300-2300") == (2300, 2300)
    with pytest.raises(ParameterError):
        parse_rating("-")
    # 179 s is bullet, 180 blitz; 479 blitz, 480 rapid; 1499 rapid, 1500 classical (base + 40 increments)
    assert [time_control_class(tag) for tag in ("179", "180", "439+1", "440+1", "1499", "1500")] == [
        "bullet", "blitz", "blitz", "rapid", "rapid", "classical"
    ]
    assert time_control_class("40/300:60") == "blitz" and time_control_class("1+x") is None
