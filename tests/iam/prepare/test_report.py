"""The dossier's outputs: HTML that needs nothing outside itself (and renders in a real browser), markdown, JSON,
PGN."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from dataclasses import replace

import chess
import chess.pgn
import numpy as np
import pytest
from matplotlib.image import imread

from iam.prepare.dossier import BeliefSettings, PrepareConfig, prepare
from iam.prepare.lines import LineSettings
from iam.prepare.page_tree import side_tree
from iam.prepare.report import to_dict, to_html, to_markdown, to_pgn

from .stubs import StubPredictor, StubScorer
from .test_habits import GAMES

BELIEFS = {("e2e4",): {"f7f6": 0.7, "e7e5": 0.3}, ("d2d4",): {"d7d5": 1.0}}
SCORES = {(): {"e2e4": 30, "d2d4": 10}, ("e2e4",): {"e7e5": 20, "f7f6": -90}}


@pytest.fixture(scope="module")
def dossier():
    # The stub's beliefs, updated by his games only (not by the bundled masters' book).
    config = PrepareConfig(
        "X", colors=("black",), lines=LineSettings(plies=2),
        beliefs=BeliefSettings(prior_strength=2.0, population_strength=None), quiet=True,
    )
    return prepare(GAMES, StubPredictor(BELIEFS), config, scorer=StubScorer(SCORES), model_name="a stub")


def test_markdown_and_json_hold_the_same_tables(dossier):
    data = to_dict(dossier)
    side = data["sides"][0]
    assert side["color"] == "black" and side["games"] == 4
    # 1. e4 and 1. d4 are worth 0 alike (the positions at ply 2 are unscored): e4, which his opponents played
    # most, is chosen, d4 prepared as an alternative. After 1. e4 his two games with f6 and one with e5
    # update the model's 0.7 / 0.3 two games strong: f6 (2 + 2 * 0.7) / 5.
    assert [(line["moves"], line["main"]) for line in side["lines"]] == [
        (["e2e4", "f7f6"], True), (["e2e4", "e7e5"], True), (["d2d4", "d7d5"], False),
    ]
    assert side["lines"][0]["probability"] == pytest.approx(0.68)
    assert side["habits"][0]["usual_san"] == "f6" and side["habits"][0]["cost"] == 110
    assert json.loads(json.dumps(data))["judged_by"] == "stub scores"
    text = to_markdown(dossier)
    assert (
        "| 1. e4 f6 | 68.0% |" in text
        and "| 1. d4 d5 (an alternative of ours) | 100.0% |" in text
        and "stub scores" in text
    )


def test_the_json_repertoire_believes_his_moves_as_the_page_does(dossier):
    """Each of his moves in dossier.json's repertoire carries the dossier's belief (the model updated by his games,
    his sidelines floored), the one the page and the lines read, and each row the judge's value after it."""
    (side,) = dossier.sides
    rows = to_dict(dossier)["sides"][0]["repertoire"]
    his = [row for row in rows if row["his_move"]]
    assert his and all(row["belief"] is None for row in rows if not row["his_move"])
    for row in his:
        believed = side.beliefs.predict_proba(chess.Board(row["fen"]))
        assert row["belief"] == believed.get(chess.Move.from_uci(row["move"]), 0.0)
    f6 = next(row for row in his if row["san"] == "f6")
    assert f6["belief"] == pytest.approx(0.68) and f6["games"] == 2  # not his 2 of 3 games, not the model's 0.7
    tree = side_tree(side)
    for row in rows:
        board = chess.Board(row["fen"])
        board.push_uci(row["move"])
        node = tree.find(board.fen())
        if node is not None:
            assert row["value_cp"] == node.value


def test_without_a_judge_of_habits_the_outputs_say_so(dossier):
    (side,) = dossier.sides
    unjudged = replace(dossier, sides=[replace(side, habits=[], habits_judged=False)])
    assert "(not judged: the toolkit's own search" in to_markdown(unjudged)
    assert "--engine stockfish" in to_markdown(unjudged) and "--engine stockfish" in to_html(unjudged)
    assert to_dict(unjudged)["sides"][0]["habits_judged"] is False and to_dict(dossier)["sides"][0]["habits_judged"]
    assert "not judged" not in to_markdown(dossier)


