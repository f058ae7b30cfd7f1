"""Move scores when the scorer holds only its best lines: other moves valued by the position they lead to."""

from __future__ import annotations

import shutil

import chess
import pytest

from iam.engines.analysis import MATE_SCORE
from iam.prepare.scoring import EngineScorer, beyond_lines, move_score, position_value

from .stubs import StubScorer, after

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def test_a_move_in_the_lines_keeps_its_score_and_another_is_minus_the_value_after_it():
    scorer = StubScorer({(): {"e2e4": 30}, ("a2a3",): {"e7e5": 40, "d7d5": 10}})
    board = chess.Board()
    assert move_score(scorer, board, chess.Move.from_uci("e2e4")) == 30
    assert move_score(scorer, board, chess.Move.from_uci("a2a3")) == -40
    assert board == chess.Board() and not board.move_stack


class ByPosition:
    """Scores given per position (by FEN); every legal move 0 elsewhere."""

    def __init__(self, table: dict[str, dict[str, int]]) -> None:
        self.table = {
            chess.Board(fen).epd(): {chess.Move.from_uci(m): v for m, v in scores.items()}
            for fen, scores in table.items()
        }

    def scores(self, board: chess.Board) -> dict[chess.Move, int]:
        return dict(self.table.get(board.epd(), {move: 0 for move in board.legal_moves}))


def test_mates_after_a_move_count_one_move_further():
    start = "7k/8/6K1/8/8/8/8/Q7 w - - 0 1"
    board = chess.Board(start)
    lines = {start: {"g6h6": 0}}  # the scorer's only line at the start
    assert move_score(ByPosition(lines), board, chess.Move.from_uci("a1a8")) == MATE_SCORE - 1  # Qa8 mates at once
    # After Kf6 Black mates in 2, by the scorer: White is mated in 2.
    after_kf6 = "7k/8/5K2/8/8/8/8/Q7 b - - 1 1"
    scorer = ByPosition({**lines, after_kf6: {"h8g8": MATE_SCORE - 2}})
    assert move_score(scorer, board, chess.Move.from_uci("g6f6")) == -(MATE_SCORE - 2)
    # After Qa7 Black is mated in 1, by the scorer: White mates in 2.
    after_qa7 = "7k/Q7/6K1/8/8/8/8/8 b - - 1 1"
    scorer = ByPosition({**lines, after_qa7: {"h8g8": -(MATE_SCORE - 1)}})
    assert move_score(scorer, board, chess.Move.from_uci("a1a7")) == MATE_SCORE - 2


def test_an_illegal_move_is_refused():
    with pytest.raises(ValueError, match="illegal move"):
        move_score(StubScorer({(): {"e2e4": 30}}), chess.Board(), chess.Move.from_uci("e2e5"))


@pytest.mark.skipif(STOCKFISH is None, reason="no stockfish installed (Debian: apt-get install stockfish)")
def test_the_engine_scores_its_best_lines_and_values_other_moves_by_their_position(tmp_path):
    board = after("e2e4", "e7e5", "g1f3")
    scorer = EngineScorer(STOCKFISH, depth=4, cache=str(tmp_path / "cache.sqlite"), lines=2)
    try:
        scores = scorer.scores(board)
        assert len(scores) == 2 and set(scores) <= set(board.legal_moves)
        assert "best 2 moves" in scorer.description
        outside = next(move for move in board.legal_moves if move not in scores)
        child = board.copy()
        child.push(outside)
        assert move_score(scorer, board, outside) == -position_value(scorer, child)
    finally:
        scorer.close()


def test_the_judge_agreement_is_the_measured_table():
    from pathlib import Path

    import pandas as pd

    from iam.prepare.scoring import JUDGE_AGREEMENT

    table = pd.read_csv(Path(__file__).resolve().parents[3] / "docs/results/data/judge_agreement.csv")
    measured = table.set_index(["depth", "moves"])
    assert sorted(JUDGE_AGREEMENT) == sorted(set(table["depth"]))
    for depth, agreement in JUDGE_AGREEMENT.items():
        assert agreement.precision == round(measured.loc[(depth, "all"), "precision"], 3)
        assert agreement.recall == round(measured.loc[(depth, "all"), "recall"], 3)
        assert agreement.played_precision == round(measured.loc[(depth, "played"), "precision"], 3)


