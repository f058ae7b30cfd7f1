"""The engine's play modes: imitation, exploitation, book and search each end a ``go`` with one legal bestmove."""

from __future__ import annotations

import io
import re
import time

import chess
import pytest

from iam.prepare.book import write_book
from search.chess.exploit import ExploitingResult, ReplyProbe
from search.chess.imitation import Imitation
from search.chess.uci.engine import EngineModel, UciEngine
from search.chess.uci.modes import GUIDED_SHARE, _exploit_verdict, _RootMoves
from search.opponent.exploitation import Exploitation
from search.result import SearchResult

MOVE = chess.Move.from_uci
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"  # Nxh4 wins the queen


class Uniform:
    """Believes every legal move alike."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


class Sure:
    """Believes ``uci`` at 0.9 and the other legal moves share the rest."""

    def __init__(self, uci: str) -> None:
        self.move = MOVE(uci)

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        others = [move for move in board.legal_moves if move != self.move]
        return {self.move: 0.9, **{move: 0.1 / len(others) for move in others}}


class Broken:
    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        raise RuntimeError("no beliefs today")


def play(commands: list[str], **kwargs) -> tuple[list[str], UciEngine]:
    """The output of a session; the end of input lets its shallow search finish."""
    out = io.StringIO()
    engine = UciEngine(output=out, **kwargs)
    engine.run(commands)
    return out.getvalue().splitlines(), engine


def bestmove(lines: list[str]) -> str:
    assert lines[-1].startswith("bestmove ")
    return lines[-1].split()[1]


def test_the_imitation_plays_the_models_move_without_a_search():
    lines, engine = play(["position startpos moves e2e4", "go depth 3"], model=EngineModel(Sure("c7c5")),
                         imitation=Imitation())
    assert lines == [
        "info string model move c7c5 belief 0.900 (most believed 0.900)",
        "info string imitation so far: 1 model moves, 0 search moves, 0 blunders in 1",
        "bestmove c7c5",
    ]
    assert engine.choices == {"model": 1, "search": 0}


def test_an_unsure_model_in_a_tactical_position_leaves_the_move_to_the_search():
    """With a queen hanging and beliefs spread thin, the fast core's move is played: the one the plain engine plays."""
    commands = [f"position fen {HANGING_QUEEN}", "go depth 2"]
    lines, engine = play(commands, model=EngineModel(Uniform()), imitation=Imitation())
    top = 1 / chess.Board(HANGING_QUEEN).legal_moves.count()
    assert lines[0] == f"info string search move: model unsure ({top:.3f}) in a tactical position"
    assert [line.split()[2] for line in lines if line.startswith("info depth")] == ["1", "2"]
    assert engine.choices == {"model": 0, "search": 1}
    plain, _ = play(commands)
    assert bestmove(lines) == bestmove(plain) == "f3h4"


def test_a_broken_model_in_the_imitation_still_ends_with_a_legal_move():
    lines, engine = play(["position startpos moves d2d4", "go depth 2"], model=EngineModel(Broken()),
                         imitation=Imitation())
    assert "info string imitation error: RuntimeError: no beliefs today" in lines
    board = chess.Board()
    board.push_uci("d2d4")
    assert MOVE(bestmove(lines)) in board.legal_moves


def test_the_exploiting_search_reports_its_probes_and_plays_a_legal_move():
    lines, _ = play(["position startpos moves e2e4 e7e5", "go depth 2"], model=EngineModel(Uniform()),
                    exploitation=Exploitation(weight=0.5))
    assert [line.split()[2] for line in lines if line.startswith("info depth")] == ["1", "2"]
    note = next(line for line in lines if line.startswith("info string exploit probed"))
    played = bestmove(lines)
    assert f"; playing {played}; " in note
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert MOVE(played) in board.legal_moves


def test_an_exploiting_go_depth_asks_the_model_in_proportion_to_the_plain_search():
    """A depth limit alone gives the probes the plain search's share of time (at least
    UNTIMED_PROBE_SECONDS), not one prediction for each of the dozens of candidates."""
    slow = Slow(0.2)
    lines, _ = play([f"position fen {MIDDLEGAME}", "go depth 1"], model=EngineModel(slow),
                    exploitation=Exploitation(weight=0.5))
    assert len(slow.started) <= 2  # 26 candidates, each asked (0.2 s a prediction), before
    assert MOVE(bestmove(lines)) in chess.Board(MIDDLEGAME).legal_moves


