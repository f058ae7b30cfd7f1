"""The game options of the command line (iam.cli._games): each filter flag selects the right games of a small PGN,
the left-out games are counted by reason, the names matched are printed, and bad values are one-line errors.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from iam.cli import main
from iam.cli._games import add_game_arguments, read_player_games
from iam.errors import DataError

# (White, Black, Date, Event, TimeControl, WhiteElo, BlackElo, plies)
GAMES = [
    ("Lasker, Emanuel", "Marshall, Frank", "1907.01.26", "World Championship", "", "", "", 6),
    ("Tarrasch, Siegbert", "Lasker, Emanuel", "1908.08.17", "World Championship", "", "", "", 8),
    ("Lasker, Edward", "Capablanca, Jose Raul", "1924.??.??", "New York", "", "", "", 6),
    ("Lasker, Emanuel", "Capablanca, Jose Raul", "1924.03.20", "New York", "", "", "", 10),
    ("Lasker, Emanuel", "Euwe, Max", "????.??.??", "Zurich", "180+2", "2600", "2500", 4),
    ("Lasker,Em/Curt,C", "Euwe, Max", "1934.05.01", "Consultation", "600+0", "", "", 4),
    ("Smith, John", "Lasker, Emanuel", "1935.06.01", "Moscow blitz", "60+0", "2400", "2550", 6),
]
MOVES = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]


def _pgn(tmp_path: Path) -> Path:
    texts = []
    for white, black, date, event, control, welo, belo, plies in GAMES:
        tags = {"Event": event, "Date": date, "White": white, "Black": black, "Result": "1/2-1/2"}
        tags.update({k: v for k, v in (("TimeControl", control), ("WhiteElo", welo), ("BlackElo", belo)) if v})
        header = "\n".join(f'[{k} "{v}"]' for k, v in tags.items())
        moves = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(MOVES[:plies]))
        texts.append(f"{header}\n\n{moves} 1/2-1/2\n")
    path = tmp_path / "lasker.pgn"
    path.write_text("\n".join(texts))
    return path


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_game_arguments(parser)
    return parser.parse_args(list(argv))


def _selected(path: Path, *argv: str) -> list[int]:
    """The selected games as their rows in GAMES."""
    games, report, _, _ = read_player_games(_args(str(path), *argv), quiet=True)
    rows = [(white, black, date) for white, black, date, *_ in GAMES]
    return [rows.index((game.white, game.black, game.date)) for game in games]


def test_lasker_alone_is_refused_naming_both_people(tmp_path, capsys):
    path = _pgn(tmp_path)
    code = main(["compare", str(path), "--player", "Lasker", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err == (
        "iam: error: --player must be one person's full name, not 'Lasker': it matches different people: "
        '"Lasker, Emanuel" (6 games), "Lasker, Edward" (1 game); or use --alias or --partial-names\n'
    )


def test_full_name_partial_names_and_alias(tmp_path, capsys):
    path = _pgn(tmp_path)
    assert _selected(path, "--player", "Lasker, Emanuel") == [0, 1, 3, 4, 6]
    assert _selected(path, "--player", "Lasker", "--partial-names") == [0, 1, 2, 3, 4, 5, 6]
    # the team's "Lasker,Em" spelling joins by --alias (and numbering counts it)
    assert _selected(path, "--player", "Lasker, Emanuel", "--alias", "Lasker,Em") == [0, 1, 3, 4, 5, 6]
    # an alias is the user's word that a spelling is the player: no refusal
    assert _selected(path, "--player", "Lasker, Emanuel", "--alias", "Lasker, Edward") == [0, 1, 2, 3, 4, 6]


def test_each_filter_selects_the_right_games(tmp_path):
    path = _pgn(tmp_path)
    full = ("--player", "Lasker, Emanuel")
    assert _selected(path, *full, "--color", "black") == [1, 6]
    assert _selected(path, *full, "--since", "1924") == [3, 6]  # the undated game is left out
    assert _selected(path, *full, "--until", "1908.08") == [0, 1]
    assert _selected(path, *full, "--since", "1908.08.18", "--until", "1924.12") == [3]
    assert _selected(path, *full, "--event", "world champ") == [0, 1]
    assert _selected(path, *full, "--opponent", "Capablanca") == [3]
    assert _selected(path, *full, "--time-control", "blitz") == [4]
    assert _selected(path, *full, "--time-control", "bullet") == [6]
    assert _selected(path, *full, "--time-control", "180+2") == [4]
    assert _selected(path, *full, "--rating", "2500-2599") == [6]  # his rating, not his opponent's
    assert _selected(path, *full, "--rating", "2600-") == [4]
    assert _selected(path, *full, "--min-plies", "8") == [1, 3]


def test_left_out_games_are_counted_by_reason(tmp_path):
    games, report, _, _ = read_player_games(
        _args(str(_pgn(tmp_path)), "--player", "Lasker, Emanuel", "--since", "1924"), quiet=True
    )
    assert len(games) == 2
    assert dict(report.filtered) == {"before the dates": 2, "unknown date": 1}
    assert any("left out by the filters 3" in line for line in report.summary_lines())


def test_names_matched_are_printed(tmp_path, capsys):
    read_player_games(_args(str(_pgn(tmp_path)), "--player", "Lasker, Emanuel"))
    assert capsys.readouterr().err.splitlines()[-1] == 'iam: games of "Lasker, Emanuel" (3 as White, 2 as Black)'


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--since", "1948.13"], "--since must be a date YYYY[.MM[.DD]], not '1948.13'"),
        (["--until", "yesterday"], "--until must be a date YYYY[.MM[.DD]], not 'yesterday'"),
        (
            ["--rating", "2500-2000"],
            "--rating must be MIN-MAX (e.g. 2200-2500), not '2500-2000': the minimum is above the maximum",
        ),
        (["--rating", "strong"], "--rating must be MIN-MAX (e.g. 2200-2500), not 'strong'"),
        (
            ["--time-control", " "],
            "--time-control must be classical, rapid, blitz, bullet or a TimeControl tag such as 180+2, not ' '",
        ),
        (["--min-plies", "-1"], "--min-plies must be at least 0, not -1"),
    ],
)
def test_bad_filter_values_are_one_line_errors(tmp_path, capsys, argv, message):
    code = main(["compare", str(_pgn(tmp_path)), "--player", "Lasker, Emanuel", *argv, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err == f"iam: error: {message}\n"


def test_compare_without_a_pgn_still_takes_every_spelling_of_the_bundled_player(capsys, monkeypatch):
    """Lasker's bundled file holds two games of Edward Lasker: the default reading keeps them, as the figures did."""
    seen = {}

    def record(paths, games_filter, **options):
        seen.update(paths=paths, options=options)
        raise DataError("stop here")

    monkeypatch.setattr("iam.cli._games.read_filtered", record)
    assert main(["compare", "--player", "Lasker", "--quiet"]) == 2
    assert [Path(p).name for p in seen["paths"]] == ["Lasker.pgn"] and seen["options"]["check_names"] is False


def test_train_json_reports_the_filters(tmp_path, capsys):
    path = _pgn(tmp_path)
    out = tmp_path / "m.json"
    code = main(["train", "--predictor", "iam", "--pgn", str(path), "--player", "Lasker, Emanuel", "--min-plies", "6",
                 "-o", str(out), "--json", "--quiet"])
    assert code == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert games["used"] == 4 and games["filtered"] == {"fewer than 6 plies": 1}