def test_the_own_search_says_how_far_its_verdicts_agree_with_the_reference():
    from iam.prepare.scoring import DEFAULT_JUDGE_DEPTH, JUDGE_AGREEMENT, SearchScorer

    assert SearchScorer().depth == DEFAULT_JUDGE_DEPTH == 6
    played = f"{JUDGE_AGREEMENT[4].played_precision:.0%}"
    text = SearchScorer(4).description
    assert text.startswith("the toolkit's own search (alpha-beta with quiescence, depth 4): ")
    assert f"{played} of their own moves it judged to lose 50 centipawns or more did by Stockfish 15.1 at depth 16" \
        in text
    assert played == "31%"
    assert SearchScorer(7).description == "the toolkit's own search (alpha-beta with quiescence, depth 7)"


OPENINGS = [
    (),
    ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5"),
    ("d2d4", "g8f6", "b1c3", "d7d5", "c1f4", "g7g6", "c3b5", "c7c5"),  # Nc7+ wins the queen
    ("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"),
]


def _at_least_the_cut(every: dict[chess.Move, int], lines: int) -> dict[chess.Move, int]:
    """The moves of a complete scoring worth at least its ``lines``-th best value."""
    ranked = sorted(every.values(), reverse=True)
    cut = ranked[min(lines, len(ranked)) - 1]
    return {move: value for move, value in every.items() if value >= cut}


@pytest.mark.parametrize("moves", OPENINGS)
@pytest.mark.parametrize("depth", [2, 3])
def test_the_best_lines_have_the_values_scoring_every_move_gives(moves, depth):
    from iam.prepare.scoring import best_root_moves
    from search.chess.scoring import score_root_moves

    board = after(*moves)
    every = score_root_moves(board, depth)
    best = best_root_moves(board, depth, 3)
    assert best == _at_least_the_cut(every, 3) and len(best) >= 3  # the best three, and any move tied with the third
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0].uci()))
    assert ranked[:3] == sorted(every.items(), key=lambda item: (-item[1], item[0].uci()))[:3]


def test_a_tie_at_the_cut_keeps_every_tied_move_and_no_other():
    from iam.prepare.scoring import best_root_moves
    from search.chess.scoring import score_root_moves

    board = chess.Board("7k/8/8/8/8/8/8/K6R w - - 0 1")  # six rook moves tie for the best at depth 1
    every = score_root_moves(board, 1)
    scores = best_root_moves(board, 1, 3)
    assert scores == _at_least_the_cut(every, 3) and len(scores) >= 6 and len(set(scores.values())) == 1
    assert len(scores) < len(every)  # the king's moves and Rh8+ Kxh8 are left out
    mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    found = best_root_moves(mate, 2, 3)
    assert found == _at_least_the_cut(score_root_moves(mate, 2), 3)
    assert found[chess.Move.from_uci("a1a8")] == MATE_SCORE - 1
    assert best_root_moves(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), 3, 3) == {}  # mated: no move


def test_one_pass_finds_the_best_moves_of_development_positions_as_scoring_every_move_does(bundled_master):
    from iam.games.heldout import development_games
    from iam.prepare.agreement import judged_moves
    from iam.prepare.scoring import SearchScorer
    from search.chess.engine import ChessSearch
    from search.chess.scoring import score_root_moves

    games = bundled_master("Alekhine")  # his bundled games, read once per run
    fens = sorted({judged.fen for judged in judged_moves(development_games(games), "Alekhine", positions=6)})
    lean = SearchScorer(3)
    for fen in fens:
        board = chess.Board(fen)
        every = score_root_moves(board, 3)
        assert ChessSearch().best_moves(board, 3, 1) == _at_least_the_cut(every, 1)
        assert ChessSearch().best_moves(board, 3, 4) == _at_least_the_cut(every, 4)
        assert {move: move_score(lean, board, move) for move in board.legal_moves} == every
    with pytest.raises(ValueError, match="lines"):
        ChessSearch().best_moves(chess.Board(), 3, 0)


