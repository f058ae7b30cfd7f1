"""``iam evolve``: a tiny run writes its files, reports on stderr, resumes; bad options are one-line errors."""

import pytest

from iam.cli import main as iam_main

TINY = ["--population", "4", "--demes", "2", "--nodes", "150", "--max-plies", "20", "--migrate-every", "2",
        "--quiet"]


def test_a_tiny_run_writes_its_generations_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    assert iam_main(["evolve", "--out", str(out), "--generations", "1", *TINY[:-1]]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("generation 1: mean piece values pawn ")
    assert "evolve: start: generation 0/1" in captured.err and "evolve: generation 1/1 in " in captured.err
    assert iam_main(["evolve", "--out", str(out), "--generations", "2", "--resume", *TINY]) == 0
    assert capsys.readouterr().out.startswith("generation 2: ")
    assert (out / "generation_0002.json").is_file() and (out / "weights.png").is_file()


def test_the_square_scales_evolve_with_demes_that_do_not_wait(tmp_path, capsys):
    out = tmp_path / "run"
    assert iam_main(["evolve", "--out", str(out), "--generations", "1", "--genome", "squares", "--asynchronous",
                     *TINY]) == 0
    assert capsys.readouterr().out.startswith("generation 1: mean square scales pawn_squares_mg ")
    assert iam_main(["evolve", "--out", str(out), "--generations", "1", "--genome", "squares", "--resume",
                     *TINY]) == 2
    assert "other settings" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--demes", "3"], "--demes must be from 1 to 2"),
        (["--nodes", "0"], "--nodes must be at least 1"),
        (["--seed", "-1"], "--seed must be between 0 and"),
        (["--openings", "missing.epd"], "openings file not found"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--pawn", "0"], "--pawn must be a value within the bounds 1 to 3000"),
        (["--spread-floor", "2"], "--spread-floor must be a share from 0 to 1"),
        (["--genome", "squares", "--pawn", "100"], "--pawn must be unset with the squares genome"),
    ],
)
def test_bad_options_are_one_line_errors(flags, message, tmp_path, capsys):
    assert iam_main(["evolve", "--out", str(tmp_path / "run"), "--population", "4", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_folder_holding_a_run_needs_resume(tmp_path, capsys):
    out = tmp_path / "run"
    assert iam_main(["evolve", "--out", str(out), "--generations", "0", *TINY]) == 0
    assert iam_main(["evolve", "--out", str(out), "--generations", "0", *TINY]) == 2
    assert "holds a run already" in capsys.readouterr().err
