"""PGN ingestion: player matching, filters, the held-out split, compression and bad input."""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections import Counter

import chess
import chess.pgn
import pytest
import zstandard

from iam.errors import DataError, PlayerNotFoundError
from iam.games.pgn import (
    IngestReport,
    PlayerGame,
    check_player_games,
    iter_player_games,
    load_player_games,
    name_matches,
    read_whole_games,
    split_of,
)


@pytest.mark.parametrize(
    ("query", "name", "expected"),
    [
        ("Botvinnik", "Botvinnik, Mikhail", True),
        ("botvinnik", "Botvinnik, M.", True),
        ("Botvinnik, Mikhail", "Botvinnik, Mikhail", True),
        ("Tal", "Tal, Mihail", True),
        ("Tal", "Natalia", False),
        ("Mikhail", "Botvinnik, Mikhail", True),
        ("Botvinnik", "Botvinnikov, X", False),
        ("", "anyone", False),
    ],
)
def test_name_matching_is_case_insensitive_and_by_whole_words(query, name, expected):
    assert name_matches(query, name) is expected


def test_held_out_split_every_fifth_game():
    assert [split_of(i) for i in range(10)] == ["train"] * 4 + ["test"] + ["train"] * 4 + ["test"]


def test_player_games_colours_results_and_spellings(tiny_pgn):
    games, report = load_player_games([tiny_pgn], player="tester")
    # Six games have the player; game 4 (index 3) has an illegal move and is skipped.
    assert [g.index for g in games] == [0, 1, 2, 4, 5]
    assert [g.color for g in games] == [chess.WHITE, chess.BLACK, chess.WHITE, chess.BLACK, chess.WHITE]
    assert [g.result for g in games] == ["win", "win", "draw", "loss", "win"]
    assert report.counts.player_games == 6 and report.counts.games_read == 7 and report.used == 5
    assert report.skipped == {"illegal move": 1}
    assert "Ke3" in report.skipped_examples[0]
    assert report.names.spellings == {"Tester, Tom": 5, "Tester, T.": 1}


def test_fen_start_is_supported(tiny_pgn):
    games, _ = load_player_games([tiny_pgn], player="Tester")
    from_fen = games[-1]
    assert from_fen.start_fen.startswith("4k3/8/8/8/8/8/4P3/4K2R w K")
    assert [m.uci() for m in from_fen.moves] == ["e1g1", "e8d7", "e2e4", "d7e6"]


def test_colour_split_and_max_games_filters(tiny_pgn):
    whites, report = load_player_games([tiny_pgn], player="Tester", color="white")
    assert {g.color for g in whites} == {chess.WHITE}
    assert report.counts.filtered_color == 2
    tests, _ = load_player_games([tiny_pgn], player="Tester", split="test")
    assert [g.index for g in tests] == [4]
    trains, _ = load_player_games([tiny_pgn], player="Tester", split="train", max_games=2)
    assert [g.index for g in trains] == [0, 1]


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
def test_compressed_files_read_like_plain(tmp_path, tiny_pgn, kind):
    data = tiny_pgn.read_bytes()
    packed = {"gz": gzip.compress, "bz2": bz2.compress, "zst": zstandard.ZstdCompressor().compress}[kind](data)
    path = tmp_path / f"games.pgn.{kind}"
    path.write_bytes(packed)
    plain, _ = load_player_games([tiny_pgn], player="Tester")
    compressed, _ = load_player_games([path], player="Tester")
    assert [g.moves for g in compressed] == [g.moves for g in plain]


def test_games_are_streamed_one_at_a_time(tiny_pgn):
    report = IngestReport()
    stream = iter_player_games([tiny_pgn], player="Tester", report=report)
    first = next(stream)
    assert first.index == 0 and report.counts.games_read == 1


def test_numbering_continues_across_files(tiny_pgn):
    games, _ = load_player_games([tiny_pgn, tiny_pgn], player="Tester")
    assert [g.index for g in games] == [0, 1, 2, 4, 5, 6, 7, 8, 10, 11]


def test_missing_empty_and_non_pgn_files(tmp_path):
    with pytest.raises(DataError, match="not found"):
        load_player_games([tmp_path / "nope.pgn"], player="x")
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match="empty"):
        load_player_games([empty], player="x")
    binary = tmp_path / "picture.pgn"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(DataError, match="no PGN games"):
        load_player_games([binary], player="x")
    with pytest.raises(DataError, match="folder"):
        load_player_games([tmp_path], player="x")


