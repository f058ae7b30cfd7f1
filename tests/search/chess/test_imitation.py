"""The imitation engine's move choice, and the engine modes that use a model: imitate, exploit."""

from __future__ import annotations

import io
import math
from collections import Counter

import chess
import pytest

from iam.cli import main as iam_main
from search.chess.board import Position
from search.chess.engine import ChessSearch
from search.chess.exploit import ERROR_CAP, ExploitingSearch, ExploitingSettings, expected_error
from search.chess.imitation import Imitation, choose_imitation_move, is_tactical
from search.chess.scoring import RootScoreCache, score_root_moves
from search.chess.uci import EngineModel, UciEngine
from search.opponent.exploitation import Exploitation
from search.result import Limits

HANGING_KNIGHT = "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1"  # the rook takes an undefended knight
QUIET = "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"


class Fixed:
    """A predictor with fixed beliefs over UCI moves (those legal in the position asked about)."""

    search_depth = 1  # the depth of the root scores it would read

    def __init__(self, beliefs: dict[str, float]) -> None:
        self.beliefs = beliefs
        self.asked = 0
        self.shared = None

    def predict_proba(self, board):
        self.asked += 1
        found = {chess.Move.from_uci(u): b for u, b in self.beliefs.items()}
        return {m: b for m, b in found.items() if m in board.legal_moves}

    def use_root_scores(self, cache):
        self.shared = cache


def test_tactical_positions():
    assert not is_tactical(chess.Board())
    assert not is_tactical(chess.Board(QUIET))
    assert is_tactical(chess.Board(HANGING_KNIGHT))  # for the side to move
    assert is_tactical(chess.Board(HANGING_KNIGHT.replace(" w ", " b ")))  # and when the other side is to move
    assert is_tactical(chess.Board("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1"))  # in check
    # a pawn attacking a defended knight: worth more than its cheapest attacker
    assert is_tactical(chess.Board("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1"))


def test_the_most_believed_move_at_temperature_zero_and_the_search_where_unsure_and_tactical():
    quiet = chess.Board(QUIET)
    beliefs = {chess.Move.from_uci("a2a3"): 0.2, chess.Move.from_uci("b2b4"): 0.25}
    choice = choose_imitation_move(quiet, beliefs, Imitation(temperature=0.0))
    assert (choice.move, choice.source, choice.tactical) == (chess.Move.from_uci("b2b4"), "model", False)
    hanging = chess.Board(HANGING_KNIGHT)
    unsure = {chess.Move.from_uci("d1d2"): 0.25, chess.Move.from_uci("d1d5"): 0.2}
    assert choose_imitation_move(hanging, unsure, Imitation()).source == "search"
    sure_enough = Imitation(temperature=0.0, unsure_below=0.2)
    assert choose_imitation_move(hanging, unsure, sure_enough).move == chess.Move.from_uci("d1d2")
    assert choose_imitation_move(quiet, {}, Imitation()).source == "search"


def test_draws_follow_the_beliefs_and_repeat_with_the_seed_and_the_game():
    board = chess.Board(QUIET)
    beliefs = {chess.Move.from_uci("a2a3"): 0.7, chess.Move.from_uci("b2b4"): 0.3}
    drawn = Counter(choose_imitation_move(board, beliefs, Imitation(temperature=1.0, seed=s)).move for s in range(2000))
    assert drawn[chess.Move.from_uci("a2a3")] / 2000 == pytest.approx(0.7, abs=0.04)
    sharp = Counter(
        choose_imitation_move(board, beliefs, Imitation(temperature=0.25, seed=s)).move for s in range(2000)
    )
    assert sharp[chess.Move.from_uci("a2a3")] / 2000 == pytest.approx(0.7**4 / (0.7**4 + 0.3**4), abs=0.03)
    again = [choose_imitation_move(board, beliefs, Imitation(temperature=1.0, seed=s)).move for s in range(50)]
    assert again == [choose_imitation_move(board, beliefs, Imitation(temperature=1.0, seed=s)).move for s in range(50)]
    # one seed, a series of games: each game draws afresh, as often as believed, and the series replays
    games = [choose_imitation_move(board, beliefs, Imitation(seed=3, game=g)).move for g in range(2000)]
    assert Counter(games)[chess.Move.from_uci("a2a3")] / 2000 == pytest.approx(0.7, abs=0.04)
    assert games == [choose_imitation_move(board, beliefs, Imitation(seed=3, game=g)).move for g in range(2000)]