@pytest.mark.parametrize(("player", "depth", "positions"), [("Lasker", 4, 8), ("Spassky", 5, 3)])
def test_the_judge_s_values_of_development_positions_are_those_of_a_complete_scoring(player, depth, positions):
    """What the judge reads (its best moves, any move alone, a position's value) at depths 4 and 5, on positions of
    other masters' development games than the test above: the values scoring every move gives, and the value a plain
    search gives the position."""
    from iam.games.bundled import bundled_pgn
    from iam.games.heldout import development_games
    from iam.games.pgn import load_player_games
    from iam.prepare.agreement import judged_moves
    from iam.prepare.scoring import SearchScorer
    from search import Limits
    from search.chess.engine import ChessSearch
    from search.chess.scoring import score_root_moves

    games, _ = load_player_games([bundled_pgn(player)], player=player)
    fens = sorted({judged.fen for judged in judged_moves(development_games(games), player, positions=positions)})
    for fen in fens:
        board = chess.Board(fen)
        every = score_root_moves(board, depth)
        judge, valued = SearchScorer(depth), SearchScorer(depth)
        assert judge.scores(board) == _at_least_the_cut(every, 3)
        assert valued.value(board) == max(every.values()) == ChessSearch().search(board, Limits(depth=depth)).value
        if depth == 4:
            assert {move: move_score(judge, board, move) for move in board.legal_moves} == every


@pytest.mark.parametrize("moves", OPENINGS[1:3])
def test_a_move_scored_alone_has_its_value_among_every_move(moves):
    from iam.prepare.scoring import one_move_value
    from search.chess.scoring import score_root_moves

    board = after(*moves)
    every = score_root_moves(board, 2)
    assert {move: one_move_value(board, move, 2) for move in board.legal_moves} == every


def test_the_own_search_values_every_move_as_scoring_every_move_would_and_counts_its_work():
    from iam.prepare.scoring import SearchScorer

    board = after(*OPENINGS[2])
    complete, lean = SearchScorer(3, lines=None), SearchScorer(3)
    assert lean.lines == 3 and len(lean.scores(board)) == 3 and lean.searches == 1
    assert len(complete.scores(board)) == board.legal_moves.count()
    values = {move: move_score(lean, board, move) for move in board.legal_moves}
    assert values == complete.scores(board)
    assert lean.searches == 1 + board.legal_moves.count() - 3 and lean.positions == 1 and lean.seconds > 0
    searches = lean.searches
    assert move_score(lean, board, chess.Move.from_uci("b5c7")) == values[chess.Move.from_uci("b5c7")]
    assert lean.searches == searches  # kept
    assert beyond_lines(lean, board, list(board.legal_moves)) == []  # nothing to score ahead
    assert position_value(lean, board) == max(values.values()) > 300  # Nc7+ wins the queen
    with pytest.raises(ValueError, match="lines"):
        SearchScorer(3, lines=1)


