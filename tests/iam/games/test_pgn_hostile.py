"""Hostile PGN input: every game is used or skipped with a reason, in linear time."""

from __future__ import annotations

import os

import chess
import pytest

from iam.errors import DataError
from iam.games import pgntext
from iam.games.pgn import load_player_games

GAME = '[Event "G{n}"]\n[White "Tester, Tom"]\n[Black "Other, Olga"]\n[Result "1-0"]\n'
MOVES = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0\n"


def _read(tmp_path, text: str, player: str = "Tester"):
    path = tmp_path / "games.pgn"
    path.write_text(text)
    return load_player_games([path], player=player)


def _accounted(report) -> bool:
    counts = report.counts
    return counts.used + report.skipped_total + counts.filtered_color + counts.filtered_split == counts.player_games


def test_games_without_blank_lines_between_them_are_all_read(tmp_path):
    text = "".join(GAME.format(n=n) + MOVES for n in range(3))  # result line, then the next [Event at once
    games, report = _read(tmp_path, text)
    assert report.counts.games_read == 3 and report.used == 3 and not report.skipped
    assert [len(game.moves) for game in games] == [10, 10, 10]


def test_an_unclosed_comment_costs_its_own_game_only(tmp_path):
    broken = "1. e4 e5 2. Nf3 {a comment that never ends Nc6 3. Bb5 a6 1-0\n"
    text = GAME.format(n=0) + "\n" + broken + "\n" + "".join(GAME.format(n=n) + "\n" + MOVES + "\n" for n in (1, 2))
    games, report = _read(tmp_path, text)
    assert report.counts.games_read == 3
    assert report.skipped == {"unclosed comment": 1}
    assert [game.index for game in games] == [1, 2] and _accounted(report)
    assert "never ends" in report.skipped_examples[0]


def test_a_stray_parenthesis_is_reported_not_a_shorter_game(tmp_path):
    text = GAME.format(n=0) + "\n1. e4 e5 2. Nf3 ( Nc6 3. Bb5 a6 1-0\n"
    games, report = _read(tmp_path, text)
    assert games == [] and report.skipped == {"unclosed variation": 1}
    games, report = _read(tmp_path, GAME.format(n=0) + "\n1. e4 e5 ) 2. Nf3 Nc6 1-0\n")
    assert report.skipped == {"unbalanced variation": 1}


def test_a_blank_line_inside_the_movetext_does_not_end_the_game(tmp_path):
    text = GAME.format(n=0) + "\n1. e4 e5 2. Nf3\n\nNc6 3. Bb5 a6 1-0\n\n" + GAME.format(n=1) + "\n" + MOVES
    games, report = _read(tmp_path, text)
    assert [len(game.moves) for game in games] == [6, 10]
    assert report.counts.games_read == 2 and not report.skipped


def test_lichess_from_position_games_are_standard_chess(tmp_path):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    header = GAME.format(n=0) + f'[Variant "From Position"]\n[SetUp "1"]\n[FEN "{fen}"]\n'
    games, report = _read(tmp_path, header + "\n3. Bb5 a6 4. Ba4 1-0\n")
    assert report.used == 1 and games[0].start_fen == fen and len(games[0].moves) == 3


