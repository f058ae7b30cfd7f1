"""iam.evolution.run: a tiny chess evolution in demes writes every generation, resumes where it stopped, and
gives the same generations serially, in local processes and on a Dask cluster."""

import json

import numpy as np
import pandas as pd
import pytest

from iam.errors import ParameterError
from iam.evolution import EvolutionConfig, EvolutionError, Mutation, evolve_piece_values, load_generations
from iam.runtime import Runtime
from search.chess.pst import PIECE_NAMES

OPENINGS = (
    "r1bqk1nr/ppp2ppp/2np4/b3p3/2B1P3/2P2N2/P2P1PPP/RNBQ1RK1 w kq - 0 1",
    "rnbq1rk1/p1p1bppp/1p2pn2/3p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
)
TINY = EvolutionConfig(population=4, demes=2, generations=2, nodes=150, max_plies=30, migrate_every=2,
                       openings=OPENINGS)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    folder = tmp_path_factory.mktemp("straight")
    reports = []
    table = evolve_piece_values(TINY, folder, on_generation=reports.append)
    return folder, table, reports


def test_a_held_pawn_stays_the_unit_while_the_pieces_evolve(tmp_path):
    held = EvolutionConfig(**{**TINY.__dict__, "generations": 1, "mutation": Mutation(pawn=100.0)})
    table = evolve_piece_values(held, tmp_path)
    assert (table["pawn"] == 100.0).all()
    start, after = (table[table["generation"] == g][list(PIECE_NAMES[1:])].to_numpy() for g in (0, 1))
    assert ((start >= 50) & (start <= 1000)).all() and not np.allclose(start, after)


def test_every_generation_is_written_with_its_pairs_and_tables(straight):
    folder, table, reports = straight
    names = {p.name for p in folder.iterdir()}
    assert {"config.json", "generation_0000.json", "generation_0001.json", "generation_0002.json",
            "population.csv", "pairs.csv", "weights.png"} <= names
    assert list(table.columns) == ["generation", "individual", *PIECE_NAMES] and len(table) == 3 * 4
    start = table[table["generation"] == 0][list(PIECE_NAMES)].to_numpy()
    assert ((start >= 50) & (start <= 1000)).all()  # the random start's range
    populations, pairs = load_generations(folder)
    pd.testing.assert_frame_equal(populations, pd.read_csv(folder / "population.csv"), check_dtype=False)
    assert len(pairs) == 2 * 2 and set(pairs["case"]) <= {"won both", "won and drew", "level"}
    assert list(pairs["migration"]) == [False, False, True, True]  # generation 2 pairs across the demes
    ordinary = pairs[~pairs["migration"]]
    assert all((row.a < 2) == (row.b < 2) for row in ordinary.itertuples())  # within a deme
    crossing = pairs[pairs["migration"]]
    assert all((row.a < 2) != (row.b < 2) for row in crossing.itertuples())  # across the demes
    assert [r.generation for r in reports] == [0, 1, 2]
    assert list(pairs["opening"]) == [OPENINGS[0], OPENINGS[1], OPENINGS[0], OPENINGS[1]]


def test_the_rule_is_what_changed_the_population(straight):
    folder, table, _ = straight
    _, pairs = load_generations(folder)
    for row in pairs.itertuples():
        before = table[table["generation"] == row.generation - 1].set_index("individual")[list(PIECE_NAMES)]
        after = table[table["generation"] == row.generation].set_index("individual")[list(PIECE_NAMES)]
        if row.case == "won both":
            assert np.allclose(after.loc[row.winner], before.loc[row.winner])


def test_an_interrupted_run_resumes_to_the_same_generations(straight, tmp_path):
    folder, table, _ = straight
    evolve_piece_values(EvolutionConfig(**{**TINY.__dict__, "generations": 1}), tmp_path)
    assert not (tmp_path / "generation_0002.json").exists()
    (tmp_path / "generation_0002.json.partial").write_text("{")  # a generation cut off while being written
    reports = []
    resumed = evolve_piece_values(TINY, tmp_path, resume=True, on_generation=reports.append)
    pd.testing.assert_frame_equal(resumed, table)
    assert [(r.generation, r.resumed) for r in reports] == [(1, True), (2, False)]
    for generation in range(3):
        mine = json.loads((tmp_path / f"generation_{generation:04d}.json").read_text())
        theirs = json.loads((folder / f"generation_{generation:04d}.json").read_text())
        assert (mine["population"], mine["pairs"]) == (theirs["population"], theirs["pairs"])


def test_a_folder_with_a_run_is_not_overwritten_nor_resumed_with_other_settings(straight, tmp_path):
    folder, _, _ = straight
    with pytest.raises(EvolutionError, match="holds a run already"):
        evolve_piece_values(TINY, folder)
    with pytest.raises(EvolutionError, match="other settings"):
        evolve_piece_values(EvolutionConfig(**{**TINY.__dict__, "nodes": 151}), folder, resume=True)


def test_local_processes_give_the_same_generations(straight, tmp_path):
    _, table, _ = straight
    pd.testing.assert_frame_equal(evolve_piece_values(TINY, tmp_path, Runtime(jobs=2)), table)


@pytest.mark.slow
def test_a_cluster_gives_the_same_generations(straight, cluster, tmp_path):
    _, table, _ = straight
    remote = evolve_piece_values(TINY, tmp_path, Runtime(scheduler=cluster, scheduler_timeout=30))
    pd.testing.assert_frame_equal(remote, table)


@pytest.mark.parametrize(
    ("change", "parameter"),
    [({"population": 1}, "population"), ({"demes": 3}, "demes"), ({"nodes": 0}, "nodes"),
     ({"initial": (500.0, 100.0)}, "initial"), ({"openings": ()}, "openings"),
     ({"mutation": {"spread_floor": -0.1}}, "spread_floor"), ({"mutation": {"pawn": 0.5}}, "pawn")],
)
def test_settings_it_cannot_run_are_refused(change, parameter):
    with pytest.raises(ParameterError) as caught:
        if "mutation" in change:
            change = {"mutation": Mutation(**change["mutation"])}
        EvolutionConfig(**{**TINY.__dict__, **change})
    assert caught.value.parameter == parameter


@pytest.mark.slow
def test_a_worker_killed_mid_generation_costs_only_its_games(
    straight, start_dask_cluster, kill_a_busy_worker, tmp_path
):
    """A worker lost while it plays a deme's games: its task goes to the other worker (or to the worker
    the nanny starts again), no finished generation is lost, and the run ends as it would have."""
    import os

    distributed = pytest.importorskip("distributed")
    _, table, _ = straight
    slow = EvolutionConfig(**{**TINY.__dict__, "nodes": 600, "max_plies": 60})
    expected = evolve_piece_values(slow, tmp_path / "serial")
    killed = []
    (tmp_path / "cluster").mkdir()
    with start_dask_cluster(tmp_path / "cluster") as address, distributed.Client(address, timeout=30) as client:
        pids = client.run(os.getpid)

        def on_generation(report) -> None:
            if report.generation == 1:  # generation 1 is on disk: kill a worker during generation 2's games
                finished = sorted(p.name for p in (tmp_path / "remote").glob("generation_*.json"))
                assert finished == ["generation_0000.json", "generation_0001.json"]
                kill_a_busy_worker(client, pids, killed)

        remote = evolve_piece_values(slow, tmp_path / "remote", Runtime(scheduler=address, scheduler_timeout=30),
                                     on_generation=on_generation)
    assert killed  # a worker died holding a deme's games
    pd.testing.assert_frame_equal(remote, expected)
