"""``iam inspect``: an IAM model's chunks (text, JSON, SVG), a ranker's summary, and its one-line refusals."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from iam.chunks.chunk import Chunk, from_pattern
from iam.cli import main
from iam.cli.inspect import chunk_diagram, chunk_svg
from iam.models.words import feature_words
from iam.ranker.strongest import HEADING

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny.pgn"


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    """Tester's IAM model, and a move ranker of him reading the move family alone (no chunks inside)."""
    folder = tmp_path_factory.mktemp("inspect")
    paths = {"iam": folder / "iam.json", "ranker": folder / "ranker.json.gz"}
    common = [str(TINY), "--player", "Tester", "--quiet"]
    assert main(["train", "--predictor", "iam", *common, "-o", str(paths["iam"])]) == 0
    ranker = ["--families", "move", "--train-positions", "50", "--search-depth", "1"]
    assert main(["train", *common, *ranker, "-o", str(paths["ranker"])]) == 0
    return paths


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["inspect", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_json_of_an_iam_model_lists_its_stored_chunks_in_the_files_order(models, capsys):
    code, out, err = _run(capsys, str(models["iam"]), "--json", "--top", "3")
    assert code == 0 and err == ""
    summary = json.loads(out)
    assert summary["player"] == "Tester, Tom" and summary["games"] == 5 and summary["positions"] == 18
    chunks = summary["top_chunks"]
    assert [chunk["rank"] for chunk in chunks] == [1, 2, 3] and summary["chunks"]["stored"] >= 3
    for chunk in chunks:
        assert Chunk(from_pattern(chunk["pattern"])).pattern == chunk["pattern"]
        assert chunk["size"] == sum(letter != "." for letter in chunk["pattern"].replace("/", ""))
        assert chunk["games"] >= 2 and chunk["formed_games"] >= 2  # the training filters' defaults
        assert chunk["occurrences"] >= chunk["games"] >= chunk["won_games"] + chunk["lost_games"]
        assert chunk["diagram"] == chunk_diagram(Chunk(from_pattern(chunk["pattern"])))
    everything = json.loads(_run(capsys, str(models["iam"]), "--json", "--top", "1000")[1])["top_chunks"]
    assert len(everything) == summary["chunks"]["stored"] and everything[:3] == chunks


def test_the_text_says_what_the_json_says(models, capsys):
    summary = json.loads(_run(capsys, str(models["iam"]), "--json", "--top", "2")[1])
    code, out, _ = _run(capsys, str(models["iam"]), "--top", "2")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == f"model of Tester, Tom: 5 games, 18 positions, belief {summary['belief']}"
    assert lines[1] == (f"chunks stored: {summary['chunks']['stored']} (of {summary['chunks']['distinct']} distinct); "
                        f"rote sequences: {summary['rote_sequences']}")
    first = summary["top_chunks"][0]
    assert f"#1 {first['pattern']}  {first['size']} pieces, {first['occurrences']} occurrences" in out
    assert "#2 " in out and "#3 " not in out


def test_svg_boards_are_drawn_one_per_listed_chunk(models, tmp_path, capsys):
    folder = tmp_path / "boards"
    code, out, _ = _run(capsys, str(models["iam"]), "--top", "2", "--svg", str(folder))
    assert code == 0 and out.rstrip().endswith(f"SVG boards written to {folder}/")
    assert sorted(path.name for path in folder.iterdir()) == ["chunk-1.svg", "chunk-2.svg"]
    assert ElementTree.parse(folder / "chunk-1.svg").getroot().tag.endswith("svg")


def test_the_diagram_and_the_board_of_a_chunk():
    """Far row on top, one space between squares; the SVG draws each of the chunk's pieces."""
    chunk = Chunk(from_pattern(".N/PP"))
    assert chunk_diagram(chunk) == "  . N\n  P P"
    svg = chunk_svg(chunk)
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    assert svg.count('xlink:href="#white-pawn"') == 2 and svg.count('xlink:href="#white-knight"') == 1


def test_a_ranker_without_habits_is_summarised_and_has_no_chunks(models, capsys):
    code, out, _ = _run(capsys, str(models["ranker"]), "--json", "--top", "4")
    assert code == 0
    ranker = json.loads(out)["ranker"]
    assert ranker["player"] == "Tester, Tom" and ranker["training_positions"] == 18
    assert ranker["families"] == [{"family": "move", "words": "the move itself"}]
    assert ranker["search_depth"] == 1 and ranker["opening_memory"] is None
    strongest = ranker["strongest_evidence"]
    assert len(strongest) == 4 and all(entry["words"] == feature_words(entry["feature"]) for entry in strongest)
    effects = [abs(entry["effect"]) for entry in strongest]
    assert effects == sorted(effects, reverse=True)
    assert all(entry["effect"] * entry["weight"] >= 0 for entry in strongest)  # the effect is weight x spread
    code, out, _ = _run(capsys, str(models["ranker"]), "--top", "4")
    assert code == 0 and out.startswith("move ranker of Tester, Tom: trained on 5 games, 18 positions")
    assert "evidence: the move itself (move)" in out
    assert out.rstrip().endswith("no chunks: the model has no habits family (no IAM model inside)")
    assert sum(line.startswith("  ") for line in out.splitlines()) == 4


@pytest.mark.parametrize("argv, message", [(["--top", "0"], "--top must be at least 1")])
def test_a_bad_top_is_one_line(models, capsys, argv, message):
    code, out, err = _run(capsys, str(models["iam"]), *argv)
    assert code == 2 and out == "" and err == f"iam: error: {message}\n"


def test_a_missing_or_foreign_model_file_is_one_line(tmp_path, capsys):
    code, _, err = _run(capsys, str(tmp_path / "gone.json"))
    assert code == 2 and err == f"iam: error: model file not found: {tmp_path / 'gone.json'}\n"
    pgn = tmp_path / "games.json"
    pgn.write_text(TINY.read_text())
    code, _, err = _run(capsys, str(pgn))
    assert code == 2 and err.startswith("iam: error: ") and err.count("\n") == 1 and str(pgn) in err


def test_his_repertoire_is_shown_from_his_opening_memory(models, capsys):
    """Tester played 1. e4 in both his usable games as White from the start, and 1... Nf6 against 1. d4 in both as
    Black: what two games make the opening memory keep."""
    code, out, _ = _run(capsys, str(models["iam"]), "--top", "1")
    lines = out.splitlines()
    assert code == 0 and lines[2:5] == [
        "his repertoire (from his opening memory):", "  as White: 1. e4 (2 games)",
        "  as Black after 1. d4: 1... Nf6 (2 games)",
    ]
    repertoire = json.loads(_run(capsys, str(models["iam"]), "--json")[1])["repertoire"]
    assert repertoire == {
        "white": [{"move": "1. e4", "games": 2}],
        "black": [{"after": "1. d4", "replies": [{"move": "1... Nf6", "games": 2}]}],
    }
    code, out, _ = _run(capsys, str(models["ranker"]))
    assert "his repertoire: unknown (the model has no opening memory: no habits family)" in out.splitlines()
    assert json.loads(_run(capsys, str(models["ranker"]), "--json")[1])["repertoire"] is None


def test_train_and_inspect_print_the_same_strongest_evidence(tmp_path, capsys):
    path = tmp_path / "ranker.json.gz"
    argv = ["train", str(TINY), "--player", "Tester", "--families", "move,habits", "--train-positions", "50",
            "--search-depth", "1", "-o", str(path), "--quiet"]
    assert main(argv) == 0
    trained = capsys.readouterr().out.splitlines()
    code, out, _ = _run(capsys, str(path))
    inspected = out.splitlines()

    def strongest(lines: list[str]) -> list[str]:
        start = lines.index(HEADING) + 1
        return list(itertools.takewhile(lambda line: line.startswith("  "), lines[start:]))

    assert code == 0 and strongest(trained) == strongest(inspected)
    assert len(strongest(trained)) == 10
    assert all(re.fullmatch(r"  (drawn to|avoids): [^_]+ \([+-]\d+\.\d\d\)", line) for line in strongest(trained))
    ranker = json.loads(_run(capsys, str(path), "--json")[1])["ranker"]
    for line, entry in zip(strongest(trained), ranker["strongest_evidence"]):
        assert line.startswith("  drawn to: " if entry["effect"] > 0 else "  avoids: ")