def test_damaged_compressed_file_is_a_clear_error(tmp_path, tiny_pgn):
    broken = tmp_path / "broken.pgn.gz"
    broken.write_bytes(gzip.compress(tiny_pgn.read_bytes())[:60])
    with pytest.raises(DataError, match="cannot read"):
        load_player_games([broken], player="Tester")


def test_unknown_player_lists_the_common_names(tiny_pgn):
    with pytest.raises(PlayerNotFoundError) as caught:
        load_player_games([tiny_pgn], player="Kasparov")
    message = str(caught.value)
    assert "Kasparov" in message and "'Tester, Tom'" in message and "'Other, Olga'" in message


COMPRESS = {
    "gz": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zst": lambda data: zstandard.ZstdCompressor().compress(data),
}


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_a_damaged_compressed_body_is_a_clear_error(tmp_path, tiny_pgn, kind):
    packed = COMPRESS[kind](tiny_pgn.read_bytes() * 20)
    path = tmp_path / f"games.pgn.{kind}"
    path.write_bytes(packed[:12] + bytes(range(256)) * 4)  # a valid header, then garbage
    with pytest.raises(DataError, match=f"cannot read {path}"):
        load_player_games([path], player="Tester")


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_a_truncated_compressed_file_is_an_error_not_fewer_games(tmp_path, bundled_head, kind):
    # Two streams (gzip members, bz2/xz streams, zstd frames), cut inside the second:
    # the first one's games are read before the cut is found.
    data = bundled_head(50).read_bytes()
    middle = data.index(b"[Event", len(data) // 2)
    first, second = COMPRESS[kind](data[:middle]), COMPRESS[kind](data[middle:])
    path = tmp_path / f"games.pgn.{kind}"
    path.write_bytes(first + second[: len(second) // 2])
    report = IngestReport()
    with pytest.raises(DataError, match="ended before the end-of-stream marker"):
        for _ in iter_player_games([path], player="Botvinnik", report=report):
            pass
    assert 20 <= report.counts.games_read < 50  # the first stream's games were read, then the cut was found


def test_every_frame_of_a_multi_frame_zstd_file_is_read(tmp_path, tiny_pgn):
    data = tiny_pgn.read_bytes()
    cut = data.index(b"[Event", len(data) // 2)
    frames = zstandard.ZstdCompressor().compress(data[:cut]) + zstandard.ZstdCompressor().compress(data[cut:])
    path = tmp_path / "frames.pgn.zst"
    path.write_bytes(frames)
    games, report = load_player_games([path], player="Tester")
    assert report.counts.games_read == 7 and [g.index for g in games] == [0, 1, 2, 4, 5]


def write_pgn(tmp_path, movetexts: list[tuple[dict[str, str], str]]):
    path = tmp_path / "games.pgn"
    blocks = []
    for headers, movetext in movetexts:
        tags = {"White": "Tester, Tom", "Black": "Other, Olga", "Result": "*", **headers}
        blocks.append("".join(f'[{key} "{value}"]\n' for key, value in tags.items()) + "\n" + movetext + "\n")
    path.write_text("\n".join(blocks))
    return path


def test_every_skip_reason_is_counted(tmp_path):
    path = write_pgn(
        tmp_path,
        [
            ({}, "1. e4 e5 2. Nf3 Nc6 *"),  # fine
            ({}, "1. e4 e5 2. Qxh9 *"),  # python-chess's own reader drops this token silently
            ({}, "1. e4 e5 2. Nf3 foo Nc6 *"),
            ({}, "*"),
            ({"Black": "Tester, Tom"}, "1. d4 d5 *"),
            ({"Variant": "Atomic"}, "1. e4 e5 *"),
            ({"SetUp": "1", "FEN": "not a position"}, "1. e4 *"),
            ({}, "1. e4 e5 2. Ke3 *"),
            ({}, "1. e4 {a comment; with (parentheses)} e5 (1... c5 2. Nf3) 2. Nf3+ $1 Nc6!? 3. Bb5 1-0"),
        ],
    )
    games, report = load_player_games([path], player="Tester")
    assert [g.index for g in games] == [0, 8]
    assert [len(g.moves) for g in games] == [4, 5]
    assert report.skipped == {
        "unparsable move": 2,
        "no moves": 1,
        "player on both sides": 1,
        "unsupported variant": 1,
        "bad FEN header": 1,
        "illegal move": 1,
    }
    assert report.used + report.skipped_total == report.counts.player_games == 9
    assert "'Qxh9'" in report.skipped_examples[0] and "'foo'" in report.skipped_examples[1]


def test_reading_leaves_python_chess_logging_alone(tiny_pgn, caplog):
    import logging

    assert logging.getLogger("chess.pgn").level == logging.NOTSET
    with caplog.at_level(logging.DEBUG):
        load_player_games([tiny_pgn], player="Tester")  # holds an illegal move
    assert not [record for record in caplog.records if record.name.startswith("chess")]


def _a_player_game(index: int = 0) -> PlayerGame:
    return PlayerGame(index, chess.WHITE, chess.STARTING_FEN, (chess.Move.from_uci("e2e4"),), "win")


def test_player_games_pass_the_check_as_a_list():
    games = [_a_player_game(0), _a_player_game(1)]
    assert check_player_games(iter(games), "evaluate") == games


@pytest.mark.parametrize(
    "games, said",
    [
        ([chess.pgn.Game()], "evaluate expects PlayerGame records (from iam.load_player_games), not chess.pgn.Game"),
        ("games.pgn", "evaluate expects PlayerGame records, not a path: read the file with iam.load_player_games"),
        (_a_player_game(), "evaluate expects a list of PlayerGame records, not iam.games.pgn.PlayerGame"),
        (3, "evaluate expects a list of PlayerGame records, not int"),
    ],
)
def test_anything_but_player_games_is_a_type_error_naming_them(games, said):
    with pytest.raises(TypeError) as raised:
        check_player_games(games, "evaluate")
    assert str(raised.value).startswith(said)


def test_the_type_error_names_the_first_game_of_the_wrong_type():
    with pytest.raises(TypeError, match=r"not chess\.pgn\.Game \(games\[1\]\)$"):
        check_player_games([_a_player_game(), chess.pgn.Game()], "identify")


def test_a_printed_report_is_its_summary_not_every_name_in_the_file():
    report = IngestReport(files=["games.pgn"])
    report.counts.games_read, report.counts.player_games, report.counts.used = 10, 4, 3
    report.names.spellings["Botvinnik, Mikhail"] = 4
    report.names.headers.update({"Botvinnik, Mikhail": 4, "Tal, Mikhail": 3, "Smyslov, Vasily": 3})
    report.skipped["illegal move"] = 1
    assert str(report) == "\n".join(report.summary_lines())
    assert "Tal" not in str(report) and "Smyslov" not in str(report)
    assert repr(report) == "IngestReport(games_read=10, player_games=4, used=3, skipped=1)"
    assert report.names.headers["Tal, Mikhail"] == 3


WHOLE = (
    '[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 {his favourite} e5 (1... c5 2. Nf3) 2. Nf3 1-0\n\n'
    '[White "A"]\n[Black "C"]\n[Result "*"]\n\n{c} e5 $1 ) e4 ( {c}\n\n'  # python-chess raises on this one
    '[White "A"]\n[Black "D"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'
)


def test_whole_games_keep_comments_and_variations_and_count_what_cannot_be_read(tmp_path):
    path = tmp_path / "games.pgn.gz"
    path.write_bytes(gzip.compress(WHOLE.encode()))
    skipped: Counter[str] = Counter()
    games = read_whole_games(path, skipped)
    assert [game.headers["Black"] for game in games] == ["B"]
    assert games[0].next().comment == "his favourite"
    assert [node.san() for node in games[0].next().variations] == ["e5", "c5"]
    assert skipped == Counter({"illegal or unreadable move": 2})
    with pytest.raises(DataError, match="game 2: illegal or unreadable move"):
        read_whole_games(path)


def test_whole_games_refuse_a_cut_compressed_file_in_one_error(tmp_path):
    path = tmp_path / "cut.pgn.gz"
    whole = gzip.compress(WHOLE.encode())
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match="cannot read"):
        read_whole_games(path, Counter())


def test_whole_games_read_parquet_rows(tmp_path):
    pa = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "games.parquet"
    rows = [{"White": "A", "Black": "B", "Result": "0-1", "movetext": "1. f3 e5 2. g4 Qh4# 0-1"}]
    parquet.write_table(pa.Table.from_pylist(rows), path)
    (game,) = read_whole_games(path, Counter())
    assert game.headers["Result"] == "0-1"
    assert game.end().board().is_checkmate()