def test_the_default_imitation_draws_from_the_beliefs():
    assert Imitation().temperature == 1.0


def test_the_imitation_engine_plays_the_model_move_and_takes_its_options():
    out = io.StringIO()
    engine = UciEngine(
        output=out, model=EngineModel(Fixed({"e7e5": 0.6, "c7c5": 0.4})), imitation=Imitation(temperature=0.0)
    )
    engine.run([
        "uci", "position startpos moves e2e4", "go movetime 200",
        "setoption name Temperature value 1", "setoption name Seed value 7", "setoption name Temperature value x",
        "go movetime 200",
    ])
    lines = out.getvalue().splitlines()
    assert "option name Temperature type string default 0" in lines
    assert [line for line in lines if line.startswith("bestmove")][0] == "bestmove e7e5"
    assert engine.imitation == Imitation(temperature=1.0, seed=7)
    assert any(line.startswith("info string ignored setoption: Temperature needs a number") for line in lines)
    assert lines[-1] in ("bestmove e7e5", "bestmove c7c5")
    assert engine.choices == {"model": 2, "search": 0}


def test_the_imitation_engine_searches_where_the_model_is_unsure_in_a_tactical_position():
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(Fixed({"d1d2": 0.1})), imitation=Imitation())
    engine.run(["uci", f"position fen {HANGING_KNIGHT}", "go depth 3"])
    assert out.getvalue().splitlines()[-1].split()[:2] == ["bestmove", "d1d5"]
    assert engine.choices == {"model": 0, "search": 1}


def test_root_score_cache_gives_score_root_moves_and_counts_hits():
    cache = RootScoreCache(capacity=2)
    board = chess.Board(HANGING_KNIGHT)
    assert cache.scores(board, 2) == score_root_moves(board, 2)
    assert cache.scores(board, 2) == score_root_moves(board, 2)
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)
    assert cache.nodes > 0
    other = board.copy()
    other.push_uci("e1f2")
    other.push_uci("e8f7")
    cache.scores(other, 1)
    cache.scores(chess.Board(), 1)
    assert len(cache) == 2  # the least recently used went first
    with pytest.raises(ValueError):
        cache.scores(board, 0)


def test_exploiting_search_shares_its_cache_and_with_weight_zero_keeps_the_plain_choice():
    board = chess.Board(HANGING_KNIGHT)
    predictor = Fixed({"e8d7": 1.0})
    search = ExploitingSearch(predictor, exploitation=Exploitation(weight=0.0))
    assert predictor.shared is search.cache
    found = search.search(board, Limits(depth=3))
    assert found.probes == () and predictor.asked == 0  # weight 0: the model has no say, and costs nothing
    assert found.move == found.plain.move == chess.Move.from_uci("d1d5")


# Black to move (a middlegame of the bundled Botvinnik games). The plain search prefers
# ...Qa4; ...Qa3 is worth 3 cp less at depth 4, and if White answers it with Kd2, a move
# that looks harmless one ply deep, Black wins about three pawns.
TRAP = "r1b2rk1/pp1n1ppp/2p1pn2/q2p2B1/2PP4/1NP1P3/P1Q2PPP/R3KB1R b KQ - 0 10"


class Expects:
    """A modelled player who answers our move ``after`` with ``reply`` at ``belief`` (and says nothing elsewhere)."""

    def __init__(self, after: str, reply: str, belief: float) -> None:
        self.after, self.reply, self.belief = chess.Move.from_uci(after), chess.Move.from_uci(reply), belief

    def predict_proba(self, board):
        if board.move_stack and board.move_stack[-1] == self.after:
            return {self.reply: self.belief}
        return {}