def test_a_broken_model_in_the_exploiting_search_is_noted_and_a_legal_move_played():
    lines, _ = play([f"position fen {HANGING_QUEEN}", "go depth 2"], model=EngineModel(Broken()),
                    exploitation=Exploitation(weight=0.5))
    assert "info string exploit error: RuntimeError: no beliefs today" in lines
    assert MOVE(bestmove(lines)) in chess.Board(HANGING_QUEEN).legal_moves


def test_a_broken_model_in_the_exploiting_search_still_plays_the_deepest_completed_move():
    """The plain search's depths finished before the probes broke: its deepest move is played, not a first legal one."""
    lines, _ = play(["position startpos moves e2e4 e7e5", "go depth 2"], model=EngineModel(Broken()),
                    exploitation=Exploitation(weight=0.5))
    deepest = [line for line in lines if line.startswith("info depth 2 ")][-1]
    assert bestmove(lines) == deepest.split(" pv ")[1].split()[0] == "g1f3"


def test_multipv_is_one_line_in_a_guided_search_and_says_so():
    lines, _ = play(["setoption name MultiPV value 3", "position startpos moves e2e4", "go depth 2"],
                    model=EngineModel(Uniform()))
    assert "info string MultiPV 3 is for the plain search; this search reports one line" in lines
    assert not any(" multipv " in line for line in lines)


def test_searchmoves_in_a_book_position_plays_the_allowed_book_move(tmp_path):
    board = chess.Board()
    board.push_uci("e2e4")
    book = tmp_path / "book.bin"
    write_book([(board, MOVE("c7c5"), 0.9), (board, MOVE("e7e5"), 0.1)], book)
    lines, _ = play(["position startpos moves e2e4", "go depth 2 searchmoves e7e5 d7d5"], book=str(book))
    assert lines == ["info string book move e7e5", "bestmove e7e5"]
    lines, _ = play(["position startpos moves e2e4", "go depth 1 searchmoves d7d5"], book=str(book))
    assert not any("book move" in line for line in lines) and bestmove(lines) == "d7d5"  # not in the book: searched


def test_an_unreadable_book_is_noted_and_the_position_searched(tmp_path):
    book = tmp_path / "gone.bin"
    lines, _ = play(["position startpos", "go depth 1"], book=str(book))
    assert lines[0].startswith(f"info string book {book} unreadable (") and lines[0].endswith("); searching")
    assert lines[1].startswith("info depth 1 ") and MOVE(bestmove(lines)) in chess.Board().legal_moves


def test_the_bestmove_names_the_principal_variations_reply_to_ponder_on():
    engine = UciEngine(output=io.StringIO())
    board = chess.Board()
    line = SearchResult(value=0.0, move=MOVE("e2e4"), pv=(MOVE("e2e4"), MOVE("c7c5"), MOVE("g1f3")))
    assert engine._best_move(line, board) == "e2e4 ponder c7c5"
    short = SearchResult(value=0.0, move=MOVE("e2e4"), pv=(MOVE("e2e4"),))
    assert engine._best_move(short, board) == "e2e4"
    odd = SearchResult(value=0.0, move=MOVE("e2e4"), pv=(MOVE("d2d4"), MOVE("d7d5")))  # the pv is not the move's
    assert engine._best_move(odd, board) == "e2e4"


