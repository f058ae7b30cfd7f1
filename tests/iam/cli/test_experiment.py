"""``iam experiment NAME``: the registry of experiments, and what the dispatcher prints, writes and refuses.

The node-count experiment at depth 1 stands for any experiment: it needs no games and
takes a moment.
"""

from __future__ import annotations

import json

import pytest

from iam.cli import build_parser, main
from iam.cli.experiment import EXPERIMENTS, experiments

QUICK = ["experiment", "node-counts", "--max-depth", "1"]


def test_every_registered_module_is_an_experiment_under_its_own_name():
    """One experiment per module, each with the parts the dispatcher calls; names are spelt with hyphens."""
    registry = experiments()
    assert len(registry) == len(EXPERIMENTS) == len(set(EXPERIMENTS))
    assert sorted(registry) == sorted(name.rsplit(".", 1)[-1].replace("_", "-") for name in EXPERIMENTS)
    for name, module in registry.items():
        assert module.NAME == name and isinstance(module.HELP, str) and module.HELP
        assert all(callable(getattr(module, part)) for part in ("add_arguments", "config", "run"))


def test_each_experiment_takes_the_common_options():
    parser = build_parser()
    for name in experiments():
        args = parser.parse_args(["experiment", name, "--seed", "3", "--jobs", "1", "--json", "--out", "x", "-q"])
        assert (args.experiment, args.seed, args.jobs, args.json, args.out, args.quiet) == (name, 3, 1, True, "x", True)
        assert args.experiment_module is experiments()[name]


def test_json_on_stdout_and_the_files_written_with_a_count_on_stderr(tmp_path, capsys):
    folder = tmp_path / "nodes"
    assert main([*QUICK, "--json", "--out", str(folder)]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    written = sorted(path.name for path in folder.iterdir())
    assert f"wrote {len(written)} files to {folder}" in captured.err
    assert "results.json" in written and "summary.md" in written
    assert any(name.endswith(".csv") for name in written) and any(name.endswith(".png") for name in written)
    assert json.loads((folder / "results.json").read_text()) == payload
    second = tmp_path / "again"
    assert main([*QUICK, "--quiet", "--out", str(second)]) == 0  # without --json: the markdown summary it writes
    captured = capsys.readouterr()
    assert captured.out.rstrip("\n") == (second / "summary.md").read_text().rstrip("\n") and captured.err == ""


def test_an_output_that_is_a_file_fails_before_the_work(tmp_path, capsys, monkeypatch):
    import experiments.node_counts

    def never(*args, **kwargs):
        raise AssertionError("the experiment ran")

    monkeypatch.setattr(experiments.node_counts, "run", never)
    blocker = tmp_path / "taken"
    blocker.write_text("a file")
    code = main([*QUICK, "--out", str(blocker), "--quiet"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.startswith("iam: error: ")
    assert captured.err.count("\n") == 1 and str(blocker) in captured.err


def test_a_negative_seed_is_one_line(capsys):
    code = main([*QUICK, "--seed", "-1", "--quiet"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.startswith("iam: error: ")
    assert captured.err.count("\n") == 1 and "--seed" in captured.err


@pytest.mark.parametrize("argv", [["experiment"], ["experiment", "no-such-experiment"]])
def test_a_missing_or_unknown_experiment_is_a_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "usage: iam experiment" in capsys.readouterr().err
