"""The UCI engine's state between commands, driven in-process with command strings (shallow searches only)."""

from __future__ import annotations

import io

import chess
import pytest

from search.chess.engine import ChessSearch, table_bytes
from search.chess.imitation import Imitation
from search.chess.uci.engine import EngineModel, UciEngine, core_table_size
from search.chess.uci.identity import ENGINE_NAME
from search.opponent.exploitation import Exploitation
from search.result import Limits

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1"  # Re8#
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"


class Uniform:
    """A move predictor believing every legal move alike."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


def engine_with(**kwargs) -> tuple[UciEngine, io.StringIO]:
    out = io.StringIO()
    return UciEngine(output=out, **kwargs), out


def lines_of(out: io.StringIO) -> list[str]:
    return out.getvalue().splitlines()


def finish(engine: UciEngine) -> None:
    """Wait for the running search to end on its own (its limit is shallow)."""
    assert engine._thread is not None
    engine._thread.join(timeout=30)
    assert not engine._thread.is_alive()


def test_uci_lists_the_plain_engines_identity_and_options_then_uciok():
    engine, out = engine_with()
    assert engine.handle("uci") is True
    assert lines_of(out) == [
        f"id name {ENGINE_NAME}",
        "id author IAM toolkit",
        "option name Hash type spin default 64 min 1 max 4096",
        "option name Threads type spin default 1 min 1 max 1",
        "option name Ponder type check default false",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name PieceValues type string default <tables>",
        "uciok",
    ]


def test_an_imitating_engine_offers_its_sampling_options_and_says_whom_it_plays():
    engine, out = engine_with(model=EngineModel(Uniform(), name="a model of X"), imitation=Imitation(temperature=0.5,
                                                                                                     seed=9))
    engine.handle("uci")
    lines = lines_of(out)
    assert lines[0] == f"id name {ENGINE_NAME} (playing as a model of X)"
    assert "option name Temperature type string default 0.5" in lines
    assert "option name Seed type spin default 9 min 0 max 2147483647" in lines
    assert lines[-2:] == ["uciok", "info string imitating a model of X"]


@pytest.mark.parametrize(
    "model, extra, name, note",
    [
        (EngineModel(), {}, ENGINE_NAME, None),
        (EngineModel(Uniform(), name="M"), {}, f"{ENGINE_NAME} (guided by M)",
         "info string guided search with M at the opponent's nodes"),
        (EngineModel(Uniform(), name="M", modelled_color=chess.BLACK), {}, f"{ENGINE_NAME} (guided by M)",
         "info string guided search with M at Black's nodes"),
        (EngineModel(Uniform(), name="M"), {"exploitation": Exploitation(weight=0.25)},
         f"{ENGINE_NAME} (exploiting M)", "info string exploiting M (weight 0.25)"),
    ],
)
def test_the_name_and_the_note_after_uciok_say_the_mode(model, extra, name, note):
    engine, out = engine_with(model=model, **extra)
    engine.handle("uci")
    lines = lines_of(out)
    assert engine.name == name and lines[0] == f"id name {name}"
    assert lines[lines.index("uciok") + 1 :] == ([] if note is None else [note])


def test_exploiting_or_imitating_needs_a_predictor_and_not_both():
    with pytest.raises(ValueError, match="needs a move predictor"):
        UciEngine(output=io.StringIO(), exploitation=Exploitation())
    with pytest.raises(ValueError, match="needs a move predictor"):
        UciEngine(output=io.StringIO(), imitation=Imitation())
    with pytest.raises(ValueError, match="not both"):
        UciEngine(output=io.StringIO(), model=EngineModel(Uniform()), exploitation=Exploitation(),
                  imitation=Imitation())


def test_isready_blank_lines_unknown_commands_and_quit():
    engine, out = engine_with()
    assert engine.handle("   ") is True and lines_of(out) == []
    assert engine.handle("isready") is True
    assert engine.handle("  frobnicate  now ") is True
    assert engine.handle("quit") is False
    assert lines_of(out) == ["readyok", "info string unknown command ignored: frobnicate  now"]


def test_run_stops_at_quit_and_ignores_what_follows():
    engine, out = engine_with()
    engine.run(["isready", "quit", "isready", "uci"])
    assert lines_of(out) == ["readyok"]


def test_options_change_the_engines_state():
    engine, out = engine_with()
    engine.run([
        "setoption name Ponder value true", "setoption name Hash value 1", "setoption name MultiPV value 4",
        "setoption name threads value 1", "setoption name multipv value 2",
    ])
    assert lines_of(out) == []  # every one accepted silently; option names in any case
    assert engine.ponder_option is True and engine.multipv == 2 and engine.hash_mb == 1
    assert engine.fast.table_size == 8_192  # 1 MB: two tables of 16,384 slots of four int64 fields


@pytest.mark.parametrize(
    "command, note",
    [
        ("setoption name Ponder value maybe", "info string ignored setoption: Ponder must be true or false"),
        ("setoption name Hash value 5000", "info string ignored setoption: Hash 5000 is out of range 1..4096"),
        ("setoption name OwnBook value true", "info string ignored setoption: unknown option 'OwnBook'"),
        ("setoption name Temperature value 1", "info string ignored setoption: unknown option 'Temperature'"),
        ("setoption name ModelFile value x.json", "info string ignored setoption: unknown option 'ModelFile'"),
        ("setoption Hash 3", "info string ignored setoption: expected: setoption name <id> [value <x>]"),
        ("ponderhit", "info string ignored ponderhit: no ponder search is running"),
    ],
)
def test_a_refused_command_is_one_note_and_changes_nothing(command, note):
    """Options a plain engine without a book, an imitation or a model loader does not offer are unknown."""
    engine, out = engine_with()
    engine.handle(command)
    lines = lines_of(out)
    assert len(lines) == 1 and lines[0].startswith(note)
    assert engine.hash_mb == 64 and engine.ponder_option is False and engine.multipv == 1


def test_an_imitating_engine_takes_temperature_and_seed_options():
    engine, out = engine_with(model=EngineModel(Uniform()), imitation=Imitation())
    engine.run(["setoption name Temperature value 2.5", "setoption name Seed value 77",
                "setoption name Seed value -4"])
    assert engine.imitation == Imitation(temperature=2.5, seed=77)
    assert lines_of(out) == ["info string ignored setoption: Seed -4 is out of range 0..2147483647"]


def test_the_model_file_option_loads_through_the_loader_and_empties():
    read: list[str] = []

    def loader(path: str):
        read.append(path)
        if path.endswith("bad.json"):
            raise ValueError(f"{path} is not a model")
        return Uniform(), "a model of Y"

    engine, out = engine_with(model=EngineModel(loader=loader))
    engine.run(["uci", "setoption name ModelFile value /some dir/y.json"])
    assert "option name ModelFile type string default <empty>" in lines_of(out)
    assert isinstance(engine.predictor, Uniform) and engine.model_file == "/some dir/y.json"
    assert engine.name == f"{ENGINE_NAME} (guided by a model of Y)"
    assert lines_of(out)[-1] == "info string loaded /some dir/y.json: a model of Y"
    engine.handle("setoption name ModelFile value bad.json")
    assert lines_of(out)[-1] == "info string ignored setoption: bad.json is not a model"
    assert isinstance(engine.predictor, Uniform)  # the loaded model stays
    engine.handle("setoption name ModelFile value <empty>")
    assert engine.predictor is None and engine.model_file == "" and engine.name == ENGINE_NAME
    assert lines_of(out)[-1] == "info string no model: plain search"
    assert read == ["/some dir/y.json", "bad.json"]


def test_an_imitating_engine_cannot_drop_its_model():
    engine, out = engine_with(model=EngineModel(Uniform(), loader=lambda path: (Uniform(), "Z")), imitation=Imitation())
    engine.handle("setoption name ModelFile value ")
    assert lines_of(out) == ["info string ignored setoption: ModelFile cannot be emptied: this engine exploits or "
                             "imitates a model"]
    assert engine.predictor is not None


def test_ucinewgame_resets_the_position_and_the_tables():
    engine, _ = engine_with()
    engine.handle("position startpos moves e2e4 e7e5")
    table, fast = engine.table, engine.fast
    engine.handle("ucinewgame")
    assert engine.board == chess.Board() and engine.board.move_stack == []
    assert engine.table is not table and engine.fast is not fast
    engine.handle("position startpos moves e2e4 e7e5 g1f3")  # set up afresh after the new game
    assert [move.uci() for move in engine.board.move_stack] == ["e2e4", "e7e5", "g1f3"]


def test_an_invalid_position_is_noted_with_the_position_the_engine_is_on():
    engine, out = engine_with()
    engine.handle("position startpos moves e2e4 e2e4")
    board = chess.Board()
    board.push_uci("e2e4")
    assert engine.board == board
    assert lines_of(out) == [f"info string invalid position (illegal move e2e4 in {board.fen()}); the position is "
                             f"now {board.fen()}"]


def test_a_shallow_go_finds_the_mate_and_leaves_the_engines_board_alone():
    engine, out = engine_with()
    engine.handle(f"position fen {MATE_IN_ONE}")
    engine.handle("go depth 1")
    finish(engine)
    lines = lines_of(out)
    assert lines[0].startswith("info depth 1 score mate 1 ") and lines[0].endswith(" pv e1e8")
    assert lines[-1] == "bestmove e1e8"
    assert engine.board.fen() == MATE_IN_ONE and engine.board.move_stack == []


def test_a_position_without_moves_gets_the_null_move():
    engine, out = engine_with()
    engine.handle("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")  # Black is mated
    engine.handle("go depth 2")
    finish(engine)
    assert lines_of(out)[-1] == "bestmove 0000"


def test_go_notes_each_malformed_word_before_searching():
    engine, out = engine_with()
    engine.handle("position startpos")
    engine.handle("go depth 0 wibble")
    finish(engine)
    lines = lines_of(out)
    assert lines[:2] == ["info string ignored in go: go depth 0 is out of range; read as 1",
                         "info string ignored in go: unknown go parameter 'wibble'"]
    assert [line.split()[2] for line in lines if line.startswith("info depth")] == ["1"]
    assert lines[-1].startswith("bestmove ")


def test_an_infinite_search_answers_isready_and_ends_only_on_stop():
    engine, out = engine_with()
    engine.handle("position startpos")
    engine.handle("go infinite depth 1")  # its iterations end at once; the bestmove waits for stop
    engine._thread.join(timeout=0.5)
    engine.handle("isready")
    assert "readyok" in lines_of(out) and not any(line.startswith("bestmove") for line in lines_of(out))
    engine.handle("stop")
    assert engine._thread is None
    assert sum(line.startswith("bestmove") for line in lines_of(out)) == 1
    engine.handle("stop")  # nothing running: nothing to say
    assert sum(line.startswith("bestmove") for line in lines_of(out)) == 1


@pytest.mark.parametrize("interruption", ["go depth 1", "position startpos moves e2e4", "ucinewgame",
                                          "setoption name MultiPV value 2"])
def test_a_running_search_is_ended_with_its_bestmove_before_the_next_command(interruption):
    engine, out = engine_with()
    engine.handle("position startpos")
    engine.handle("go infinite")
    engine.handle(interruption)
    if engine._thread is not None:
        finish(engine)
    expected = 2 if interruption.startswith("go") else 1
    assert sum(line.startswith("bestmove") for line in lines_of(out)) == expected


def test_the_end_of_input_lets_a_limited_search_finish_and_ends_an_infinite_one():
    engine, out = engine_with()
    engine.run([f"position fen {MATE_IN_ONE}", "go depth 2"])
    assert lines_of(out)[-1] == "bestmove e1e8" and engine._thread is None
    engine, out = engine_with()
    engine.run(["position startpos", "go infinite"])
    assert lines_of(out)[-1].startswith("bestmove ") and engine._thread is None



@pytest.mark.parametrize("megabytes", [1, 3, 7, 64, 100])
def test_the_hash_option_keeps_the_cores_tables_within_its_megabytes_and_fills_at_least_half(megabytes):
    engine, _ = engine_with()
    engine.handle(f"setoption name Hash value {megabytes}")
    held = engine.fast._tables.nbytes  # what the core allocated, not a formula's figure
    assert megabytes * 2**20 / 2 < held <= megabytes * 2**20
    assert table_bytes(engine.fast.table_size) == held
    assert core_table_size(megabytes) == engine.fast.table_size


def test_a_table_of_the_hash_options_size_holds_its_entries_in_what_it_allocated():
    search = ChessSearch(table_size=core_table_size(1))
    allocated = search._tables.nbytes
    list(search.iterate(chess.Board(MIDDLEGAME), Limits(depth=4)))
    assert len(search.table) > 0 and search._tables.nbytes == allocated


@pytest.mark.parametrize("go", ["go infinite", "go ponder wtime 1000 btime 1000", "go depth 64", "go movetime 50"])
def test_quit_during_a_search_answers_it_once_and_ends(go):
    engine, out = engine_with()
    engine.run(["position startpos", go, "quit", "isready"])
    assert sum(line.startswith("bestmove") for line in lines_of(out)) == 1
    assert "readyok" not in lines_of(out) and engine._thread is None
