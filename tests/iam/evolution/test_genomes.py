"""iam.evolution.run with the square bonuses' scales as the genome, and with demes that do not wait for each
other: the rule's factors move the scales, runs resume to the same generations, any runtime gives the same ones."""

import json

import numpy as np
import pandas as pd
import pytest

from iam.errors import ParameterError
from iam.evolution import EvolutionConfig, Mutation, evolve_piece_values, load_generations
from iam.evolution.run import genome_names, genome_values
from iam.runtime import Runtime
from search.chess.pst import EG_VALUES, MG_VALUES, PIECE_NAMES, SQUARE_NAMES
from search.evolution import apply_results, deme_pairs, deme_slices, random_pairs

OPENINGS = (
    "r1bqk1nr/ppp2ppp/2np4/b3p3/2B1P3/2P2N2/P2P1PPP/RNBQ1RK1 w kq - 0 1",
    "rnbq1rk1/p1p1bppp/1p2pn2/3p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
)
SQUARES = EvolutionConfig(population=4, demes=2, generations=2, nodes=150, max_plies=40, migrate_every=2,
                          openings=OPENINGS, mutation=Mutation(genome="squares"))
LOW, HIGH = np.zeros(12), np.full(12, 4.0)  # the scales' bounds


def _generation(table: pd.DataFrame, generation: int) -> np.ndarray:
    return table[table["generation"] == generation][list(SQUARE_NAMES)].to_numpy()


@pytest.fixture(scope="module")
def squares(tmp_path_factory):
    folder = tmp_path_factory.mktemp("squares")
    return folder, evolve_piece_values(SQUARES, folder)


@pytest.fixture(scope="module")
def asynchronous(tmp_path_factory):
    folder = tmp_path_factory.mktemp("asynchronous")
    config = EvolutionConfig(**{**SQUARES.__dict__, "population": 6, "generations": 3, "migrate_every": 3})
    return config, folder, evolve_piece_values(config, folder, asynchronous=True)


def test_an_individual_is_the_hand_set_evaluation_with_its_genome_in_place():
    scales = [0.5 + i / 10 for i in range(12)]
    values = genome_values("squares", scales)
    assert values.middlegame == MG_VALUES[1:6] and values.endgame == EG_VALUES[1:6] and values.squares == tuple(scales)
    both = genome_values("both", [100, 300, 310, 500, 900, *scales])
    assert both.middlegame == both.endgame == (100, 300, 310, 500, 900) and both.squares == tuple(scales)
    assert genome_values("pieces", [100, 300, 310, 500, 900]).squares == (1.0,) * 12
    assert genome_names("both") == PIECE_NAMES + SQUARE_NAMES
    with pytest.raises(ValueError, match="has 12 weights"):
        genome_values("squares", [1.0] * 5)


def test_the_scales_start_in_their_range_and_every_generation_is_written(squares):
    folder, table = squares
    assert list(table.columns) == ["generation", "individual", *SQUARE_NAMES] and len(table) == 3 * 4
    start = _generation(table, 0)
    assert ((start >= 0) & (start <= 2)).all() and start.std() > 0.2
    payload = json.loads((folder / "generation_0002.json").read_text())
    assert payload["names"] == list(SQUARE_NAMES)
    settings = json.loads((folder / "config.json").read_text())["config"]
    assert settings["genome"] == "squares" and settings["square_bounds"] == [0.0, 4.0]
    assert (folder / "weights.png").stat().st_size > 0


def test_the_scales_move_by_the_rule_with_each_demes_spread(squares):
    """Generation 1 (within the demes) and 2 (across them) redone from the recorded scores by the rule."""
    folder, table = squares
    _, pairs = load_generations(folder)
    floor = SQUARES.mutation.spread_floor
    for generation in (1, 2):
        before, after = _generation(table, generation - 1), _generation(table, generation)
        rows = pairs[pairs["generation"] == generation]
        rng = np.random.default_rng([SQUARES.seed, generation])
        groups = deme_pairs(4, 2, generation - 1, rng, every=2)
        assert [tuple(r) for r in rows[["a", "b"]].to_numpy()] == [p for g in groups for p in g]
        scores = {(r.a, r.b): (r.a_white, r.a_black) for r in rows.itertuples()}
        if generation == 2:  # a migration: the whole population's spread
            expected, _ = apply_results(before, [p for g in groups for p in g], [scores[p] for g in groups for p in g],
                                        rng, bounds=(LOW, HIGH), floor=floor)
        else:
            expected = before.copy()
            for members, group in zip(deme_slices(4, 2), groups):
                local = {index: at for at, index in enumerate(members)}
                sub, _ = apply_results(before[list(members)], [(local[a], local[b]) for a, b in group],
                                       [scores[p] for p in group], rng, bounds=(LOW, HIGH), floor=floor)
                expected[list(members)] = sub
        np.testing.assert_allclose(after, expected)
        for row in rows.itertuples():  # the rule's factors bound each move: s(y) times half the factor
            pool = before if generation == 2 else before[:2] if row.a < 2 else before[2:]
            spread = np.maximum(pool.std(axis=0), floor * pool.mean(axis=0))
            if row.case == "level":  # both mutated in place with 0.5
                for i in (row.a, row.b):
                    assert (np.abs(after[i] - before[i]) <= 0.25 * spread + 1e-12).all()
                    assert not np.allclose(after[i], before[i])
            else:  # the loser replaced by a mutant of the winner, with 2 (won both) or 1 (won and drew)
                loser = row.b if row.winner == row.a else row.a
                factor = 2.0 if row.case == "won both" else 1.0
                assert (np.abs(after[loser] - before[row.winner]) <= 0.5 * factor * spread + 1e-12).all()