@pytest.mark.parametrize(
    ("fen", "flag"),
    [
        ("8/8/8/8/8/8/8/k7 w - - 0 1", "no white king"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawns on backrank"),
    ],
)
def test_illegal_set_up_positions_are_skipped_with_the_reason(tmp_path, fen, flag):
    header = GAME.format(n=0) + f'[SetUp "1"]\n[FEN "{fen}"]\n'
    games, report = _read(tmp_path, header + "\n1. Kd2 Kb2 1-0\n")
    assert games == [] and report.skipped == {"illegal set-up position": 1}
    assert flag in report.skipped_examples[0]


def test_a_game_in_which_the_player_never_moves_is_skipped(tmp_path):
    text = '[White "Other, Olga"]\n[Black "Tester, Tom"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    games, report = _read(tmp_path, text)
    assert games == [] and report.skipped == {"the player makes no move": 1}


def test_a_huge_move_number_in_the_fen_header_is_a_reason_not_a_crash(tmp_path):
    fen = f"4k3/8/8/8/8/8/4P3/4K3 w - - 0 {2**63 - 1}"
    games, report = _read(tmp_path, GAME.format(n=0) + f'[SetUp "1"]\n[FEN "{fen}"]\n\n1. e4 Kd7 1-0\n')
    assert games == [] and report.skipped == {"bad FEN header": 1}
    assert "out of range" in report.skipped_examples[0]
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - \u00b2 1"  # a digit to str.isdigit, not to int
    games, report = _read(tmp_path, GAME.format(n=0) + f'[SetUp "1"]\n[FEN "{fen}"]\n\n1. e4 Kd7 1-0\n')
    assert report.skipped == {"bad FEN header": 1}


def test_deeply_nested_variations_are_read_past(tmp_path):
    # How the time grows with the depth is measured in benchmarks/bench_pgn_nesting.py.
    depth = 40_000
    movetext = "1. e4 e5 2. Nf3 " + "( 2. Nc3 " * depth + ")" * depth + " Nc6 1-0\n"
    games, report = _read(tmp_path, GAME.format(n=0) + "\n" + movetext)
    assert report.used == 1 and len(games[0].moves) == 4


def test_a_hundred_thousand_comments_on_one_line(tmp_path):
    movetext = "1. e4 " + "{c} " * 100_000 + "e5 2. Nf3 1-0\n"
    games, report = _read(tmp_path, GAME.format(n=0) + "\n" + movetext)
    assert report.used == 1 and len(games[0].moves) == 3


def test_moves_after_the_result_and_null_moves_are_reported(tmp_path):
    games, report = _read(tmp_path, GAME.format(n=0) + "\n1. e4 e5 1-0 2. Nf3 Nc6\n")
    assert report.skipped == {"moves after the result": 1}
    games, report = _read(tmp_path, GAME.format(n=0) + "\n1. e4 -- 2. Nf3 1-0\n")
    assert report.skipped == {"null move": 1}


def test_a_malformed_header_naming_the_player_is_counted_and_skipped(tmp_path):
    text = '[White "Tester, Tom\n[Black "Other, Olga"]\n\n1. e4 e5 1-0\n' + GAME.format(n=1) + "\n" + MOVES
    games, report = _read(tmp_path, text)
    assert report.counts.games_read == 2 and report.counts.player_games == 2
    assert report.skipped == {"malformed header": 1} and report.used == 1


def test_game_length_limits(tmp_path, monkeypatch):
    monkeypatch.setattr(pgntext, "MAX_PLIES", 4)
    games, report = _read(tmp_path, GAME.format(n=0) + "\n" + MOVES + "\n" + GAME.format(n=1) + "\n1. e4 e5 1-0\n")
    assert report.skipped == {"game too long": 1} and len(games) == 1 and len(games[0].moves) == 2
    monkeypatch.setattr(pgntext, "MAX_GAME_CHARS", 500)
    text = GAME.format(n=0) + "\n" + "{" + "x" * 1000 + "}\n" + MOVES + "\n" + GAME.format(n=1) + "\n1. e4 e5 1-0\n"
    games, report = _read(tmp_path, text)
    assert report.counts.games_read == 2 and report.skipped == {"game too long": 1} and report.used == 1


def test_a_file_without_line_breaks_is_read_in_bounded_pieces(tmp_path):
    games, report = _read(tmp_path, GAME.format(n=0) + "\n" + "1. e4 e5 " + " " * 300_000 + "2. Nf3 1-0")
    assert report.used == 1 and len(games[0].moves) == 3


def test_devices_and_pipes_are_refused(tmp_path):
    with pytest.raises(DataError, match="not a regular file"):
        load_player_games(["/dev/zero"], player="Tester")
    fifo = tmp_path / "pipe.pgn"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        load_player_games([fifo], player="Tester")


def test_the_split_cuts_at_tag_pairs_only():
    import io

    text = (
        '[Event "a"]\n[White "x"]\n\n1. e4 {\n[%clk 0:01:00] } e5 *\n'  # a wrapped clock comment is movetext
        '[Event "b"]\n[Event "c"]\n'  # a repeated tag starts a game even without movetext between
        "%escaped line\n1. d4 *\n"
    )
    games = list(pgntext.split_games(io.StringIO(text)))
    assert [len(game.tags) for game in games] == [2, 1, 1]
    assert chess.Board().fen() == pgntext.parse_game(games[0]).start_fen
    assert pgntext.parse_game(games[2]).moves == [chess.Move.from_uci("d2d4")]


def test_a_tag_line_longer_than_a_read_piece_stays_one_tag(tmp_path):
    long_tag = '[Annotator "' + "x" * 200_000 + '"]\n'
    text = GAME.format(n=0) + long_tag + "\n" + MOVES + "\n" + GAME.format(n=1) + "\n" + MOVES
    games, report = _read(tmp_path, text)
    assert report.counts.games_read == 2 and report.used == 2 and not report.skipped


def test_a_run_of_spaces_longer_than_a_read_piece_still_separates_moves(tmp_path):
    games, report = _read(tmp_path, GAME.format(n=0) + "\n1. e4" + " " * 200_000 + "e5 2. Nf3 1-0\n")
    assert report.used == 1 and len(games[0].moves) == 3


def test_a_chess960_start_is_an_unsupported_variant(tmp_path):
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    games, report = _read(tmp_path, GAME.format(n=0) + f'[SetUp "1"]\n[FEN "{fen}"]\n\n9. g3 1-0\n')
    assert report.skipped == {"unsupported variant": 1} and "Chess960" in report.skipped_examples[0]


def test_two_tag_pairs_on_one_line_give_both_tags(tmp_path):
    text = '[Event "E"]\n[White "Capablanca, J."] [Black "Botvinnik, M."]\n[Result "0-1"]\n\n' + MOVES.replace(
        "1-0", "0-1"
    )
    games, report = _read(tmp_path, text, player="Botvinnik")
    assert len(games) == 1 and games[0].color == chess.BLACK
    assert (games[0].white, games[0].black, games[0].result) == ("Capablanca, J.", "Botvinnik, M.", "win")
    two_games = text + '[White "Botvinnik, M."] [Black "Tal, M."]\n\n' + MOVES
    games, report = _read(tmp_path, two_games, player="Botvinnik")
    assert report.counts.games_read == 2 and [game.color for game in games] == [chess.BLACK, chess.WHITE]


def test_a_tag_value_with_quotes_and_brackets_is_still_one_tag():
    text = pgntext.GameText(tags=['[Event "The "Big" one] [x"]\n', '[Site "a \\"b\\""]\n'])
    headers = pgntext.read_headers(text).headers
    assert headers == {"Event": 'The "Big" one] [x', "Site": 'a \\"b\\"'}


def test_two_utf8_files_joined_each_with_its_byte_order_mark(tmp_path):
    one = "\ufeff" + GAME.format(n=0) + "\n" + MOVES + "\n"
    two = "\ufeff" + GAME.format(n=1) + "\n" + MOVES + "\n"
    path = tmp_path / "joined.pgn"
    path.write_bytes(one.encode("utf-8") + two.encode("utf-8") + one.replace("G0", "G2").encode("utf-8"))
    games, report = load_player_games([path], player="Tester")
    assert report.counts.games_read == 3 and report.used == 3 and not report.skipped
    assert [game.event for game in games] == ["G0", "G1", "G2"]


def _zstd_rle_frame(head: bytes, run: int, tail: bytes) -> bytes:
    """A zstd frame by hand.

    ``head`` as a raw block, ``run`` blocks each of 128 KiB of spaces (4 bytes each), ``tail``.
    """
    block = 1 << 17

    def header(last: bool, kind: int, size: int) -> bytes:
        return (int(last) | kind << 1 | size << 3).to_bytes(3, "little")

    blocks = [header(False, 0, len(head)) + head]
    blocks += [header(False, 1, block) + b" "] * run
    blocks.append(header(True, 0, len(tail)) + tail)
    return (0xFD2FB528).to_bytes(4, "little") + bytes([0x00, 0x50]) + b"".join(blocks)  # window 1 MiB


def _skippable(payload: bytes, low: int = 0) -> bytes:
    return (0x184D2A50 + low).to_bytes(4, "little") + len(payload).to_bytes(4, "little") + payload


def test_a_zstd_file_with_skippable_frames_is_read_whole(tmp_path):
    import zstandard

    one, two = (GAME.format(n=n) + "\n" + MOVES + "\n" for n in (0, 1))
    data = (
        _skippable(b"\x04\x00\x00\x00")
        + zstandard.ZstdCompressor().compress(one.encode())
        + _skippable(b"", low=15)
        + _zstd_rle_frame(two.encode(), 2, b"\n")
    )
    path = tmp_path / "pzstd.pgn.zst"
    path.write_bytes(data)
    games, report = load_player_games([path], player="Tester")
    assert [game.event for game in games] == ["G0", "G1"] and report.used == 2
    for cut in (3, 9, len(data) - 1):  # inside a skippable frame's header, its payload, the last frame
        path.write_bytes(data[:cut])
        with pytest.raises(DataError, match="truncated|no PGN games|empty"):
            load_player_games([path], player="Tester")


def test_a_highly_compressed_zst_file_is_read_in_bounded_memory(tmp_path):
    """128 MiB of text from 4 KiB of zstd blocks: Python's allocations peak far below that."""
    import tracemalloc

    game = (GAME.format(n=0) + "\n1. e4 e5").encode()
    path = tmp_path / "bomb.pgn.zst"
    path.write_bytes(_zstd_rle_frame(game, 1024, b" 2. Nf3 Nc6 1-0\n\n" + (GAME.format(n=1) + "\n" + MOVES).encode()))
    assert path.stat().st_size < 5_000
    tracemalloc.start()
    try:
        games, report = load_player_games([path], player="Tester")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (report.counts.games_read, report.used, dict(report.skipped)) == (2, 1, {"game too long": 1})
    assert peak < 32 * 2**20  # the text alone is 128 MiB


def test_a_windows_1252_file_is_read_as_such_and_said_once(tmp_path, capsys):
    text = GAME.format(n=0).replace("Other, Olga", "Réti, Richard") + "\n" + MOVES + "\n"
    text += '[Event "G1"]\n[White "Réti, Richard"]\n[Black "Tester, Tom"]\n[Result "0-1"]\n\n' + MOVES.replace(
        "1-0", "0-1"
    )
    path = tmp_path / "cp1252.pgn"
    path.write_bytes(text.encode("cp1252") + b'\n[Event "\x81\x9d"]\n[White "R\xc3\xa9ti"]\n\n1. e4 *\n')
    games, report = load_player_games([path], player="Réti")
    assert (
        report.counts.games_read == 3
        and report.used == 3
        and [game.color for game in games] == [chess.BLACK, chess.WHITE, chess.WHITE]
    )
    assert games[0].black == "Réti, Richard" and games[2].event == "\x81\x9d" and games[2].white == "Réti"
    assert report.notes == [f"{path} is not valid UTF-8: its other bytes were read as Windows-1252"]
    load_player_games([path], player="Tester")
    err = capsys.readouterr().err
    assert err.count("iam: note:") == 1 and "Windows-1252" in err
    path.write_text(text, encoding="utf-8")
    assert load_player_games([path], player="Réti")[1].notes == []