def test_a_trap_the_model_foresees_only_deep_is_set_when_the_weight_and_the_belief_are_there():
    board = chess.Board(TRAP)
    after = board.copy()
    after.push_uci("a5a3")
    one_ply = score_root_moves(after, 1)
    assert one_ply[chess.Move.from_uci("e1d2")] >= max(one_ply.values()) - 20  # harmless one ply deep
    chosen = {}
    for weight, belief, margin in [(0.5, 0.9, 50.0), (0.0, 0.9, 50.0), (0.5, 0.05, 50.0), (0.5, 0.9, 0.0)]:
        search = ExploitingSearch(
            Expects("a5a3", "e1d2", belief), exploitation=Exploitation(weight=weight, margin=margin)
        )
        found = search.search(board, Limits(depth=4))
        assert found.plain.move == chess.Move.from_uci("a5a4")
        chosen[weight, belief, margin] = found.move.uci()
        if (weight, belief, margin) == (0.5, 0.9, 50.0):
            probe = next(probe for probe in found.probes if probe.action == found.move)
            (reply, believed, value), = probe.replies
            assert (reply.uci(), believed, probe.depth) == ("e1d2", 0.9, 2)
            assert value - found.checked.value > 250  # his foreseen error, seen at depth 4 in all
            assert found.plain.value - 50 <= found.checked.value < found.plain.value
    assert chosen == {
        (0.5, 0.9, 50.0): "a5a3",  # the trap
        (0.0, 0.9, 50.0): "a5a4",  # weight 0: the plain move
        (0.5, 0.05, 50.0): "a5a4",  # a reply he is unlikely to play is not probed
        (0.5, 0.9, 0.0): "a5a4",  # the trap costs 3 cp by minimax, more than a margin of 0 allows
    }


def test_the_exploiting_engine_answers_with_a_legal_move_and_says_why():
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(Fixed({})), exploitation=Exploitation(weight=0.5))
    engine.run(["uci", f"position fen {HANGING_KNIGHT}", "go movetime 300"])
    lines = out.getvalue().splitlines()
    assert "info string exploiting opponent model (weight 0.5)" in lines
    assert any(line.startswith("info string exploit probed") and "playing d1d5" in line for line in lines)
    assert lines[-1].split()[:2] == ["bestmove", "d1d5"]
    out = io.StringIO()
    engine = UciEngine(
        output=out, model=EngineModel(Expects("a5a3", "e1d2", 0.9)), exploitation=Exploitation(weight=0.5)
    )
    engine.run(["uci", f"position fen {TRAP}", "go depth 4"])
    lines = out.getvalue().splitlines()
    assert any(
        line.startswith("info string exploit probed") and "checked a5a3 alone to depth 4" in line and "kept" in line
        for line in lines
    )
    assert lines[-1].split()[:2] == ["bestmove", "a5a3"]


def test_engine_modes_refuse_bad_combinations(capsys):
    with pytest.raises(ValueError):
        UciEngine(imitation=Imitation())
    for words, message in [
        (["uci", "--exploit", "0.5"], "--exploit needs --model"),
        (["uci", "--temperature", "0.5"], "need --imitate"),
        (["uci", "--imitate", "m.json", "--model", "m.json"], "either --model"),
        (["uci", "--exploit-contempt", "1"], "--exploit-contempt needs --exploit"),
        (["uci", "--model", "m.json", "--exploit", "0.5", "--exploit-contempt", "-1"], "at least 0"),
        (["uci", "--exploit-reduce", "0.1"], "--exploit-reduce needs --exploit"),
        (["uci", "--model", "m.json", "--exploit", "0.5", "--exploit-reduce", "1.5"], "a belief in [0, 1)"),
    ]:
        assert iam_main(words) == 2
        assert message in capsys.readouterr().err


class BlundersAlways:
    """A modelled player certain to play his worst reply (by this project's one-ply scores)."""

    def predict_proba(self, board):
        scores = score_root_moves(board, 1)
        return {min(scores, key=scores.get): 1.0} if scores else {}


