"""The page a player opens, read as HTML and driven in a real browser (Debian's chromium through Playwright):
the summary on top, a click shows a position's board and his reply probabilities, screenshots of three dossiers
(two bundled masters and a Lichess export), offline and in print."""

from __future__ import annotations

import random
import re
from pathlib import Path

import chess
import numpy as np
import pytest
from matplotlib.image import imread

from iam.games.pgn import PlayerGame
from iam.games.player_games import read_games
from iam.prepare.dossier import BeliefSettings, PrepareConfig, prepare
from iam.prepare.lines import LineSettings
from iam.prepare.page import drill_data, first_moves, page_html, summary_line
from iam.prepare.page_tree import side_tree
from iam.prepare.scoring import SearchScorer

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
LIGHT, DARK = (0xFF, 0xCE, 0x9E), (0xD1, 0x8B, 0x47)  # python-chess's squares
SUMMARY = (0x23, 0x30, 0x41)  # the summary's background (page.css)


class Uniform:
    """Every legal move alike: his beliefs are then his games' where he has been (a tiny model, fast)."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        moves = list(board.legal_moves)
        return {move: 1 / len(moves) for move in moves}


def _dossier(games: list[PlayerGame], player: str, plies: int = 6):
    config = PrepareConfig(
        player, lines=LineSettings(plies=plies), beliefs=BeliefSettings(population_strength=None), quiet=True
    )
    return prepare(games, Uniform(), config, scorer=SearchScorer(1), model_name="every legal move alike")


LICHESS_OPENINGS = {
    chess.WHITE: ["e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6", "e4 e6 d4 d5 Nc3 Bb4",
                  "e4 c6 d4 d5 e5 Bf5"],
    chess.BLACK: ["e4 c5 Nf3 d6 d4 cxd4", "d4 Nf6 c4 g6 Nc3 Bg7", "e4 c5 Nc3 Nc6 g3 g6", "Nf3 d5 g3 Nf6"],
}


def lichess_export(path: Path, player: str = "chesspal77", games: int = 48) -> Path:
    """A PGN as Lichess exports a player's blitz games: its headers, his few openings, seeded."""
    rng = random.Random(7)
    out = []
    for number in range(games):
        color = chess.WHITE if number % 2 == 0 else chess.BLACK
        board = chess.Board()
        for san in rng.choice(LICHESS_OPENINGS[color]).split()[: rng.choice((4, 6, 8))]:
            board.push_san(san)
        moves = chess.Board().variation_san(board.move_stack)
        result = rng.choice(("1-0", "0-1", "1/2-1/2"))
        opponent = f"rival{rng.randrange(1000)}"
        white, black = (player, opponent) if color == chess.WHITE else (opponent, player)
        site = "".join(rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
        tags = {
            "Event": "Rated Blitz game", "Site": f"https://lichess.org/{site}", "Date": f"2026.{1 + number % 9:02d}.15",
            "White": white, "Black": black, "Result": result, "UTCDate": f"2026.{1 + number % 9:02d}.15",
            "UTCTime": "20:14:05", "WhiteElo": str(1800 + rng.randrange(200)),
            "BlackElo": str(1800 + rng.randrange(200)),
            "Variant": "Standard", "TimeControl": "180+0", "ECO": "B20", "Termination": "Normal",
        }
        out.append("\n".join(f'[{key} "{value}"]' for key, value in tags.items()) + f"\n\n{moves} {result}\n")
    path.write_text("\n".join(out), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def dossiers(bundled_master, tmp_path_factory):
    """Dossiers of two bundled masters (their bundled files' games, read once per run) and of a Lichess export."""
    folder = tmp_path_factory.mktemp("pages")
    lichess, _ = read_games([lichess_export(folder / "lichess_chesspal77.pgn")], player="chesspal77", quiet=True)
    return {
        "Capablanca": _dossier(bundled_master("Capablanca"), "Capablanca"),
        "Lasker": _dossier(bundled_master("Lasker"), "Lasker"),
        "chesspal77": _dossier(lichess, "chesspal77", plies=8),
    }


@pytest.fixture(scope="module")
def pages(dossiers, tmp_path_factory):
    folder = tmp_path_factory.mktemp("html")
    found = {}
    for name, dossier in dossiers.items():
        found[name] = folder / f"{name}.html"
        found[name].write_text(page_html(dossier, ["How the beliefs were formed."]), encoding="utf-8")
    return found


def test_every_row_and_node_has_its_board_and_data(dossiers, pages):
    text = pages["Capablanca"].read_text(encoding="utf-8")
    trees = [side_tree(side) for side in dossiers["Capablanca"].sides]
    for index, tree in enumerate(trees):
        assert text.count(f"<template id='b{index}-") == len(tree.nodes)
        keys = {int(key) for key in re.findall(rf"data-side='{index}' data-node='(\d+)'", text)}
        assert keys <= {node.key for node in tree.nodes} and len(keys) > 20
    # The boards share the pieces' drawings and the squares: a page of hundreds of boards stays small.
    assert text.count('id="white-king"') == 1 and len(text) / sum(len(tree.nodes) for tree in trees) < 6000
    assert "(predicted position)" not in text and "Judge:" in text
    # A move of his that none of his games played there is marked as the model's.
    rows = [item.split("<ul>")[0] for item in text.split("<li>")[1:]]
    his = [row for row in rows if "class='p'" in row]
    assert his and all(("class='g'" in row) != ("class='tag'>model<" in row) for row in his)


def test_every_node_of_the_tree_carries_the_judges_value(dossiers, pages):
    """His positions off the prepared lines as well as on them: the value the dossier holds for the position."""
    for name, dossier in dossiers.items():
        for side in dossier.sides:
            tree = side_tree(side)
            assert all(node.value is not None for node in tree.nodes), name
            off = [node for node in tree.nodes if node.expected is None]
            assert off and all(node.value == side.values[chess.Board(node.fen).epd()] for node in off)
    text = pages["Lasker"].read_text(encoding="utf-8")
    rows = [item.split("<ul>")[0] for item in text.split("<li>") if item.startswith("<button type='button' class='mv'")]
    assert len(rows) > 20 and all("class='v" in row for row in rows)


def test_the_summary_names_our_first_moves_and_the_likeliest_line(dossiers):
    dossier = dossiers["chesspal77"]
    white, black = dossier.sides
    # With White he opened 1. e4 in every game; with Black he met whatever came with his few openings.
    assert first_moves(white).startswith("against 1. e4 (") and "play 1..." in first_moves(white)
    assert first_moves(black).startswith("open 1. ")
    line = summary_line(white)
    assert line is not None and line.main and line.probability == max(
        other.probability for other in white.plan.lines if other.main
    )


try:
    from playwright import sync_api as playwright
except ImportError:  # the browser tests skip; the page's HTML is still tested above
    playwright = None
needs_chromium = pytest.mark.skipif(
    playwright is None or not CHROMIUM.exists(), reason="playwright (pip) or Debian's chromium is not installed"
)


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def _open(browser, path: Path):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.errors, page.requests = [], []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("request", lambda request: page.requests.append(request.url))
    page.goto(path.as_uri())
    return page


def _pixels(shot: Path) -> np.ndarray:
    return (imread(shot)[..., :3] * 255).round().astype(int)


def _share(pixels: np.ndarray, color: tuple[int, int, int]) -> int:
    return int(np.all(np.abs(pixels - color) <= 2, axis=-1).sum())


@pytest.mark.slow
@needs_chromium
def test_clicking_a_move_shows_its_board_and_his_probabilities(browser, pages):
    page = _open(browser, pages["Capablanca"])
    panel = page.locator("#panel0")
    before_board = panel.locator(".board").inner_html()
    before_replies = panel.locator("table.replies").inner_text()
    assert "start position" in panel.locator(".where").inner_text() and "%" in before_replies
    # A move of the tree after which he is to move again (not the start): his replies there.
    index = page.evaluate(
        "(() => { const nodes = JSON.parse(document.getElementById('nodes').textContent)[0];"
        " return [...document.querySelectorAll('#side0 ul.tree button.mv')]"
        ".findIndex(b => b.dataset.node !== '0' && nodes[Number(b.dataset.node)].his); })()"
    )
    move = page.locator("#side0 ul.tree button.mv").nth(index)
    node = move.get_attribute("data-node")
    move.click()
    after_board = panel.locator(".board").inner_html()
    assert after_board != before_board
    # The board shown is the node's own, python-chess's drawing of its position.
    template = page.evaluate(f"document.getElementById('b0-{node}').innerHTML")
    assert after_board == template and after_board.count("<use") > 20
    after_replies = panel.locator("table.replies").inner_text()
    assert after_replies != before_replies
    # The table lists the node's replies, his probability of each at his move (rounded as the page rounds).
    data = page.evaluate(f"JSON.parse(document.getElementById('nodes').textContent)[0][{node}]")
    rows = [row.split("\t") for row in after_replies.strip().splitlines()[1:]]
    assert [row[0] for row in rows][: len(data["replies"])] == [reply["san"] for reply in data["replies"]]
    assert data["his"] and all(reply["belief"] is not None for reply in data["replies"])
    for row, reply in zip(rows, data["replies"]):
        if reply["belief"] is not None:
            shown = f"{reply['belief']:.1%}" if reply["belief"] < 0.1 else f"{reply['belief']:.0%}"
            assert row[1].strip() == shown, (row, reply)
    assert "on" in (move.get_attribute("class") or "")
    assert page.errors == [] and all(url.startswith(("file:", "data:")) for url in page.requests), page.requests
    page.close()


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("name", ["Capablanca", "Lasker", "chesspal77"])
def test_screenshot_summary_on_top_and_boards_drawn(browser, pages, name, tmp_path):
    page = _open(browser, pages[name])
    box = page.locator("header#summary").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900 and box["width"] <= 1300
    assert page.locator("header#summary ul.play li").count() == 2
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot))
    pixels = _pixels(shot)
    top = pixels[int(box["y"]):int(box["y"] + box["height"]), int(box["x"]):int(box["x"] + box["width"])]
    assert _share(top, SUMMARY) > 0.4 * top.shape[0] * top.shape[1]  # the summary's band, drawn
    text = np.abs(top - SUMMARY).sum(axis=-1) > 200  # its words, far from the band's colour
    assert text.sum() > 5000
    board = page.locator("#panel0 .board").bounding_box()
    assert board is not None and board["y"] + board["height"] <= 900  # the first board in view too
    assert _share(pixels, LIGHT) > 20_000 and _share(pixels, DARK) > 20_000
    before = pixels[int(board["y"]):int(board["y"] + board["height"]), int(board["x"]):int(board["x"] + board["width"])]
    page.locator("#side0 ul.tree button.mv").nth(1).click()
    page.screenshot(path=str(shot))
    pixels = _pixels(shot)
    after = pixels[int(board["y"]):int(board["y"] + board["height"]), int(board["x"]):int(board["x"] + board["width"])]
    assert np.abs(after - before).sum(axis=-1).astype(bool).sum() > 500  # a piece moved on the board
    assert page.errors == []
    page.close()


