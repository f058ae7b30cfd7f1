"""The UCI protocol's words read and written as pure functions: ``go``, ``position``, ``setoption`` and ``info``."""

from __future__ import annotations

import dataclasses

import chess
import pytest

from search.chess.game import MATE
from search.chess.imitation import Imitation
from search.chess.uci.protocol import (
    MAX_GO_NUMBER,
    GoClock,
    GoCommand,
    _check,
    _depth_limit,
    _imitation_option,
    _info,
    _position,
    _spin,
    _split_option,
    parse_go,
)
from search.result import MAX_PLY, SearchResult

MOVE = chess.Move.from_uci


def test_every_go_word_is_read_into_its_field():
    """A ``go`` naming every parameter fills each field, clock words in the clock, with no problem noted."""
    go = parse_go(
        "depth 7 nodes 5000 movetime 250 wtime 60000 btime 59000 winc 100 binc 200 movestogo 12 mate 3 "
        "infinite ponder searchmoves e2e4 g1f3".split()
    )
    assert go == GoCommand(
        depth=7, nodes=5000, movetime=250, mate=3, infinite=True, ponder=True,
        clock=GoClock(wtime=60000, btime=59000, winc=100, binc=200, movestogo=12),
        searchmoves=(MOVE("e2e4"), MOVE("g1f3")),
    )
    assert go.problems == () and go.has_clock


def test_an_empty_go_is_the_default_command():
    go = parse_go([])
    assert go == GoCommand() and go.clock == GoClock(None, None, 0, 0, None) and not go.has_clock


def test_searchmoves_end_at_the_next_go_word_and_bad_moves_are_noted():
    """Moves after ``searchmoves`` run up to the next ``go`` word; one that is not a move is left out and listed."""
    go = parse_go("searchmoves e2e4 zz9 d2d4 depth 3".split())
    assert go.searchmoves == (MOVE("e2e4"), MOVE("d2d4")) and go.depth == 3
    assert go.problems == ("searchmoves 'zz9' is not a move",)
    assert parse_go(["searchmoves"]).searchmoves == () and parse_go(["searchmoves"]).problems == ()
    assert parse_go("searchmoves e7e8q".split()).searchmoves == (chess.Move(chess.E7, chess.E8, chess.QUEEN),)


def test_a_number_missing_before_the_next_word_leaves_that_word_intact():
    """``depth movetime 100``: the depth has no number (noted); the movetime is still read."""
    go = parse_go("depth movetime 100".split())
    assert dataclasses.replace(go, problems=()) == GoCommand(movetime=100)
    assert go.problems == ("go depth needs a number",)
    go = parse_go("nodes many".split())
    assert go.nodes is None and go.problems == ("go nodes needs a number, not 'many'",)


@pytest.mark.parametrize(
    "text, value",
    [("+5", 5), ("007", 7), ("0", 0), ("-0", 0), ("1000000000", MAX_GO_NUMBER), ("1000000001", MAX_GO_NUMBER),
     ("99999999999", MAX_GO_NUMBER), ("0000000000000000042", 42)],
)
def test_movetime_numbers_are_read_signs_and_zeros_aside_and_capped(text, value):
    go = parse_go(["movetime", text])
    assert go.movetime == value and go.problems == ()