def test_the_checked_candidate_is_kept_only_within_the_margin_and_if_it_wins_the_blend(monkeypatch):
    # a depth limit alone gives the probes a share of the plain search's time: made ample, so that a busy machine
    # does not cut the probes this test counts
    monkeypatch.setattr("search.chess.exploit.UNTIMED_PROBE_SECONDS", 60.0)
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")  # the Two Knights
    for margin in (50.0, 0.0, float("inf")):
        search = ExploitingSearch(BlundersAlways(), exploitation=Exploitation(weight=0.9, margin=margin))
        found = search.search(board, Limits(depth=3))
        shallow = score_root_moves(board, 1)
        probed = [probe.action for probe in found.probes]
        assert probed[0] == found.plain.move
        assert all(shallow[move] >= shallow[found.plain.move] - margin for move in probed)  # the screen
        assert len(probed) == len(list(board.legal_moves)) if margin == float("inf") else len(probed) < len(shallow)
        assert all(probe.depth == found.plain.depth - 2 or probe.depth == 1 for probe in found.probes)
        candidate = found.candidate
        if candidate is None:
            assert found.move == found.plain.move
            continue
        assert found.checked.depth == found.plain.depth and found.checked.pv[0] == candidate.action
        safe = found.probes[0].gain(found.plain.value)
        wins = found.checked.value + 0.9 * candidate.gain(found.checked.value) > found.plain.value + 0.9 * safe
        keeps = wins and found.checked.value >= found.plain.value - margin
        assert found.move == (candidate.action if keeps else found.plain.move)


def test_with_weight_zero_the_exploiting_search_plays_as_deep_as_the_plain_engine():
    # The plain search stops before a depth it could not finish, and what it leaves is
    # searched again from its warm table: nothing is lost against the plain engine.
    deepened = 0
    for fen in (chess.STARTING_FEN, TRAP, "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"):
        board = chess.Board(fen)
        for nodes in (5_000, 10_000, 30_000):
            # Stops early often.
            search = ExploitingSearch(
                Fixed({}), exploitation=Exploitation(weight=0.0), settings=ExploitingSettings(overrun=1.0)
            )
            found = search.search(board, Limits(nodes=nodes))
            plain = ChessSearch().search(board, Limits(nodes=nodes))
            final = found.deepened or found.plain
            assert final.depth >= plain.depth and found.move == final.move and not found.changed
            assert found.nodes <= nodes * 1.1  # unfinished depths counted: about the nodes the plain engine had
            deepened += found.deepened is not None
    assert deepened >= 1  # the deepening ran where the plain search stopped too early


def test_a_one_move_search_leaves_no_root_entry_in_the_table():
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    # A one-move check leaves no root entry in the table: its value is not the position's.
    reference = ChessSearch()
    reference.search(board, Limits(depth=2), only=chess.Move.from_uci("d2d3"))
    assert Position.from_board(board).key not in reference.table


def test_the_expected_error_weighs_each_moves_shortfall_by_its_belief():
    a, b, c, d = (chess.Move.from_uci(u) for u in ("a2a3", "b2b3", "c2c3", "d2d3"))
    scores = {a: 100, b: 40, c: -900}
    assert expected_error({a: 0.5, b: 0.5}, scores) == 30.0
    assert expected_error({a: 0.5, c: 0.5}, scores) == 0.5 * ERROR_CAP  # a blunder counts at most the cap
    assert expected_error({b: 0.4, d: 0.6}, scores) == 0.4 * 60  # a move without a score counts as his best
    assert expected_error({a: 1.0}, {}) == 0.0


class Uniform:
    """A modelled player who plays every legal move alike."""

    def predict_proba(self, board):
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


def test_contempt_is_the_mean_expected_error_of_his_positions_so_far_times_the_share():
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    plain = ExploitingSearch(Uniform(), exploitation=Exploitation(weight=0.5))
    found = plain.search(board, Limits(depth=3))
    assert found.contempt == 0 and plain.errors == [] and plain.fast.contempt == 0
    search = ExploitingSearch(
        Uniform(), exploitation=Exploitation(weight=0.5),
        settings=ExploitingSettings(contempt=0.5, max_contempt=1000),
    )
    first = search.search(board, Limits(depth=3))
    assert first.contempt == 0  # no position of his seen before the first move
    expected = []
    for probe in first.probes:
        child = board.copy()
        child.push(probe.action)
        expected.append(expected_error(Uniform().predict_proba(child), score_root_moves(child, 1)))
    assert search.errors == pytest.approx(expected) and len(expected) > 1
    assert search.draw_cost() == round(0.5 * sum(expected) / len(expected)) > 0
    second = search.search(board, Limits(depth=3))
    assert second.contempt == search.fast.contempt == round(0.5 * sum(expected) / len(expected))
    capped = ExploitingSearch(
        Uniform(), exploitation=Exploitation(weight=0.5), settings=ExploitingSettings(contempt=0.5, max_contempt=3)
    )
    capped.search(board, Limits(depth=3))
    assert capped.draw_cost() == 3
    with pytest.raises(ValueError, match="contempt"):
        ExploitingSettings(contempt=-1.0)


