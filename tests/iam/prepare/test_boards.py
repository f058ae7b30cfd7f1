"""The page's boards: python-chess's drawings with their shared parts written once, the same picture in a browser."""

from __future__ import annotations

import re

import chess
import chess.svg

from iam.prepare.boards import Arrow, board_svg, piece_defs


def test_a_board_keeps_its_pieces_and_marked_squares_and_refers_to_the_rest():
    board = chess.Board()
    for san in ("e4", "f5", "Qh5+"):
        board.push_san(san)
    svg = board_svg(board, lastmove=board.peek(), arrows=[Arrow(chess.E1, chess.E2)], flipped=True)
    drawn = chess.svg.board(board, lastmove=board.peek(), orientation=chess.BLACK, coordinates=False,
                            check=chess.E8, arrows=[Arrow(chess.E1, chess.E2)])
    # Every piece placed as chess.svg places it, and only the squares it marks (last move, check) drawn again.
    assert re.findall(r'<use href="(#[a-z-]+)" transform="([^"]+)"', svg) == re.findall(
        r'<use href="(#[a-z-]+)" xlink:href="[^"]+" transform="([^"]+)"', drawn
    )
    assert svg.count("lastmove") == 2 and 'fill="url(#check_gradient)"' in svg and svg.count("<line") == 1
    assert '<use href="#squares-black" />' in svg and svg.count('class="square ') == 2


def test_the_shared_parts_hold_every_piece_and_both_plain_boards():
    defs = piece_defs()
    for side in ("white", "black"):
        squares = re.search(rf'<g id="squares-{side}">(.*?)</g>', defs).group(1)
        assert squares.count("<rect") == 64 and "lastmove" not in squares
    white = re.search(r'<g id="squares-white">(.*?)</g>', defs).group(1)
    assert re.search(r'x="0" y="315" [^>]*class="square dark a1"', white)  # a1 bottom left from White's side
    black = re.search(r'<g id="squares-black">(.*?)</g>', defs).group(1)
    assert re.search(r'x="315" y="0" [^>]*class="square dark a1"', black)  # top right from Black's side
