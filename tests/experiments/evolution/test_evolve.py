"""experiments.evolution.evolve and ``iam experiment evolve``: the ratios table says what the run's means
are against the standard values, and the matches count the games they played."""

import json

import pandas as pd
import pytest

from experiments.evolution.evolve import EvolveConfig, ratio_table, run
from iam.cli import main as iam_main
from iam.errors import DataError
from iam.evolution import EvolutionConfig, Mutation, evolve_piece_values

OPENING = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    evolve_piece_values(EvolutionConfig(population=4, demes=1, generations=1, nodes=150, max_plies=20,
                                        openings=(OPENING,), mutation=Mutation(pawn=100.0)), out)
    return out


def test_the_ratios_are_the_evolved_values_to_the_pawn_against_the_standard_ones():
    names = ["pawn", "knight", "bishop", "rook", "queen"]
    start = pd.Series([100, 500, 500, 500, 500], index=names)
    last = pd.Series([50, 160, 200, 250, 900], index=names)
    table = ratio_table(start, last, pd.Series([0, 1, 2, 3, 4], index=names)).set_index("piece")
    assert table.loc["knight", "evolved_ratio"] == 3.2 and table.loc["knight", "against_standard"] == 1.0
    assert table.loc["queen", "evolved_ratio"] == 18 and table.loc["queen", "against_standard"] == 2.0
    assert table["within"].tolist() == [True, True, True, True, False]  # bishop 4 / 3.3 = 1.21; rook exactly 1
    assert table.loc["rook", "standard_ratio"] == 5 and table.loc["bishop", "spread"] == 2


def test_the_experiment_plays_both_matches_and_reads_the_run(folder):
    result = run(EvolveConfig(run=str(folder), openings=(OPENING,), nodes=150, max_plies=30))
    matches = result.tables["matches"]
    assert matches["games"].tolist() == [2, 2]
    assert (matches["wins"] + matches["draws"] + matches["losses"]).tolist() == [2, 2]
    assert result.payload["generations"] == 1 and result.payload["evolved"][0] == 100
    assert list(result.tables["means"]["generation"]) == [0, 1]
    assert "| evolved against |" in result.markdown
    with pytest.raises(DataError):
        run(EvolveConfig(run=str(folder / "missing")))


def test_the_command_writes_the_tables(folder, tmp_path, capsys):
    out = tmp_path / "out"
    assert iam_main(["experiment", "evolve", "--run", str(folder), "--games", "2", "--nodes", "150",
                     "--max-plies", "30", "--out", str(out), "--quiet"]) == 0
    assert {"ratios.csv", "means.csv", "matches.csv", "results.json"} <= {p.name for p in out.iterdir()}
    assert json.loads((out / "results.json").read_text())["matches"][0]["games"] == 2
    capsys.readouterr()
    assert iam_main(["experiment", "evolve", "--run", str(folder), "--games", "3"]) == 2
    assert "--games takes an even number" in capsys.readouterr().err


def test_the_hand_set_match_alone_is_the_same_match_as_in_both(folder, tmp_path, capsys):
    both = run(EvolveConfig(run=str(folder), openings=(OPENING,), nodes=150, max_plies=30)).tables["matches"]
    out = tmp_path / "alone"
    assert iam_main(["experiment", "evolve", "--run", str(folder), "--games", "2", "--nodes", "150",
                     "--max-plies", "30", "--against", "hand-set", "--out", str(out), "--quiet"]) == 0
    alone = pd.read_csv(out / "matches.csv")
    assert alone["evolved_against"].tolist() == ["hand-set"]
    assert alone[["wins", "draws", "losses"]].values.tolist() == both[["wins", "draws", "losses"]].values[1:].tolist()
    with pytest.raises(DataError, match="the matches are against"):
        EvolveConfig(run=str(folder), against=("stockfish",))
    capsys.readouterr()


def test_a_square_scales_run_is_judged_over_the_board_without_a_ratio_table(tmp_path):
    from iam.evolution import load_generations
    from search.chess.pst import SQUARE_NAMES

    evolve_piece_values(EvolutionConfig(population=4, demes=1, generations=1, nodes=150, max_plies=20,
                                        openings=(OPENING,), mutation=Mutation(genome="squares")), tmp_path)
    result = run(EvolveConfig(run=str(tmp_path), openings=(OPENING,), nodes=150, max_plies=30))
    populations, _ = load_generations(tmp_path)
    last = populations[populations["generation"] == 1][list(SQUARE_NAMES)].mean()
    assert result.payload["genome"] == "squares" and result.payload["ordered"] is None
    assert result.payload["evolved"] == [round(float(v), 2) for v in last]
    assert result.tables["ratios"].empty and list(result.tables["means"].columns) == ["generation", *SQUARE_NAMES]
    assert result.tables["matches"]["games"].tolist() == [2, 2]
    assert "| generation | pawn_squares_mg |" in result.markdown