def test_selectivity_needs_a_model_with_a_reply_policy(small_model, tmp_path, capsys):
    path = tmp_path / "iam.json"
    small_model.save(path)
    assert iam_main(["uci", "--model", str(path), "--exploit", "0.5", "--exploit-reduce", "0.05"]) == 2
    assert "--exploit-reduce needs a move ranker fitted with a reply policy" in capsys.readouterr().err


def test_each_new_game_of_the_imitation_engine_draws_its_own_opening():
    """One engine, a series of games after ucinewgame: the replies to 1.e4 follow the beliefs, not one fixed draw."""
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(Fixed({"e7e5": 0.5, "c7c5": 0.5})), imitation=Imitation(seed=5))
    commands = ["uci"]
    for _ in range(40):
        commands += ["ucinewgame", "position startpos moves e2e4", "go movetime 50"]
    engine.run(commands)
    replies = Counter(line for line in out.getvalue().splitlines() if line.startswith("bestmove"))
    assert sum(replies.values()) == 40
    assert replies["bestmove e7e5"] >= 8 and replies["bestmove c7c5"] >= 8  # at 0.5 each: 20 +- 3.2
    assert engine.imitation.game == 40


def _moves(*ucis: str) -> list[chess.Move]:
    return [chess.Move.from_uci(uci) for uci in ucis]


def test_strength_mixes_his_beliefs_with_a_softmax_of_the_scores():
    from search.chess.imitation import SEARCH_SOFTNESS, strengthen

    e4, d4, a3 = _moves("e2e4", "d2d4", "a2a3")
    beliefs = {e4: 0.7, d4: 0.2, a3: 0.1}
    scores = {e4: 0, d4: 50, a3: -300}
    assert strengthen(beliefs, scores, 0.0) == beliefs and strengthen(beliefs, {}, 0.7) == beliefs
    search_only = strengthen(beliefs, scores, 1.0)
    assert list(search_only) == [d4, e4, a3]
    assert search_only[e4] / search_only[d4] == pytest.approx(math.exp(-50 / SEARCH_SOFTNESS))
    half = strengthen(beliefs, scores, 0.5)
    assert sum(half.values()) == pytest.approx(1.0)
    assert half[e4] == pytest.approx(0.5 * 0.7 + 0.5 * search_only[e4])
    with pytest.raises(ValueError, match="strength"):
        strengthen(beliefs, scores, 1.5)


def test_the_blunder_budget_allows_a_blunder_only_within_the_rate():
    from search.chess.imitation import BlunderBudget

    budget = BlunderBudget()
    allowed = []
    for _ in range(40):
        allowed.append(budget.allows(0.1))
        budget = budget.after(blunder=budget.allows(0.1))
    assert allowed.count(True) == 4 and allowed.index(True) == 9  # the 10th, 20th, 30th and 40th moves
    assert budget == BlunderBudget(40, 4) and not BlunderBudget().allows(0.0)


def test_the_ceiling_keeps_a_sound_move_allows_a_blunder_within_budget_and_else_draws_a_sound_one():
    from search.chess.imitation import BlunderBudget, hold_ceiling

    board = chess.Board(HANGING_KNIGHT)
    take, wait, lose = _moves("d1d5", "e1e2", "d1d2")
    scores = {take: 300, wait: 150, lose: -500}
    beliefs = {take: 0.2, wait: 0.1, lose: 0.7}
    kept = hold_ceiling(board, wait, beliefs, scores, rate=0.0, budget=BlunderBudget())
    assert (kept.move, kept.loss, kept.replaced, kept.blunder) == (wait, 150, False, False)
    room = BlunderBudget(moves=19, blunders=0)
    allowed = hold_ceiling(board, lose, beliefs, scores, rate=0.05, budget=room)
    assert (allowed.move, allowed.loss, allowed.blunder) == (lose, 800, True)
    redrawn = Counter(
        hold_ceiling(board, lose, beliefs, scores, rate=0.05, budget=BlunderBudget(3, 0), seed=seed).move
        for seed in range(200)
    )
    assert set(redrawn) == {take, wait} and redrawn[take] > redrawn[wait]  # 2:1 by his beliefs, never the blunder
    unbelieved = hold_ceiling(board, lose, {lose: 1.0}, scores, rate=0.0, budget=BlunderBudget())
    assert (unbelieved.move, unbelieved.replaced) == (take, True)


