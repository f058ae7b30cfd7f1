"""Boards for the page: python-chess's ``chess.svg`` drawings, the parts every board shares written once.

Each board is ``chess.svg.board`` of its position without its ``<desc>`` (a text copy of
the board), its ``<defs>`` (the pieces' drawings) and its plain squares (those not marking
the last move or a check): :func:`piece_defs` writes the pieces' drawings and the plain
board, seen from either side, once, in a hidden ``<svg>`` that every board refers to, so
a page of hundreds of positions stays small.
"""

from __future__ import annotations

import re

import chess
import chess.svg

__all__ = ["board_svg", "piece_defs", "Arrow"]

Arrow = chess.svg.Arrow

_ALL_PIECES = "rnbqkp2/8/8/8/8/8/8/RNBQKP2 w - - 0 1"
"""A position holding one of each piece (for :func:`piece_defs`)."""
_PLAIN_SQUARE = re.compile(
    rf'<rect [^>]*class="square (?:light|dark) [a-h][1-8]" stroke="none" '
    rf'fill="(?:{chess.svg.DEFAULT_COLORS["square light"]}|{chess.svg.DEFAULT_COLORS["square dark"]})" />'
)
_EMPTY = "8/8/8/8/8/8/8/8 w - - 0 1"


def board_svg(
    board: chess.Board, *, flipped: bool = False, lastmove: chess.Move | None = None, arrows: list[Arrow] | None = None,
    size: int = 360,
) -> str:
    """``chess.svg.board`` of ``board`` (Black at the bottom when ``flipped``) without its pieces' drawings.

    >>> svg = board_svg(chess.Board())
    >>> "<defs>" in svg, svg.count("<use "), "#white-king" in svg, "#squares-white" in svg, "<rect" in svg
    (False, 33, True, True, False)
    """
    svg = chess.svg.board(board, orientation=not flipped, lastmove=lastmove, arrows=arrows or [], size=size,
                          check=board.king(board.turn) if board.is_check() else None, coordinates=False)
    svg = re.sub(r"<desc>.*?</desc>", "", svg, flags=re.S)
    svg = re.sub(r"<defs>.*?</defs>", "", svg, flags=re.S)
    svg = re.sub(r' xlink:href="[^"]*"', "", svg)
    start = svg.index(">") + 1
    plain = f'<use href="#squares-{"black" if flipped else "white"}" />'
    return svg[:start] + plain + _PLAIN_SQUARE.sub("", svg[start:])


def piece_defs() -> str:
    """A hidden ``<svg>`` holding the drawings of the twelve pieces, as ``chess.svg`` names them.

    >>> defs = piece_defs()
    >>> all(f'id="{color}-{name}"' in defs for color in ("white", "black") for name in chess.PIECE_NAMES[1:])
    True
    >>> defs.count("<rect"), 'id="check_gradient"' in defs
    (128, True)
    """
    svg = chess.svg.board(chess.Board(_ALL_PIECES), check=chess.E1)
    found = re.search(r"<defs>(.*?)</defs>", svg, flags=re.S)
    assert found is not None, "chess.svg draws its pieces in <defs>"
    squares = [
        f'<g id="squares-{name}">'
        + "".join(_PLAIN_SQUARE.findall(chess.svg.board(chess.Board(_EMPTY), orientation=side, coordinates=False)))
        + "</g>"
        for side, name in ((chess.WHITE, "white"), (chess.BLACK, "black"))
    ]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute" aria-hidden="true">'
        f"<defs>{found.group(1)}{''.join(squares)}</defs></svg>"
    )