def test_without_a_usable_result_the_bestmove_falls_back_to_a_legal_or_allowed_move():
    engine = UciEngine(output=io.StringIO())
    board = chess.Board()
    assert MOVE(engine._best_move(None, board)) in board.legal_moves
    assert engine._best_move(None, board, (MOVE("h2h3"),)) == "h2h3"
    outside = SearchResult(value=0.0, move=MOVE("e2e4"), pv=(MOVE("e2e4"),))
    assert engine._best_move(outside, board, (MOVE("a2a3"),)) == "a2a3"  # the search's move is not allowed
    assert engine._best_move(None, chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")) == "0000"


class _Plan:
    """An inner policy that plans ``pairs`` at every node."""

    def __init__(self, pairs):
        self.pairs = pairs

    def plan(self, cursor, actions, *, ply, depth):
        return self.pairs


@pytest.mark.parametrize(
    "inner, ply, expected",
    [
        (None, 0, [("b", 0), ("d", 0)]),
        (None, 1, None),
        (_Plan([("d", -2), ("a", 1), ("b", 3)]), 0, [("d", -2), ("b", 3)]),  # the inner plan, filtered
        (_Plan([("a", 1), ("c", 2)]), 0, [("b", 0), ("d", 0)]),  # nothing allowed in it: the allowed actions
        (_Plan([("a", 1)]), 2, [("a", 1)]),  # below the root the inner policy rules
    ],
)
def test_the_root_filter_of_searchmoves(inner, ply, expected):
    policy = _RootMoves(("d", "b", "z"), inner)
    assert policy.plan(None, ["a", "b", "c", "d"], ply=ply, depth=3) == expected


def test_the_exploit_verdict_without_a_checked_candidate():
    found = ExploitingResult(plain=None, probes=(), scoring_nodes=0, move=None)
    assert _exploit_verdict(found, 10.0) == "no candidate promised more than the plain move"


@pytest.mark.parametrize("plain_move, verdict", [("d2d4", "kept"), ("e2e4", "rejected")])
def test_the_exploit_verdict_of_a_checked_candidate(plain_move, verdict):
    """Gain: 0.5 * (120 - 80 - 10) + 0.25 * max(0, 60 - 80 - 10) = 15 over the checked value 80."""
    probe = ReplyProbe(MOVE("e2e4"), ((MOVE("e7e5"), 0.5, 120.0), (MOVE("c7c5"), 0.25, 60.0)), depth=2)
    found = ExploitingResult(
        plain=SearchResult(value=90.0, move=MOVE(plain_move), pv=(MOVE(plain_move),)),
        probes=(probe,), scoring_nodes=0, move=MOVE("e2e4"),
        checked=SearchResult(value=80.0, move=MOVE("e2e4"), pv=(MOVE("e2e4"),), depth=3),
    )
    assert _exploit_verdict(found, 10.0) == f"checked e2e4 alone to depth 3: 80, gain 15, {verdict}"


class Slow:
    """Believes every legal move alike after ``seconds``; notes when each call started."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started: list[float] = []

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        self.started.append(time.perf_counter())
        time.sleep(self.seconds)
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


def _floor_note(lines: list[str]) -> tuple[int, int, str]:
    """The guided and plain depths and the search played, from the timed guided move's ``info string``."""
    note = next(line for line in lines if line.startswith("info string model time "))
    assert f"(at most {GUIDED_SHARE:.0%} of the move)" in note
    guided, plain = (int(word.rstrip(",:")) for word in re.findall(r"depth (\d+)", note))
    return guided, plain, note.rsplit(": the ", 1)[1]


def test_a_timed_guided_move_asks_the_model_only_in_its_share_after_a_plain_search():
    slow = Slow(0.05)
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(slow))
    engine.handle(f"position fen {MIDDLEGAME}")
    engine.handle("go movetime 600")  # an untimed first move: the compiled code is loaded, as before readyok
    engine._thread.join(30)
    slow.started.clear()
    out.seek(0)
    out.truncate()
    sent = time.perf_counter()
    engine.handle("go movetime 600")
    engine._thread.join(30)
    lines = out.getvalue().splitlines()
    # none early in the plain part (the plain search may stop a little before its share when a next depth cannot fit)
    assert slow.started and min(slow.started) >= sent + 0.5 * (1 - GUIDED_SHARE) * 0.6
    guided, plain, played = _floor_note(lines)
    assert plain >= 1 and played == ("guided search's move" if guided >= plain else "plain search's move")
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth ")]
    assert depths[:plain] == list(range(1, plain + 1))  # the plain search's depths, then only the guided ones
    assert all(depth >= plain for depth in depths[plain:])


def test_a_model_too_slow_for_its_share_costs_the_move_no_depth():
    lines, _ = play([f"position fen {MIDDLEGAME}", "go movetime 300"], model=EngineModel(Slow(5.0)))
    _, plain, _ = _floor_note(lines)
    assert plain >= 1 and any("left out for time" in line for line in lines if line.startswith("info string pred"))
    last = [line for line in lines if line.startswith("info depth ")][-1]
    assert int(last.split()[2]) >= plain and bestmove(lines) == last.split(" pv ")[1].split()[0]


def test_an_untimed_guided_move_is_the_guided_search_alone():
    lines, _ = play([f"position fen {MIDDLEGAME}", "go depth 2"], model=EngineModel(Uniform()))
    assert not any(line.startswith("info string model time ") for line in lines)
    assert [line.split()[2] for line in lines if line.startswith("info depth ")] == ["1", "2"]


