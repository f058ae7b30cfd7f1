"""search.chess.modules.kernels: the default module is the play search node for node; other modules change the
counts the rules they touch produce."""

import chess
import pytest

from search.chess.modules.kernels import ModuleSearch
from search.chess.modules.space import DepthOrdering
from search.chess.play import PlaySearch
from search.result import Limits

POSITIONS = (
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1bqk1nr/ppp2ppp/2np4/b3p3/2B1P3/2P2N2/P2P1PPP/RNBQ1RK1 w kq - 0 1",
    "rnbq1rk1/p1p1bppp/1p2pn2/3p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
    "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
    "r1b1k2r/ppppqppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R w KQkq - 0 1",
)
SMALL = 1 << 14


def _counts(search, board, limits):
    search.clear()
    result = search.search(board, limits)
    return (result.move, result.value, result.depth, result.nodes, result.qnodes, result.cutoffs, result.tt_hits,
            search.passes, search.late_reductions, search.check_extensions)


@pytest.mark.parametrize("fen", POSITIONS)
def test_the_default_module_searches_as_the_play_search(fen):
    board = chess.Board(fen)
    play, module = PlaySearch(table_size=SMALL), ModuleSearch(DepthOrdering.default(), table_size=SMALL)
    for limits in (Limits(depth=4), Limits(nodes=6000)):
        assert _counts(module, board, limits) == _counts(play, board, limits)


def _with(**genes):
    return DepthOrdering.from_dict({**DepthOrdering.default().as_dict(), **genes})


def test_turning_rules_off_turns_their_counters_off():
    board = chess.Board(POSITIONS[1])
    search = ModuleSearch(_with(check_extension=0, null_from=8, lmr_from=8), table_size=SMALL)
    search.search(board, Limits(depth=5))
    assert (search.check_extensions, search.passes, search.late_reductions) == (0, 0, 0)
    search.module = DepthOrdering.default()
    search.clear()
    search.search(board, Limits(depth=5))
    assert search.passes > 0 and search.late_reductions > 0


def test_each_depth_or_order_gene_changes_the_search():
    board = chess.Board(POSITIONS[2])
    default = _counts(ModuleSearch(DepthOrdering.default(), table_size=SMALL), board, Limits(depth=5))
    changed = dict(null_reduction=3, lmr_after=6, futility_margin=400, history_power=1, attacker_weight=100,
                   killers=0, bad_captures_late=1, static_null_depth=3, late_prune_depth=3, no_hint_reduction=3)
    for name, value in changed.items():
        counts = _counts(ModuleSearch(_with(**{name: value}), table_size=SMALL), board, Limits(depth=5))
        assert counts[3:5] != default[3:5], name


def test_a_module_still_finds_a_mate():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    wild = _with(check_extension=0, lmr_after=1, lmr_from=2, futility_depth=4, futility_margin=25, killers=0)
    assert ModuleSearch(wild, table_size=SMALL).search(board, Limits(depth=3)).move == chess.Move.from_uci("a1a8")


def test_a_restricted_root_uses_the_play_search():
    board = chess.Board(POSITIONS[1])
    only = chess.Move.from_uci("d2d4")
    wild = ModuleSearch(_with(lmr_after=1, killers=0), table_size=SMALL)
    play = PlaySearch(table_size=SMALL)
    assert wild.search(board, Limits(depth=4), only=only).value == play.search(board, Limits(depth=4), only=only).value


def test_a_new_module_empties_the_table():
    search = ModuleSearch(DepthOrdering.default(), table_size=SMALL)
    search.search(chess.Board(POSITIONS[1]), Limits(depth=4))
    assert len(search.table) > 0
    search.module = _with(lmr_after=5)
    assert len(search.table) == 0


def test_the_pruning_genes_search_fewer_nodes():
    board = chess.Board(POSITIONS[4])
    nodes = {}
    for name, genes in {"off": {}, "static": dict(static_null_depth=3, static_null_margin=50),
                        "static_deeper": dict(static_null_depth=6, static_null_margin=50),
                        "late": dict(late_prune_depth=3, late_prune_moves=2),
                        "late_earlier": dict(late_prune_depth=3, late_prune_moves=1),
                        "hint": dict(no_hint_reduction=3)}.items():
        nodes[name] = _counts(ModuleSearch(_with(**genes), table_size=SMALL), board, Limits(depth=6))[3]
    assert nodes["static_deeper"] < nodes["static"] < nodes["off"]
    assert nodes["late"] < nodes["off"] and nodes["late_earlier"] < nodes["off"]
    assert nodes["hint"] < nodes["off"]


def test_a_rule_at_depth_zero_is_off_whatever_its_other_gene():
    board = chess.Board(POSITIONS[2])
    off = _counts(ModuleSearch(DepthOrdering.default(), table_size=SMALL), board, Limits(depth=5))
    inert = _with(static_null_depth=0, static_null_margin=25, late_prune_depth=0, late_prune_moves=1)
    assert _counts(ModuleSearch(inert, table_size=SMALL), board, Limits(depth=5)) == off


def test_the_pruning_genes_still_find_a_mate():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    wild = _with(static_null_depth=6, static_null_margin=25, late_prune_depth=6, late_prune_moves=1,
                 no_hint_reduction=3)
    assert ModuleSearch(wild, table_size=SMALL).search(board, Limits(depth=3)).move == chess.Move.from_uci("a1a8")
