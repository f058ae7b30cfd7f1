"""iam.games.pgntext: cutting a stream into games by tag pairs, reading headers, parsing the main line."""

import io

import chess
import chess.pgn
import pytest

from iam.games import pgntext
from iam.games.pgntext import GameText, parse_game, read_headers, split_games


def _games(text):
    return list(split_games(io.StringIO(text)))


def _parse(text):
    (game,) = _games(text)
    return parse_game(game)


def test_games_are_cut_at_tags_after_movetext_and_at_repeated_tags():
    text = (
        "junk before any tag\n"
        '[Event "a"]\n[White "W"]\n1. e4 e5 *\n'
        '[Event "b"]\n\n1. d4 *\n'
        '[Event "c"]\n[Event "d"]\n\n1. c4 *\n'
    )
    games = _games(text)
    assert [read_headers(g).headers["Event"] for g in games] == ["a", "b", "c", "d"]
    assert games[0].tags == ['[Event "a"]\n', '[White "W"]\n'] and games[0].movetext == ["1. e4 e5 *\n"]
    assert games[2].movetext == [] and not games[2].has_movetext
    assert [parse_game(g).problem for g in games] == ["", "", "no moves", ""]


def test_blank_lines_and_escape_lines_are_not_game_text():
    games = _games('[Event "a"]\n\n1. e4\n\n e5 *\n% an escape line\n\n')
    assert len(games) == 1
    assert "".join(games[0].movetext) == "1. e4\n e5 *\n"
    assert parse_game(games[0]).moves == [chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")]


def test_byte_order_marks_are_dropped():
    games = _games('\ufeff[Event "a"]\n1. e4 *\n\ufeff[Event "b"]\n1. d4 *\n')
    assert [read_headers(g).headers["Event"] for g in games] == ["a", "b"]


def test_the_main_line_equals_python_chess_reading_of_the_same_game():
    text = (
        '[Event "x"]\n[Result "1-0"]\n\n'
        "1. e4 {best by test} e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 $1 Nc6 3. Bb5!? a6 ; a comment\n"
        "4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0\n"
    )
    parsed = _parse(text)
    assert parsed.problem == ""
    assert parsed.moves == list(chess.pgn.read_game(io.StringIO(text)).mainline_moves())
    assert parsed.start_fen == chess.STARTING_FEN


def test_several_tag_pairs_on_a_line_the_later_winning_and_a_broken_tag_is_movetext():
    (text,) = _games('[Black "C"] [Round "2"] [Black "D"]\n[Bad tag\n1. e4 *\n')
    parsed = read_headers(text)
    assert parsed.headers == {"Black": "D", "Round": "2"}
    assert parsed.malformed_tags == []  # '[Bad tag' is not a tag line: it is movetext
    assert parse_game(text).problem == "unrecognised movetext"


def test_a_tag_line_whose_value_does_not_close_is_malformed():
    text = GameText(tags=['[White "A]\n'], movetext=["1. e4 *"], has_movetext=True)
    parsed = parse_game(text)
    assert parsed.malformed_tags == ['[White "A]']
    assert parsed.problem == "malformed header"


def test_a_fen_header_sets_the_start():
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    parsed = _parse(f'[FEN "{fen}"]\n[SetUp "1"]\n\n1. e4 Kd7 *\n')
    assert parsed.start_fen == fen and parsed.problem == ""
    assert [m.uci() for m in parsed.moves] == ["e2e4", "e8d7"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[Event "x"]\n1. e4 e5 2. Ke3 *\n', "illegal move"),
        ('[FEN "4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1"]\n1. Ne2 *\n', "ambiguous move"),
        ('[Event "x"]\n1. e4 {unclosed\n', "unclosed comment"),
        ('[Event "x"]\n1. e4 (1. d4 *\n', "unclosed variation"),
        ('[Event "x"]\n1. e4 ) e5 *\n', "unbalanced variation"),
        ('[Event "x"]\n1. e4 -- *\n', "null move"),
        ('[Event "x"]\n1. e4 1-0 e5\n', "moves after the result"),
        ('[Event "x"]\n1. e4 & e5\n', "unrecognised movetext"),
        ('[Event "x"]\n*\n', "no moves"),
        ('[Variant "Atomic"]\n1. e4 *\n', "unsupported variant"),
        ('[FEN "not a fen"]\n1. e4 *\n', "bad FEN header"),
        ('[FEN "4k3/8/8/8/8/8/8/4K3 w - - 0 999999999"]\n1. Kd2 *\n', "bad FEN header"),
        ('[FEN "4k3/8/8/8/8/8/8/4KK2 w - - 0 1"]\n1. Kd2 *\n', "illegal set-up position"),
    ],
)
def test_each_reason_a_game_cannot_be_used(text, problem):
    parsed = _parse(text)
    assert parsed.problem == problem
    assert len(parsed.detail) <= 120