def test_a_position_is_valued_by_one_search_with_the_value_its_best_move_has():
    from iam.prepare.scoring import SearchScorer, value_all
    from search.chess.scoring import score_root_moves

    boards = [after(*moves) for moves in OPENINGS]
    lean = SearchScorer(3)
    ticks: list[int] = []
    value_all(lean, boards, progress=ticks.append)
    assert ticks == [1] * len(boards) and lean.searches == len(boards) == lean.positions
    assert [position_value(lean, board) for board in boards] == [max(score_root_moves(b, 3).values()) for b in boards]
    assert lean.searches == len(boards)  # read back, not searched again
    assert position_value(lean, chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")) == -MATE_SCORE  # mated: no search
    stub = StubScorer({(): {"e2e4": 30}})  # a scorer without values of its own is handed the batch to score
    value_all(stub, [chess.Board()])
    assert stub.asked == [chess.Board().epd()]


def test_the_lean_judge_prepares_the_lines_scoring_every_move_prepares():
    from iam.prepare.lines import LineSettings, prepare_lines
    from iam.prepare.scoring import SearchScorer

    from .stubs import StubPredictor

    beliefs = {
        ("e2e4",): {"e7e5": 0.6, "c7c5": 0.4},
        ("d2d4",): {"d7d5": 0.7, "g8f6": 0.3},
        ("g1f3",): {"d7d5": 0.5, "g8f6": 0.5},
    }
    settings = LineSettings(plies=4, our_margin=40, reply_min=0.2, min_probability=0.01)
    plans = [
        prepare_lines(chess.Board(), chess.BLACK, StubPredictor(beliefs), scorer, settings,
                      known=lambda board: [chess.Move.from_uci("e2e4")] if board.ply() == 0 else [])
        for scorer in (SearchScorer(3, lines=None), SearchScorer(3))
    ]
    complete, lean = ([(line.moves, round(line.value, 6)) for line in plan.lines] for plan in plans)
    assert complete == lean and len(lean) > 3
    assert plans[0].root.value == plans[1].root.value and plans[0].reference == plans[1].reference


def test_the_default_depth_and_its_first_moves_are_the_rule_applied_to_the_measured_table():
    from pathlib import Path

    import pandas as pd

    from experiments.development.habit_verdicts import JUDGE_SECONDS, choose_depth
    from iam.prepare.scoring import DEFAULT_JUDGE_DEPTH, OWN_FIRST_MOVES

    data = Path(__file__).resolve().parents[3] / "docs/results/data"
    table = pd.read_csv(data / "habit_verdicts_judge_two_plies.csv")
    assert sorted(set(table["own_depth"])) == [5, 6] and len(table) == 24
    assert choose_depth(table) == DEFAULT_JUDGE_DEPTH == 6
    assert table[table["own_depth"] == 6]["own_seconds"].median() <= JUDGE_SECONDS
    chosen = table[table["own_depth"] == DEFAULT_JUDGE_DEPTH]
    for white, (same, of) in OWN_FIRST_MOVES.items():
        rows = chosen[chosen["color"] == ("white" if white else "black")]
        assert (int(rows["same"].sum()), len(rows)) == (same, of)
    first = pd.read_csv(data / "habit_verdicts_judge.csv")  # the complete scoring's table: depth 6 was too slow
    assert sorted(set(first["own_depth"])) == [4, 5, 6] and len(first) == 36 and choose_depth(first) == 5
    deepest = first[first["own_depth"] == 6]
    assert deepest.groupby("color")["same"].sum().min() >= 5 and deepest["own_seconds"].median() > JUDGE_SECONDS


@pytest.mark.parametrize("later", ["habit_verdicts_judge_one_pass.csv", "habit_verdicts_judge_two_plies.csv"])
def test_a_faster_judge_built_the_same_sides_as_the_one_before(later):
    """Each faster judge's sides have the first moves, positions and searches of the judge before (the same values
    read), and the rule picks depth 5 until depth 6 costs at most the seconds allowed."""
    from pathlib import Path

    import pandas as pd

    from experiments.development.habit_verdicts import JUDGE_SECONDS, choose_depth

    data = Path(__file__).resolve().parents[3] / "docs/results/data"
    fast = pd.read_csv(data / later)
    before = pd.read_csv(data / "habit_verdicts_judge.csv")
    assert sorted(set(fast["own_depth"])) == [5, 6] and len(fast) == 24
    both = fast.merge(before, on=["player", "color", "own_depth"], suffixes=("", "_before"))
    assert len(both) == 24 and (both["own_search"] == both["own_search_before"]).all()  # the same values
    assert (both["own_positions"] == both["own_positions_before"]).all()
    slow = fast[fast["own_depth"] == 6]["own_seconds"].median() > JUDGE_SECONDS
    assert choose_depth(fast) == (5 if slow else 6)
    assert slow == (later == "habit_verdicts_judge_one_pass.csv")