SMOTHERED = "r2q1r1k/2p1b1pp/p1n5/1p1Q1bN1/4n3/1BP1B3/PP3PPP/R4RK1 w - - 0 1"  # 1. Qg8+ Rxg8 2. Nf7#


def test_a_plain_go_plays_the_selective_search():
    """Two plies and a check extension see the smothered mate (the exact search to two plies does not); the
    engine's core is exact again once the move is answered."""
    lines, engine = play([f"position fen {SMOTHERED}", "go depth 2"])
    assert bestmove(lines) == "d5g8"
    assert any(" score mate 2 " in line for line in lines)
    assert not engine.fast.selective


def test_multipv_lines_are_the_exact_searchs():
    lines, _ = play(["setoption name MultiPV value 2", f"position fen {SMOTHERED}", "go depth 2"])
    assert bestmove(lines) != "d5g8"


class FakeJudge:
    """A check engine that calls ``blunder`` a loss of 500 cp (the best being ``best``) and every other move sound."""

    name = "a fake judge at depth 12"

    def __init__(self, blunder: str, best: str, rate: float | None) -> None:
        self.blunder, self.best, self.rate = MOVE(blunder), MOVE(best), rate
        self.checked: list[str] = []

    def check(self, board, move, limits, stop=None):
        from search.chess.imitation import DeepCheck

        self.checked.append(move.uci())
        return DeepCheck(self.best, 500, 12) if move == self.blunder else DeepCheck(move, 0, 12)


@pytest.mark.parametrize("rate, replaced", [(0.0, True), (1.0, False), (None, False)])
def test_a_drawn_move_the_check_engine_calls_a_blunder_is_replaced_over_his_rate_by_it(rate, replaced):
    """The check engine judges the drawn move (the model is sure of 1.d4 here, a sound move to the engine's own
    search): with his rate by that engine at 0 the blunder is over the ceiling and replaced; at 1, or with no rate
    measured (the model records none either: no ceiling), it is played."""
    judge = FakeJudge("d2d4", "e2e4", rate)
    lines, engine = play(
        ["position startpos", "go movetime 3000"], model=EngineModel(Sure("d2d4"), judge=judge),
        imitation=Imitation(temperature=0.0),
    )
    assert (bestmove(lines) != "d2d4") is replaced
    assert judge.checked[:1] == (["d2d4"] if replaced else [])  # no ceiling (a rate of 1 or none): no check
    notes = [line for line in lines if "drawn move d2d4 loses 500 cp" in line]
    if replaced:
        assert notes and "over his blunder rate 0.000" in notes[0] and engine.blunders.blunders == 0
    elif rate == 1.0:
        assert not notes  # a rate of 1 is no ceiling
    assert MOVE(bestmove(lines)) in chess.Board().legal_moves


def test_his_rate_by_the_check_engine_makes_room_for_his_blunders():
    """At a rate of 1 in 2, after one sound move, the drawn blunder goes through (counted in the budget), as it
    would at his own rate."""
    from search.chess.imitation import BlunderBudget

    judge = FakeJudge("d2d4", "e2e4", 0.5)
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(Sure("d2d4"), judge=judge), imitation=Imitation(temperature=0))
    engine.blunders = BlunderBudget(moves=1)
    engine.run(["position startpos", "go movetime 3000"])
    lines = out.getvalue().splitlines()
    assert bestmove(lines) == "d2d4" and engine.blunders == BlunderBudget(moves=2, blunders=1)
    assert any("loses 500 cp: within his blunder rate" in line for line in lines)


def test_the_check_engine_option_is_offered_with_a_way_to_make_judges():
    """``CheckEngine`` is listed when the engine imitates and can make a judge; setting it makes one (its rate
    reported), emptying it returns the check to the engine's own search."""
    made = []

    def loader(path, predictor):
        made.append(path)
        return FakeJudge("d2d4", "e2e4", 0.01)

    lines, engine = play(
        ["uci", "setoption name CheckEngine value /some/engine", "setoption name CheckEngine value <empty>"],
        model=EngineModel(Sure("d2d4"), judge_loader=loader), imitation=Imitation(),
    )
    assert "option name CheckEngine type string default <empty>" in lines
    assert made == ["/some/engine"] and engine.judge is None
    assert "info string drawn moves checked by a fake judge at depth 12; his blunder rate by it 0.010" in lines
    plain, _ = play(["uci"], model=EngineModel(Sure("d2d4"), judge_loader=loader))
    assert not any("CheckEngine" in line for line in plain)  # guided, not imitating: no drawn moves to check