def test_moves_before_a_problem_are_kept():
    parsed = _parse('[Event "x"]\n1. e4 e5 2. Ke3 *\n')
    assert [m.uci() for m in parsed.moves] == ["e2e4", "e7e5"]
    assert "'Ke3'" in parsed.detail


def test_standard_variant_names_are_chess():
    for variant in ("Standard", "From Position", "chess"):
        assert _parse(f'[Variant "{variant}"]\n1. e4 *\n').problem == ""


def test_length_limits_skip_the_game(monkeypatch):
    monkeypatch.setattr(pgntext, "MAX_PLIES", 3)
    parsed = _parse('[Event "x"]\n1. e4 e5 2. Nf3 Nc6 *\n')
    assert parsed.problem == "game too long" and len(parsed.moves) == 3
    monkeypatch.setattr(pgntext, "MAX_GAME_CHARS", 30)
    (text,) = _games('[Event "x"]\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 *\n')
    assert text.oversize and text.movetext == []
    assert parse_game(text).problem == "game too long"


def test_a_typed_move_is_read_in_san_or_uci_and_anything_else_is_none():
    import chess

    from iam.games.pgntext import typed_move

    board = chess.Board()
    assert typed_move(board, "Nf3") == typed_move(board, "g1f3") == chess.Move.from_uci("g1f3")
    assert typed_move(board, "e5") is None and typed_move(board, "hello") is None and typed_move(board, "") is None


def test_a_repeated_main_line_is_parsed_once_with_the_same_moves_and_problems(monkeypatch):
    """The second reading of a game comes from the kept main lines: the same moves (promotions and castling
    included), the same problem; a different starting position with the same text is parsed afresh."""
    calls = []
    parse = pgntext._parse_movetext
    monkeypatch.setattr(pgntext, "_parse_movetext", lambda *args: calls.append(1) or parse(*args))
    monkeypatch.setattr(pgntext, "_MAIN_LINES", pgntext._MainLines(10_000))
    promotion = '[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]\n1. a8=N Kg6 2. Kb2 *\n'
    castle = '[Event "c"]\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. Qe2 O-O *\n'
    illegal = '[Event "i"]\n1. e4 e5 2. Ke3 *\n'
    first = [_parse(text) for text in (promotion, castle, illegal)]
    again = [_parse(text) for text in (promotion, castle, illegal)]
    assert len(calls) == 3
    assert [(g.moves, g.problem, g.detail) for g in again] == [(g.moves, g.problem, g.detail) for g in first]
    assert first[0].moves[0].promotion == chess.KNIGHT and chess.Move.from_uci("e1g1") in first[1].moves
    assert first[2].problem == "illegal move" and len(first[2].moves) == 2
    again[1].moves.clear()  # each reading gets its own list
    assert _parse(castle).moves == first[1].moves
    other_start = _parse('[FEN "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]\n1. e4 e5 2. Ke3 *\n')
    assert len(calls) == 4 and other_start.problem == "illegal move" and other_start.moves == []


def test_the_kept_main_lines_stay_within_their_budget():
    lines = pgntext._MainLines(2_000)
    for number in range(40):
        game = pgntext.ParsedGame(headers={}, moves=[chess.Move.from_uci("e2e4")])
        lines.keep(game, f"1. e4 {number} " + "x" * 5, 100)  # 13 or 14 characters and one move: 15 or 16 each
    assert lines.chars == 630 and len(lines.lines) == 40
    for number in range(40, 140):
        lines.keep(pgntext.ParsedGame(headers={}, moves=[]), f"1. e4 {number:03d} " + "x" * 5, 100)  # 15 each
    assert 1_985 < lines.chars <= 2_000 and lines.get(chess.STARTING_FEN, "1. e4 0 xxxxx", 100) is None
    assert lines.get(chess.STARTING_FEN, "1. e4 139 xxxxx", 100) == ([], "", "")
    assert lines.get(chess.STARTING_FEN, "1. e4 139 xxxxx", 99) is None  # another ply limit
    lines.keep(pgntext.ParsedGame(headers={}), "y" * 21, 100)  # over a hundredth of the budget: not kept
    assert lines.get(chess.STARTING_FEN, "y" * 21, 100) is None
