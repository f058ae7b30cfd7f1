"""The node-count experiment end to end, small: depths 1-2, both positions."""

import json
import time

import chess
import pytest

from experiments import node_counts
from iam.cli import main as iam_main
from iam.cli.experiment import experiments


def _perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += _perft(board, depth - 1)
        board.pop()
    return total


@pytest.fixture(scope="module")
def payload(tmp_path_factory):
    out = tmp_path_factory.mktemp("node-counts")
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = iam_main(
            ["experiment", "node-counts", "--max-depth", "2", "--json", "--quiet", "--out", str(out)]
        )
    assert code == 0
    return json.loads(buffer.getvalue()), out


def test_registry_knows_node_counts():
    assert experiments()["node-counts"].run is node_counts.run


def test_rows_have_the_documented_fields(payload):
    data, _ = payload
    rows = data["rows"]
    assert len(rows) == 2 * len(node_counts.ALGORITHMS) * 2
    for row in rows:
        assert {"algorithm", "position", "depth", "nodes", "seconds", "value", "move"} <= set(row)
        assert row["nodes"] >= 1 and row["seconds"] >= 0
        board = chess.Board(node_counts.POSITIONS[row["position"]])
        assert chess.Move.from_uci(row["move"]) in board.legal_moves


def test_minimax_visits_the_whole_tree(payload):
    data, _ = payload
    for position, fen in node_counts.POSITIONS.items():
        for depth in (1, 2):
            (row,) = [
                r for r in data["rows"]
                if r["algorithm"] == "minimax" and r["position"] == position and r["depth"] == depth
            ]
            board = chess.Board(fen)
            assert row["nodes"] == sum(_perft(board, d) for d in range(depth + 1))


def test_pruning_saves_nodes_and_keeps_the_value(payload):
    data, _ = payload
    rows = {(r["algorithm"], r["position"], r["depth"]): r for r in data["rows"]}
    for position in node_counts.POSITIONS:
        minimax = rows[("minimax", position, 2)]
        for label in ("alpha-beta", "+ move ordering"):
            row = rows[(label, position, 2)]
            assert row["value"] == minimax["value"]
            assert row["nodes"] <= minimax["nodes"]
        assert rows[("+ move ordering", position, 2)]["nodes"] <= rows[("alpha-beta", position, 2)]["nodes"]


def test_out_folder_has_csv_json_markdown_and_plot(payload):
    data, out = payload
    names = sorted(p.name for p in out.iterdir())
    assert names == ["node_counts.csv", "node_counts.png", "results.json", "summary.md"]
    assert json.loads((out / "results.json").read_text())["rows"] == data["rows"]
    summary = (out / "summary.md").read_text()
    assert "| minimax" in summary and "depth 2" in summary


@pytest.mark.parametrize("algorithm", node_counts.ALGORITHMS, ids=lambda a: a.label)
def test_a_search_that_runs_out_of_its_budget_is_stopped_and_capped(algorithm):
    started = time.perf_counter()
    rows = node_counts.series(algorithm, "tactical", 3, time_cap=1e-9)
    assert time.perf_counter() - started < 5  # stopped, not run to the end
    assert [r["capped"] for r in rows] == [True, True, True]
    assert "ran out" in rows[0]["note"] and rows[0]["nodes"] is None
    assert "depth 1 was capped" in rows[1]["note"]


def test_a_cell_extrapolated_past_the_cap_is_not_started(monkeypatch):
    calls = []

    def fake_measure(algorithm, fen, depth, time_cap):
        calls.append(depth)
        return {"algorithm": algorithm.label, "depth": depth, "nodes": 10**depth,
                "qnodes": 0, "seconds": 10.0 ** (depth - 1), "value": 0, "move": "e2e4",
                "capped": False, "note": ""}

    monkeypatch.setattr(node_counts, "measure", fake_measure)
    rows = node_counts.series(node_counts.ALGORITHMS[0], "start", 4, time_cap=50)
    assert calls == [1, 2]  # depth 3 would take about 100 s
    assert [r["capped"] for r in rows] == [False, False, True, True]
    assert "estimated" in rows[2]["note"] and rows[2]["nodes"] is None


@pytest.mark.parametrize(
    "argv",
    [
        ["experiment", "node-counts", "--positions", "nowhere"],
        ["experiment", "node-counts", "--max-depth", "0"],
        ["experiment", "node-counts", "--time-cap", "0"],
    ],
)
def test_bad_options_are_one_line_errors(argv, capsys):
    assert iam_main(argv) == 2
    assert capsys.readouterr().err.startswith("iam: error:")
