"""The guided fast search: a null guide is the plain search; an oracle makes it see deeper along the game's line."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import pytest

from search import HeuristicOrderer, Limits
from search.chess.board import Position, from_move
from search.chess.engine import ChessSearch
from search.chess.evaluation import tapered_evaluator
from search.chess.game import ChessGame
from search.chess.guided import GuideSettings, ModelGuide, line_keys
from search.chess.oracle import LineOracle
from search.opponent.omsearch import Guidance, ModelledPlayer, guided_search
from search.opponent.predictor import NullPredictor

ROOT = Path(__file__).resolve().parents[3]
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"
TACTICAL = "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"
ENDGAME = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"


def _tactics(count: int) -> list[str]:
    lines = (ROOT / "benchmarks" / "tactics.epd").read_text().splitlines()[:count]
    return [chess.Board.from_epd(line)[0].fen() for line in lines]


def _game_positions(count: int, *, ply: int = 24, line: int = 12) -> list[tuple[chess.Board, list[chess.Move]]]:
    """Boards at ``ply`` of the first long Botvinnik games, each with the game's next ``line`` moves."""
    found = []
    with open(ROOT / "datasets" / "Botvinnik.pgn", encoding="utf-8", errors="replace") as handle:
        while len(found) < count and (game := chess.pgn.read_game(handle)) is not None:
            moves = list(game.mainline_moves())
            if len(moves) < ply + line:
                continue
            board = game.board()
            for move in moves[:ply]:
                board.push(move)
            found.append((board, moves[ply : ply + line]))
    return found


class SilentCheap:
    """A cheap predictor that predicts nothing, asked at every deep node of his."""

    def __init__(self) -> None:
        self.asked = 0

    def position_beliefs(self, position: Position) -> dict[int, float]:
        self.asked += 1
        return {}


def _counts(result):
    return result.value, result.move, result.pv, result.depth, result.nodes, result.qnodes


@pytest.mark.parametrize("fen", [MIDDLEGAME, TACTICAL, ENDGAME, chess.STARTING_FEN, *_tactics(6)])
def test_a_null_guide_gives_the_plain_values_moves_and_nodes(fen):
    board = chess.Board(fen)
    for depth in (2, 3, 5):
        plain = ChessSearch().search(board, Limits(depth=depth))
        cheap = SilentCheap()
        guide = ModelGuide(NullPredictor(), cheap=cheap, settings=GuideSettings(near=1))
        null = ChessSearch(guide=guide).search(board, Limits(depth=depth))
        assert _counts(null) == _counts(plain)
        watched = ChessSearch(guide=ModelGuide(NullPredictor())).search(board, Limits(depth=depth), line=[])
        assert _counts(watched) == _counts(plain)
        if depth == 5:
            assert cheap.asked > 0 and guide.stats().near_calls > 0  # the hook ran, and changed nothing


def test_the_plain_line_depth_is_the_nominal_depth_and_the_horizon_is_at_it():
    (board, line), = _game_positions(1)
    search = ChessSearch()
    result = search.search(board, Limits(depth=3), line=line)
    assert search.line_length == len(line)
    for depth in range(1, result.depth + 1):
        shape = search.shape(depth)
        assert shape.line_entered >= 1 and shape.line_depth == depth
        assert shape.horizon_range == (depth, depth)


def test_line_keys_follow_the_line_while_it_is_legal():
    board = chess.Board()
    moves = [chess.Move.from_uci(uci) for uci in ("e2e4", "e7e5", "e1e2", "e2e4")]  # the last is not legal there
    keys = line_keys(board, moves)
    assert len(keys) == 4
    replay = chess.Board()
    for move, key in zip(moves, keys[1:]):
        replay.push(move)
        assert Position.from_board(replay).key == key


ORACLE_FIRST = GuideSettings(guidance=Guidance(keep_first=False), near=0)
"""The oracle's move searched first: with the table's move first, his node is often cut before it."""


def test_the_oracle_guided_search_reaches_deeper_along_the_game_line_at_equal_nodes():
    deeper = 0
    gains = []
    for board, line in _game_positions(6, ply=20):
        plain = ChessSearch().search(board, Limits(nodes=20_000))
        search = ChessSearch(guide=ModelGuide(cheap=LineOracle(board, line), settings=ORACLE_FIRST))
        guided = search.search(board, Limits(nodes=20_000), line=line)
        reach = search.shape(guided.depth).line_depth
        gains.append(reach - plain.depth)
        deeper += reach > plain.depth
        assert search.extended > 0
    assert deeper >= 5 and sum(gains) / len(gains) >= 1.0