@pytest.mark.parametrize(
    "words, kept, note",
    [
        (["depth", str(MAX_PLY + 1)], GoCommand(depth=MAX_PLY), "read as 128"),
        (["mate", "100"], GoCommand(mate=MAX_PLY // 2), "read as 64"),
        (["depth", "-0"], GoCommand(depth=1), "out of range; read as 1"),
        (["nodes", "0"], GoCommand(nodes=1), "out of range; read as 1"),
        (["btime", "-3000"], GoCommand(clock=GoClock(btime=0)), "out of range; read as 0"),
        (["winc", "-1"], GoCommand(clock=GoClock(winc=0)), "out of range; read as 0"),
        (["movestogo", "-2"], GoCommand(), "out of range"),
    ],
)
def test_out_of_range_numbers_are_clamped_or_left_out_and_noted(words, kept, note):
    go = parse_go(words)
    assert dataclasses.replace(go, problems=()) == kept
    assert len(go.problems) == 1 and go.problems[0].endswith(note)


def test_a_depth_at_the_deepest_ply_is_not_a_problem():
    assert parse_go(["depth", str(MAX_PLY)]) == GoCommand(depth=MAX_PLY)
    assert parse_go(["mate", str(MAX_PLY // 2)]) == GoCommand(mate=MAX_PLY // 2)


def test_digits_that_are_not_ascii_are_not_numbers():
    go = parse_go(["depth", "\u0663"])  # ARABIC-INDIC DIGIT THREE: int() would read it
    assert go.depth is None and go.problems == ("go depth needs a number, not '\u0663'",)


def test_unknown_words_are_noted_truncated_and_the_rest_read():
    go = parse_go(["x" * 50, "depth", "2", "wibble"])
    assert go.depth == 2
    assert go.problems == (f"unknown go parameter {'x' * 20!r}", "unknown go parameter 'wibble'")


def test_a_repeated_word_keeps_its_last_value():
    assert parse_go("depth 3 depth 5".split()).depth == 5


@pytest.mark.parametrize(
    "clock, has",
    [(GoClock(), False), (GoClock(winc=0, binc=0), False), (GoClock(binc=1), True), (GoClock(winc=5), True),
     (GoClock(movestogo=3), True), (GoClock(wtime=0), True), (GoClock(btime=10), True)],
)
def test_has_clock_is_any_clock_word_sent(clock, has):
    assert GoCommand(clock=clock).has_clock is has


@pytest.mark.parametrize(
    "go, limit",
    [(GoCommand(), None), (GoCommand(depth=4), 4), (GoCommand(mate=1), 1), (GoCommand(mate=3), 5),
     (GoCommand(depth=4, mate=3), 4), (GoCommand(depth=9, mate=2), 3), (GoCommand(nodes=100), None)],
)
def test_the_depth_limit_is_the_depth_or_the_plies_of_the_mate(go, limit):
    """``go mate N`` takes at most ``2N - 1`` plies; with a depth too, the smaller limit."""
    assert _depth_limit(go) == limit


def test_setoption_splits_into_name_and_value():
    assert _split_option("name Hash value 128".split()) == ("Hash", "128")
    assert _split_option("name Clear Hash".split()) == ("Clear Hash", "")
    assert _split_option("name ModelFile value /my models/x.json".split()) == ("ModelFile", "/my models/x.json")
    assert _split_option("name Skill Level value".split()) == ("Skill Level", "")
    for bad in ([], ["name"], ["Hash", "value", "1"], ["value", "1"]):
        with pytest.raises(ValueError, match="expected: setoption name"):
            _split_option(bad)


def test_check_options_take_true_or_false_in_any_case():
    assert _check("Ponder", "TRUE") is True and _check("Ponder", "false") is False
    with pytest.raises(ValueError, match="Ponder must be true or false, got 'yes'"):
        _check("Ponder", "yes")


def test_spin_options_take_whole_numbers_within_their_bounds():
    assert _spin("Hash", "1", 1, 4096) == 1 and _spin("Hash", "4096", 1, 4096) == 4096
    with pytest.raises(ValueError, match="Hash 0 is out of range 1..4096"):
        _spin("Hash", "0", 1, 4096)
    with pytest.raises(ValueError, match="Hash 4097 is out of range"):
        _spin("Hash", "4097", 1, 4096)
    for text in ("1.5", "", "lots"):
        with pytest.raises(ValueError, match="Hash needs a whole number"):
            _spin("Hash", text, 1, 4096)


def test_imitation_options_set_temperature_and_seed_within_range():
    base = Imitation(temperature=0.0, seed=0, unsure_below=0.2)
    assert _imitation_option(base, "temperature", "1.5") == Imitation(temperature=1.5, seed=0, unsure_below=0.2)
    assert _imitation_option(base, "seed", "2147483647") == Imitation(temperature=0.0, seed=2**31 - 1, unsure_below=0.2)
    with pytest.raises(ValueError, match="Temperature needs a number, got 'hot'"):
        _imitation_option(base, "temperature", "hot")
    with pytest.raises(ValueError, match="temperature must be in"):
        _imitation_option(base, "temperature", "101")
    with pytest.raises(ValueError, match="Seed needs a number"):
        _imitation_option(base, "seed", "1.5")
    for seed in ("-1", "2147483648"):
        with pytest.raises(ValueError, match=f"Seed {seed} is out of range"):
            _imitation_option(base, "seed", seed)


def _moves(board: chess.Board) -> list[str]:
    return [move.uci() for move in board.move_stack]


def test_position_from_the_start_or_a_fen_with_moves():
    board, problem = _position("startpos moves e2e4 c7c5".split())
    assert problem is None and _moves(board) == ["e2e4", "c7c5"]
    expected = chess.Board()
    expected.push_uci("e2e4")
    expected.push_uci("c7c5")
    assert board.fen() == expected.fen()
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    board, problem = _position(["fen", *fen.split(), "moves", "e2e4"])
    assert problem is None and board.fen() == "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"
    board, problem = _position(["fen", *fen.split()])
    assert problem is None and board.fen() == fen and board.move_stack == []
    board, problem = _position(["startpos", "moves"])
    assert problem is None and board == chess.Board()


@pytest.mark.parametrize(
    "args, start",
    [(["fen", "not", "a", "fen"], "bad FEN"), (["fen", *"8/8/8/8/8/8/8/8 w - - 0 1".split()], "illegal position"),
     ([], "expected: position"), (["fen"], "expected: position"), (["startpos", "extra"], "expected: position"),
     (["moves", "e2e4"], "expected: position")],
)
def test_an_invalid_set_up_gives_the_start_position_and_says_why(args, start):
    board, problem = _position(args)
    assert board == chess.Board() and board.move_stack == []
    assert problem is not None and problem.startswith(start)


def test_a_bad_move_ends_the_list_after_the_moves_before_it():
    board, problem = _position("startpos moves e2e4 e7e5 e1e3 g1f3".split())
    assert _moves(board) == ["e2e4", "e7e5"]
    assert problem == f"illegal move e1e3 in {board.fen()}"
    board, problem = _position("startpos moves d2d4 e2".split())
    assert _moves(board) == ["d2d4"] and problem == "malformed move 'e2'"


def _result(value, *, nodes=0, qnodes=0, seconds=0.0, depth=1, pv=("e2e4",)):
    moves = tuple(MOVE(uci) for uci in pv)
    return SearchResult(value=value, move=moves[0] if moves else None, pv=moves, nodes=nodes, qnodes=qnodes,
                        depth=depth, seconds=seconds)


def test_an_info_line_with_a_centipawn_score():
    """Nodes are the main and quiescence nodes together; nps is nodes per second of the time in milliseconds."""
    line = _info(_result(34.6, nodes=1200, qnodes=300, seconds=0.5, depth=4, pv=("e2e4", "e7e5", "g1f3")))
    assert line == "info depth 4 score cp 35 nodes 1500 nps 3000 time 500 pv e2e4 e7e5 g1f3"
    assert _info(_result(-12.4), multipv=2) == "info depth 1 multipv 2 score cp -12 nodes 0 nps 0 time 1 pv e2e4"


def test_an_info_line_takes_at_least_one_millisecond():
    assert " nps 7000 time 1 " in _info(_result(0.0, nodes=7, seconds=0.0))
    assert " nps 7000 time 1 " in _info(_result(0.0, nodes=7, seconds=0.0004))


@pytest.mark.parametrize(
    "value, score",
    [(MATE - 1, "mate 1"), (MATE - 3, "mate 2"), (MATE - 5, "mate 3"), (-(MATE - 2), "mate -1"),
     (-(MATE - 4), "mate -2"), (MATE // 2 - 1, f"cp {MATE // 2 - 1}")],
)
def test_mate_scores_are_written_in_moves_from_the_movers_side(value, score):
    """A mate ``p`` plies away is ``mate (p + 1) // 2`` for the mover, ``mate -(p // 2)`` against him."""
    assert f" score {score} " in _info(_result(value))