def test_the_imitating_engine_plays_his_blunder_only_within_his_rate():
    """A player certain to hang his rook: the engine plays it when the rate allows every blunder, never at rate 0;
    the ranker-less model's moves are checked by the engine's own short search."""
    board = chess.Board(HANGING_KNIGHT)
    scores = score_root_moves(board, 3)
    best = max(scores.values())
    blunder = min(scores, key=scores.get)
    assert best - scores[blunder] >= 200
    worst = {blunder.uci(): 1.0}
    answers = {}
    for rate in (1.0, 0.0):
        out = io.StringIO()
        engine = UciEngine(output=out, model=EngineModel(_Plain(worst)), imitation=Imitation(blunder_rate=rate))
        engine.run(["uci", f"position fen {HANGING_KNIGHT}", "go depth 2"])
        answers[rate] = out.getvalue().splitlines()[-1].split()[1]
        if rate == 0.0:
            assert any(line.startswith(f"info string drawn move {blunder.uci()} loses") for line in
                       out.getvalue().splitlines())
    assert answers[1.0] == blunder.uci()
    assert best - scores[chess.Move.from_uci(answers[0.0])] < 200


class _Plain:
    """A predictor with fixed beliefs and no other ability (it scores no moves itself)."""

    def __init__(self, beliefs: dict[str, float]) -> None:
        self.beliefs = beliefs

    def predict_proba(self, board):
        return {m: b for m, b in ((chess.Move.from_uci(u), b) for u, b in self.beliefs.items()) if m in
                board.legal_moves}


def test_a_ranker_with_a_measured_rate_sets_the_ceiling_and_the_option_overrides_it():
    from search.chess.uci.modes import PlayModes

    class Measured(_Plain):
        blunder_rate_ = 0.02

    engine = UciEngine(output=io.StringIO(), model=EngineModel(Measured({})), imitation=Imitation())
    assert PlayModes._ceiling(engine, Imitation()) == 0.02
    assert PlayModes._ceiling(engine, Imitation(blunder_rate=0.1)) == 0.1
    assert PlayModes._ceiling(engine, Imitation(blunder_rate=1.0)) is None
    plain = UciEngine(output=io.StringIO(), model=EngineModel(_Plain({})), imitation=Imitation())
    assert PlayModes._ceiling(plain, Imitation()) is None


def test_the_uci_options_set_strength_and_blunder_rate():
    out = io.StringIO()
    engine = UciEngine(output=out, model=EngineModel(_Plain({})), imitation=Imitation())
    engine.run(["uci", "setoption name Strength value 0.4", "setoption name BlunderRate value 0.05"])
    assert "option name Strength type string default 0" in out.getvalue()
    assert "option name BlunderRate type string default model" in out.getvalue()
    assert engine.imitation is not None and (engine.imitation.strength, engine.imitation.blunder_rate) == (0.4, 0.05)
    engine.run(["setoption name Strength value 3", "setoption name BlunderRate value model"])
    assert "info string ignored setoption: strength must be in [0, 1]" in out.getvalue()
    assert engine.imitation.strength == 0.4 and engine.imitation.blunder_rate is None


MATED_IN_FOUR = "2r5/k7/p5pp/3R2b1/3K4/1N3Q2/PP4PP/1q6 b - - 6 39"
"""Black's Qa2 (b1a2) looks sound to a depth-3 search and walks into a mating attack a deeper one sees."""