def test_the_near_predictor_is_asked_only_at_his_nodes_near_the_root_once_per_position():
    board = chess.Board(MIDDLEGAME)
    root_plies = len(board.move_stack)
    asked = []

    class Recording:
        def predict_proba(self, seen: chess.Board) -> dict:
            asked.append((seen.turn, len(seen.move_stack) - root_plies, seen.fen()))
            return {}

    guide = ModelGuide(Recording(), settings=GuideSettings(near=3))
    ChessSearch(guide=guide).search(board, Limits(depth=5))
    assert asked and {turn for turn, _, _ in asked} == {chess.BLACK}
    assert {ply for _, ply, _ in asked} == {1, 3}
    assert len({fen for _, _, fen in asked}) == len(asked) == guide.stats().near_calls
    assert guide.stats().cache_hits > 0


def test_near_beliefs_reach_the_search_through_the_game_board():
    # Black's only predicted reply is ...h6 everywhere near the root: it is ordered first and extended.
    board = chess.Board(MIDDLEGAME)

    class Fixed:
        def predict_proba(self, seen: chess.Board) -> dict:
            move = chess.Move.from_uci("h7h6")
            return {move: 1.0} if move in seen.legal_moves else {}

    search = ChessSearch(guide=ModelGuide(Fixed(), settings=GuideSettings(near=1)))
    search.search(board, Limits(depth=3))
    assert search.extended > 0 and search.reduced > 0


def test_pruning_leaves_the_unpredicted_moves_unsearched_but_a_move_always_stands():
    (board, line), = _game_positions(1, ply=20)
    oracle = LineOracle(board, line)
    settings = GuideSettings(guidance=Guidance(prune_below=0.05, keep_first=False), near=0)
    search = ChessSearch(guide=ModelGuide(cheap=oracle, settings=settings))
    result = search.search(board, Limits(depth=4))
    assert search.pruned > 0 and result.move in board.legal_moves
    reduced = ChessSearch(guide=ModelGuide(cheap=oracle, settings=ORACLE_FIRST)).search(board, Limits(depth=4))
    assert result.nodes < reduced.nodes


@pytest.mark.parametrize("index", [0, 1, 2])
def test_the_fast_guided_search_has_the_generic_guided_search_value(index):
    """Without tables both search the same variable-depth tree, whatever their move order: the same value.

    The oracle's move goes first (``keep_first=False``), so both spare the same move from reduction.
    """
    board, line = _game_positions(3)[index]
    guidance = Guidance(keep_first=False)
    oracle = LineOracle(board, line)
    modelled = 1 if board.turn == chess.WHITE else 0
    generic = guided_search(
        ChessGame(), board, modelled=ModelledPlayer(oracle, modelled, guidance), evaluator=tapered_evaluator(),
        limits=Limits(depth=3), ordering=HeuristicOrderer(), quiescence=True,
    )
    guide = ModelGuide(cheap=oracle, settings=GuideSettings(guidance=guidance, near=0))
    search = ChessSearch(use_table=False, guide=guide)
    fast = search.search(board, Limits(depth=3))
    assert fast.value == generic.result.value
    assert search.extended > 0


def test_the_noisy_oracle_is_reproducible_and_names_the_played_move_about_as_often_as_asked():
    (board, line), = _game_positions(1, ply=0, line=80)
    exact = LineOracle(board, line)
    noisy = LineOracle(board, line, accuracy=0.5, seed=7)
    again = LineOracle(board, line, accuracy=0.5, seed=7)
    replay = board.copy()
    hits = 0
    for move in line:
        assert exact.predict_proba(replay) == {move: 1.0}
        named = noisy.predict_proba(replay)
        assert named == again.predict_proba(replay) and len(named) == 1 and set(named) <= set(replay.legal_moves)
        assert noisy.position_beliefs(Position.from_board(replay)) == {from_move(next(iter(named))): 1.0}
        hits += next(iter(named)) == move
        replay.push(move)
    assert 0.35 * len(line) <= hits <= 0.75 * len(line)
    assert LineOracle(board, line, accuracy=0.0, seed=7).predict_proba(board) != {} and exact.positions == len(line)
    with pytest.raises(ValueError):
        LineOracle(board, line, accuracy=1.5)


def test_settings_refuse_a_negative_reach_and_a_guide_with_a_reply_policy():
    with pytest.raises(ValueError):
        GuideSettings(near=-1)
    import numpy as np

    from search.chess.replies import REPLY_INPUTS, ReplyPolicy

    with pytest.raises(ValueError):
        ChessSearch(guide=ModelGuide(), replies=ReplyPolicy(np.zeros(REPLY_INPUTS)))