@pytest.mark.slow
@needs_chromium
def test_the_page_prints_its_tree_without_the_panel(browser, pages, tmp_path):
    page = _open(browser, pages["chesspal77"])
    page.emulate_media(media="print")
    assert not page.locator("#panel0").is_visible()
    assert page.evaluate("getComputedStyle(document.querySelector('nav.treebox')).overflow") == "visible"
    # The summary prints dark on white, every word of it.
    colors = page.evaluate("[...document.querySelectorAll('header#summary *')].map(e => getComputedStyle(e).color)")
    assert set(colors) == {"rgb(0, 0, 0)"}
    pdf = page.pdf(path=str(tmp_path / "dossier.pdf"))
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    page.close()


def test_the_drill_walks_the_prepared_lines_by_page_node(dossiers):
    """At our nodes the drill holds our prepared moves (the chosen one first) and every legal move; at his, his
    followed replies with his beliefs; every move leads to a node the drill holds or a line's end."""
    side = dossiers["Capablanca"].sides[1]  # he has Black: our move at the start
    tree = side_tree(side)
    nodes = drill_data(side, tree)
    root = nodes[0]
    assert root["our"] and root["moves"][0][0] == side.plan.root.choice
    assert {move[0] for move in root["moves"]} == set(side.plan.root.prepared())
    assert len(root["legal"]) == 20 and root["legal"]["g1f3"] == "Nf3"
    his = [entry for entry in nodes.values() if not entry["our"] and entry["moves"]]
    assert his and all(0 < move[3] <= 1 for entry in his for move in entry["moves"])
    keys = {node.key for node in tree.nodes}
    assert all(move[2] in keys for entry in nodes.values() for move in entry["moves"])