def test_the_deep_check_finds_a_loss_beyond_the_short_search():
    from search.chess.imitation import deep_check

    board = chess.Board(MATED_IN_FOUR)
    drawn = chess.Move.from_uci("b1a2")
    scores = score_root_moves(board, 3)
    assert max(scores.values()) - scores[drawn] < 200  # sound to the short search
    found = deep_check(ChessSearch(), board, drawn, Limits(depth=6))
    assert found is not None and found.depth == 6 and found.loss >= 200 and found.best != drawn
    best = deep_check(ChessSearch(), board, found.best, Limits(depth=6))
    assert best is not None and best.loss == 0
    assert deep_check(ChessSearch(), board, drawn, Limits(depth=6, time=0.0)) is None  # no time: no verdict


def test_the_deep_ceiling_replaces_a_deep_blunder_and_allows_one_within_the_budget():
    from search.chess.imitation import BlunderBudget, deep_check, hold_deep_ceiling

    board = chess.Board(MATED_IN_FOUR)
    drawn = chess.Move.from_uci("b1a2")
    scores = score_root_moves(board, 3)
    search = ChessSearch()

    def check(move):
        return deep_check(search, board, move, Limits(depth=6))

    beliefs = {drawn: 0.9, **{move: 0.1 / (len(scores) - 1) for move in scores if move != drawn}}
    replaced = hold_deep_ceiling(board, drawn, beliefs, scores, check, rate=0.05, budget=BlunderBudget(3, 0))
    assert replaced.replaced and not replaced.blunder and replaced.move != drawn and replaced.loss >= 200
    again = check(replaced.move)
    assert again is not None and again.loss < 200  # the move played instead passes the deep check
    allowed = hold_deep_ceiling(board, drawn, beliefs, scores, check, rate=0.05, budget=BlunderBudget(19, 0))
    assert (allowed.move, allowed.replaced, allowed.blunder) == (drawn, False, True)
    shallow = hold_deep_ceiling(board, drawn, beliefs, scores, lambda move: None, rate=0.0, budget=BlunderBudget())
    assert (shallow.move, shallow.replaced) == (drawn, False)  # no deep verdict: the short search's, which passes it


def test_the_imitating_engine_replaces_a_blunder_only_a_deep_search_sees():
    board = chess.Board(MATED_IN_FOUR)
    drawn = chess.Move.from_uci("b1a2")
    answers = {}
    for rate in (1.0, 0.0):
        out = io.StringIO()
        engine = UciEngine(output=out, model=EngineModel(_Plain({"b1a2": 1.0})), imitation=Imitation(blunder_rate=rate))
        engine.run(["uci", f"position fen {MATED_IN_FOUR}", "go depth 2"])
        answers[rate] = out.getvalue().splitlines()[-1].split()[1]
    assert answers[1.0] == drawn.uci() and answers[0.0] != drawn.uci()
    deep = ChessSearch()
    from search.chess.imitation import deep_check

    found = deep_check(deep, board, chess.Move.from_uci(answers[0.0]), Limits(depth=6))
    assert found is not None and found.loss < 200


def test_the_search_move_is_held_to_the_deep_check_whatever_the_budget():
    """A search's move that a deep search finds losing (b1a2 walks into a mate the short search misses) is replaced
    by the check's best move, which passes the check; a sound one is played as it is, and one the check cannot judge
    is played unjudged. The search's blunders take no room of his budget: the verdict counts none."""
    from search.chess.imitation import DeepCheck, deep_check, hold_search_move

    board = chess.Board(MATED_IN_FOUR)
    search = ChessSearch()

    def check(move):
        return deep_check(search, board, move, Limits(depth=6))

    losing = hold_search_move(chess.Move.from_uci("b1a2"), check)
    assert losing.replaced and not losing.blunder and losing.loss >= 200 and losing.move.uci() != "b1a2"
    again = check(losing.move)
    assert again is not None and again.loss < 200
    sound = hold_search_move(losing.move, check)
    assert (sound.move, sound.replaced, sound.blunder) == (losing.move, False, False)
    unjudged = hold_search_move(chess.Move.from_uci("b1a2"), lambda move: None)
    assert (unjudged.move.uci(), unjudged.replaced, unjudged.blunder) == ("b1a2", False, False)
    itself = hold_search_move(chess.Move.from_uci("b1a2"), lambda move: DeepCheck(move, 300, 6))
    assert (itself.move.uci(), itself.replaced, itself.blunder) == ("b1a2", False, True)
