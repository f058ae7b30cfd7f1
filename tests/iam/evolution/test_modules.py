"""iam.evolution.modules: a tiny module evolution is a function of its config, starts from the play search's
module, and the comparison tables count what the solve functions count."""

import json

import chess
import pandas as pd
import pytest

from iam.errors import ParameterError
from iam.evolution.modules import (
    ModuleEvolutionConfig,
    _scores,
    compare_modules,
    development_pool,
    evolve_modules,
    nodes_to_reach,
    rate_table,
    split_suite,
    write_run,
)
from search.chess.modules import GENES, DepthOrdering, ModuleSearch
from search.chess.modules.solve import SuitePosition, nodes_to_rate, solve_nodes

SUITE = [
    SuitePosition("mate", chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),
                  frozenset({chess.Move.from_uci("a1a8")})),
    SuitePosition("wac1", chess.Board("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"),
                  frozenset({chess.Move.from_uci("g3g6")})),
    SuitePosition("wac2", chess.Board("8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1"),
                  frozenset({chess.Move.from_uci("b3b2")})),
    SuitePosition("wac3", chess.Board("5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1"),
                  frozenset({chess.Move.from_uci("e3g3")})),
]
TINY = ModuleEvolutionConfig(population=4, generations=2, sample=2, cap=1500, table_size=1 << 12)


def test_bad_settings_are_refused():
    with pytest.raises(ParameterError):
        ModuleEvolutionConfig(sample=3)
    with pytest.raises(ParameterError):
        ModuleEvolutionConfig(population=1)
    with pytest.raises(ParameterError):
        evolve_modules(SUITE[:1], TINY)
    with pytest.raises(ParameterError):
        ModuleEvolutionConfig(pick="fastest")
    with pytest.raises(ParameterError):
        ModuleEvolutionConfig(final_cap=0)


def test_a_half_is_won_by_a_lower_cost_beyond_the_margin():
    assert _scores((10.0, 10.0), (10.5, 10.02), 0.05) == (1.0, 0.5)
    assert _scores((11.0, 9.0), (10.0, 10.0), 0.05) == (0.0, 1.0)


def test_a_run_is_a_function_of_its_config_and_starts_from_the_play_search():
    run = evolve_modules(SUITE, TINY)
    again = evolve_modules(SUITE, TINY)
    pd.testing.assert_frame_equal(run.population, again.population)
    assert len(run.population) == TINY.population * (TINY.generations + 1)
    first = run.population.iloc[0]
    assert DepthOrdering.from_dict({gene.name: int(first[gene.name]) for gene in GENES}) == DepthOrdering.default()
    assert len(run.pairs) == TINY.population // 2 * TINY.generations
    assert run.best.as_dict() == {gene.name: int(run.final.iloc[0][gene.name]) for gene in GENES}
    assert run.final["cost"].is_monotonic_increasing and run.final["default"].sum() == 1


def test_the_written_pick_reads_back(tmp_path):
    run = evolve_modules(SUITE, TINY)
    write_run(run, tmp_path)
    saved = json.loads((tmp_path / "best.json").read_text())
    assert DepthOrdering.from_dict(saved["module"]) == run.best
    assert len(pd.read_csv(tmp_path / "population.csv")) == len(run.population)


def test_the_pool_drops_what_the_play_search_solves_at_once():
    pool, table = development_pool(SUITE, 1500, least=200, table_size=1 << 12)
    assert "mate" not in [p.name for p in pool]
    assert table["kept"].tolist() == [p in pool for p in SUITE]


def test_the_comparison_counts_what_the_solve_functions_count():
    other = DepthOrdering.from_vector(DepthOrdering.default().vector() + 2)
    modules = {"default": DepthOrdering.default(), "other": other}
    table = compare_modules(SUITE, modules, 3000, table_size=1 << 12)
    search = ModuleSearch(modules["other"], table_size=1 << 12)
    assert [None if pd.isna(n) else int(n) for n in table["other"]] == solve_nodes(search, SUITE, 3000)
    rates = rate_table(table, [3000])
    assert rates["default"].iloc[0] == table["default"].notna().mean()
    reach = nodes_to_reach(table, 0.25)
    assert reach["default"] == int(table["default"].min())


def test_the_pick_by_rate_is_the_fewest_nodes_to_the_play_searchs_rate_at_the_final_cap():
    config = ModuleEvolutionConfig(population=4, generations=2, sample=2, cap=1500, table_size=1 << 12, pick="rate",
                                   final_cap=4000)
    run = evolve_modules(SUITE, config)
    table = compare_modules(SUITE, {str(i): DepthOrdering.from_dict({g.name: int(row[g.name]) for g in GENES})
                                    for i, row in run.final.iterrows()}, 4000, table_size=1 << 12)
    rate = table[str(int(run.final.index[run.final["default"]][0]))].notna().mean()
    expected = [nodes_to_rate([None if pd.isna(n) else int(n) for n in table[str(i)]], rate)
                for i in range(len(run.final))]
    assert [None if pd.isna(n) else int(n) for n in run.final["to_rate"]] == expected
    reached = [n for n in expected if n is not None]
    assert expected[0] == min(reached)
    assert run.best.as_dict() == {gene.name: int(run.final.iloc[0][gene.name]) for gene in GENES}
    assert run.final["solved"].tolist() == table.drop(columns="position").notna().sum().tolist()


def test_the_suite_splits_into_odd_and_even_numbered_halves():
    development, measured = split_suite(SUITE)
    assert [p.name for p in development] == ["mate", "wac2"]
    assert [p.name for p in measured] == ["wac1", "wac3"]
    assert not {p.name for p in development} & {p.name for p in measured}