def test_the_floor_of_a_timed_guided_move_is_the_plain_engines_selective_search():
    """The plain part of a timed guided move runs the kernels a plain ``go`` runs (so its depth is the plain
    engine's in that time); the guided part runs the exact ones the guide steers."""
    engine = UciEngine(output=io.StringIO(), model=EngineModel(Uniform()))
    kinds: list[tuple[bool, bool]] = []  # (selective, guided) of each search the move ran
    iterate = engine.fast.iterate

    def watched(*args, **kwargs):
        kinds.append((engine.fast.selective, engine.fast.guide is not None))
        return iterate(*args, **kwargs)

    engine.fast.iterate = watched  # type: ignore[method-assign]
    engine.run([f"position fen {MIDDLEGAME}", "go movetime 400"])
    assert kinds[:2] == [(True, False), (False, True)]
    assert not engine.fast.selective


class CallsItsOwnBest(FakeJudge):
    """A check engine whose search names ``blunder`` itself as its best move, yet 300 cp worse than the best value
    (as an unstable search at a fixed depth can)."""

    def check(self, board, move, limits, stop=None):
        from search.chess.imitation import DeepCheck

        self.checked.append(move.uci())
        return DeepCheck(move, 300, 12) if move == self.blunder else DeepCheck(move, 0, 12)


def test_a_search_move_the_check_engine_calls_a_blunder_is_replaced_by_its_best_move():
    """Where the model leaves the move to the search (unsure, a queen hanging), the check engine judges the search's
    move too: called a blunder, it is replaced by the check's best move whatever room the budget has (the budget is
    for his blunders), and the budget counts the move."""
    from search.chess.imitation import BlunderBudget

    judge = FakeJudge("f3h4", "b1c3", 0.5)  # the plain search's f3h4 (see above), called a 500 cp loss
    lines, engine = play([f"position fen {HANGING_QUEEN}", "go depth 2"], model=EngineModel(Uniform(), judge=judge),
                         imitation=Imitation())
    assert judge.checked == ["f3h4"]
    assert "info string search move f3h4 loses 500 cp by the check: replaced by b1c3" in lines
    assert bestmove(lines) == "b1c3"
    assert engine.choices == {"model": 0, "search": 1} and engine.blunders == BlunderBudget(moves=1, blunders=0)


def test_a_search_move_played_as_a_blunder_counts_in_the_budget():
    """A search's move that the check calls a blunder and cannot replace (its best is the move itself) is played and
    counted as a blunder: a drawn blunder after it finds no room left at his rate."""
    from search.chess.imitation import BlunderBudget

    judge = CallsItsOwnBest("f3h4", "f3h4", 0.5)
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(Uniform(), judge=judge), imitation=Imitation())
    engine.run([f"position fen {HANGING_QUEEN}", "go depth 2"])
    assert bestmove(out.getvalue().splitlines()) == "f3h4"
    assert engine.blunders == BlunderBudget(moves=1, blunders=1)
    assert not engine.blunders.allows(0.5)


def test_without_a_ceiling_the_search_move_is_not_checked():
    judge = FakeJudge("f3h4", "b1c3", None)  # no rate by the judge, none recorded by the model: no ceiling
    lines, engine = play([f"position fen {HANGING_QUEEN}", "go depth 2"], model=EngineModel(Uniform(), judge=judge),
                         imitation=Imitation())
    assert judge.checked == [] and bestmove(lines) == "f3h4" and engine.blunders.blunders == 0


def test_a_timed_search_move_under_a_ceiling_leaves_the_check_its_share():
    """With a movetime the search stops early enough for the check of its move to run within the move's time."""
    judge = FakeJudge("a2a3", "b1c3", 0.5)
    started = time.perf_counter()
    lines, _ = play([f"position fen {HANGING_QUEEN}", "go movetime 600"], model=EngineModel(Uniform(), judge=judge),
                    imitation=Imitation())
    assert judge.checked == [bestmove(lines)]
    assert time.perf_counter() - started < 5.0  # a guard against a hang, not a speed figure