@pytest.mark.parametrize(("agreed", "said"), [((4, 6), True), ((5, 6), False), (None, False)])
def test_a_first_move_checked_below_the_target_is_said_to_be_a_weaker_judges(dossier, agreed, said):
    (side,) = dossier.sides
    checked = replace(dossier, sides=[replace(side, first_move_agreement=agreed)])
    note = "What to play first when he has Black: a weaker judge than an engine"
    assert (note in to_markdown(checked)) is said and (note in to_html(checked)) is said
    if said:
        assert "its first move was Stockfish's for 4 of 6" in to_markdown(checked)


def test_pgn_lines_replay_with_comments(dossier):
    stream = io.StringIO(to_pgn(dossier))
    games = [chess.pgn.read_game(stream) for _ in range(4)]
    assert [[m.uci() for m in g.mainline_moves()] for g in games] == [
        ["e2e4", "f7f6"], ["e2e4", "e7e5"], ["d2d4", "d7d5"], ["e2e4", "e7e5"]
    ]
    assert "68.0%" in games[0].end().comment and "alternative" in games[2].end().comment
    assert "engine main line" in games[3].end().comment


def test_html_needs_nothing_outside_itself(dossier):
    page = to_html(dossier)
    assert page.count("<svg") >= 2
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", page)
    assert all(link.startswith("#") for link in links), links
    assert "@import" not in page and "url(" not in page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_page_renders_its_boards_in_a_headless_browser(dossier, tmp_path):
    page = tmp_path / "dossier.html"
    page.write_text(to_html(dossier), encoding="utf-8")
    shot = tmp_path / "shot.png"
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,2400",
        f"--screenshot={shot}", page.as_uri(),
    ]
    subprocess.run(command, capture_output=True, timeout=60, check=False)
    assert shot.exists(), "chromium wrote no screenshot"
    pixels = (imread(shot)[..., :3] * 255).round().astype(int)
    light = np.all(np.abs(pixels - [0xFF, 0xCE, 0x9E]) <= 2, axis=-1)  # python-chess's light squares
    dark = np.all(np.abs(pixels - [0xD1, 0x8B, 0x47]) <= 2, axis=-1)  # and dark squares
    assert light.sum() > 5000 and dark.sum() > 5000


def test_the_report_says_what_updated_the_beliefs(dossier):
    alone = to_markdown(dossier)
    assert "updated by his games where he has been (the belief before them counting as 2 games)" in alone
    assert "bundled masters" not in alone
    config = PrepareConfig(
        "X", colors=("black",), lines=LineSettings(plies=2),
        beliefs=BeliefSettings(prior_strength=2.0, population_strength=3.0), quiet=True,
    )
    both = to_markdown(prepare(GAMES, StubPredictor(BELIEFS), config, scorer=StubScorer(SCORES), model_name="a stub"))
    assert ("updated by what the bundled masters chose in the position (the model's belief counting as 3 games) "
            "and then by his games where he has been") in both


def test_the_markdown_opens_with_the_summary_and_its_tree_gives_his_probabilities(dossier):
    text = to_markdown(dossier)
    summary = [line for line in text.splitlines() if line.startswith("- He has Black")]
    # He has Black: we open 1. e4 (his games and the stub), he most likely answers 1... f6 (68%).
    assert summary and summary[0].startswith("- He has Black (4 games): open 1. e4 (he answers 1... f6 68%")
    assert "the line he most likely follows: 1. e4 f6 · he follows it with probability 68%" in summary[0]
    tree = text.split("### His repertoire")[1].split("###")[0]
    # A move of one game shows where the prepared lines go (1... e5 answers 1. e4, 1. d4 is our alternative).
    assert tree.strip().splitlines() == [
        "- 1. e4: 3 games, prepared, judge -0.20", "  - 1... f6: his 68%, 2 games, judge +0.00",
        "  - 1... e5: his 32%, 1 game, judge +0.00", "- 1. d4: 1 game, prepared alternative, judge +0.00",
        "  - 1... d5: his 100%, 1 game, judge +0.00",
    ]
    assert "(predicted position)" not in text