def test_a_resumed_squares_run_equals_the_uninterrupted_one(squares, tmp_path):
    _, table = squares
    evolve_piece_values(EvolutionConfig(**{**SQUARES.__dict__, "generations": 1}), tmp_path)
    pd.testing.assert_frame_equal(evolve_piece_values(SQUARES, tmp_path, resume=True), table)
    with pytest.raises(Exception, match="other settings"):
        evolve_piece_values(SQUARES, tmp_path, resume=True, asynchronous=True)


def test_a_piece_value_run_keeps_its_settings_file(tmp_path):
    pieces = EvolutionConfig(**{**SQUARES.__dict__, "generations": 0, "mutation": Mutation()})
    evolve_piece_values(pieces, tmp_path)
    settings = json.loads((tmp_path / "config.json").read_text())["config"]
    assert not {"genome", "square_bounds", "square_initial", "asynchronous"} & set(settings)


@pytest.mark.parametrize(
    ("mutation", "parameter"),
    [({"genome": "tables"}, "genome"), ({"genome": "squares", "pawn": 100.0}, "pawn"),
     ({"square_bounds": (1.0, 0.5)}, "square_bounds"), ({"square_initial": (0.0, 5.0)}, "square_initial")],
)
def test_genome_settings_it_cannot_run_are_refused(mutation, parameter):
    with pytest.raises(ParameterError) as caught:
        Mutation(**mutation)
    assert caught.value.parameter == parameter


def test_asynchronous_demes_draw_their_own_numbers(asynchronous):
    """Generation 1 and 2: each deme pairs and mutates with ``default_rng([seed, generation, 1 + deme])``,
    with its own spread; generation 3 is a migration, played as in the lockstep mode."""
    config, folder, table = asynchronous
    _, pairs = load_generations(folder)
    floor = config.mutation.spread_floor
    for generation in (1, 2):
        before, after = _generation(table, generation - 1), _generation(table, generation)
        rows = pairs[pairs["generation"] == generation]
        expected = before.copy()
        for deme, members in enumerate(deme_slices(6, 2)):
            rng = np.random.default_rng([config.seed, generation, 1 + deme])
            group = random_pairs(members, rng)
            mine = rows[rows["deme"] == deme]
            assert [tuple(r) for r in mine[["a", "b"]].to_numpy()] == group
            local = {index: at for at, index in enumerate(members)}
            sub, _ = apply_results(before[list(members)], [(local[a], local[b]) for a, b in group],
                                   [tuple(r) for r in mine[["a_white", "a_black"]].to_numpy()], rng,
                                   bounds=(LOW, HIGH), floor=floor)
            expected[list(members)] = sub
        np.testing.assert_allclose(after, expected)
    crossing = pairs[pairs["generation"] == 3]
    assert crossing["migration"].all() and all((r.a < 3) != (r.b < 3) for r in crossing.itertuples())


def test_asynchronous_demes_resume_and_run_in_processes_to_the_same_generations(asynchronous, tmp_path):
    config, _, table = asynchronous
    evolve_piece_values(EvolutionConfig(**{**config.__dict__, "generations": 1}), tmp_path / "cut",
                        asynchronous=True)
    reports = []
    resumed = evolve_piece_values(config, tmp_path / "cut", resume=True, asynchronous=True,
                                  on_generation=reports.append)
    pd.testing.assert_frame_equal(resumed, table)
    assert [(r.generation, r.resumed) for r in reports] == [(1, True), (2, False), (3, False)]
    local = evolve_piece_values(config, tmp_path / "local", Runtime(jobs=2), asynchronous=True)
    pd.testing.assert_frame_equal(local, table)


@pytest.mark.slow
def test_asynchronous_demes_on_a_cluster_lose_only_a_killed_workers_games(
    asynchronous, start_dask_cluster, kill_a_busy_worker, tmp_path
):
    """A worker killed while it holds a deme's games, the other deme going on: the task is played again and the
    run ends with exactly the generations of a serial run."""
    import os

    distributed = pytest.importorskip("distributed")
    config, _, _ = asynchronous
    slow = EvolutionConfig(**{**config.__dict__, "nodes": 600, "max_plies": 60, "generations": 4})
    expected = evolve_piece_values(slow, tmp_path / "serial", asynchronous=True)
    killed = []
    (tmp_path / "cluster").mkdir()
    with start_dask_cluster(tmp_path / "cluster") as address, distributed.Client(address, timeout=30) as client:
        pids = client.run(os.getpid)

        def on_generation(report) -> None:
            if report.generation == 1:
                assert sorted(p.name for p in (tmp_path / "remote").glob("generation_*.json")) == [
                    "generation_0000.json", "generation_0001.json"]
                kill_a_busy_worker(client, pids, killed)

        remote = evolve_piece_values(slow, tmp_path / "remote", Runtime(scheduler=address, scheduler_timeout=30),
                                     on_generation=on_generation, asynchronous=True)
    assert killed
    pd.testing.assert_frame_equal(remote, expected)


def test_both_genomes_start_each_weight_in_its_own_range_and_hold_the_pawn(tmp_path):
    both = EvolutionConfig(**{**SQUARES.__dict__, "generations": 1, "mutation": Mutation(genome="both", pawn=100.0)})
    table = evolve_piece_values(both, tmp_path)
    assert list(table.columns) == ["generation", "individual", *PIECE_NAMES, *SQUARE_NAMES]
    start = table[table["generation"] == 0]
    pieces, scales = start[list(PIECE_NAMES[1:])].to_numpy(), start[list(SQUARE_NAMES)].to_numpy()
    assert ((pieces >= 50) & (pieces <= 1000)).all() and ((scales >= 0) & (scales <= 2)).all()
    assert (table["pawn"] == 100.0).all()