@pytest.mark.slow
@needs_chromium
def test_the_drill_shows_the_prepared_move_after_a_wrong_one(browser, pages, dossiers):
    page = _open(browser, pages["Capablanca"])
    drill = page.locator("#drill1")  # he has Black: we move first
    drill.locator("button.start").click()
    assert drill.get_attribute("data-state") == "ours" and "Your move" in drill.locator(".status").inner_text()
    side = dossiers["Capablanca"].sides[1]
    board = chess.Board()
    prepared = side.plan.root.prepared()
    wrong = next(move for move in board.legal_moves if move.uci() not in prepared)
    chosen_san = board.san(chess.Move.from_uci(prepared[0]))
    # Click the piece, then its square (White at the bottom: a1 at the lower left).
    drill.locator(".board svg").scroll_into_view_if_needed()
    box = drill.locator(".board svg").bounding_box()
    for square in (wrong.from_square, wrong.to_square):
        x = box["x"] + (chess.square_file(square) + 0.5) * box["width"] / 8
        y = box["y"] + (7.5 - chess.square_rank(square)) * box["height"] / 8
        page.mouse.click(x, y)
    status = drill.locator(".status").inner_text()
    assert f"{board.san(wrong)} is not prepared; the prepared move is {chosen_san}." in status
    assert drill.locator(".moves").inner_text().split()[0] == chosen_san
    assert "0 of 1 moves right" in drill.locator(".score").inner_text()
    # A prepared move typed is right.
    if drill.get_attribute("data-state") == "ours":
        node = page.evaluate("JSON.parse(document.getElementById('drill').textContent)[1]")["nodes"]
        played = drill.locator(".moves").inner_text().split()
        key = 0
        for san in played:
            key = next(move[2] for move in node[str(key)]["moves"] if move[1] == san)
        drill.locator("input.typed").fill(node[str(key)]["moves"][0][1])
        drill.locator("input.typed").press("Enter")
        assert "Right:" in drill.locator(".status").inner_text()
        assert "1 of 2 moves right" in drill.locator(".score").inner_text()
    assert page.errors == []
    page.close()
