"""Source note 001's "Convolution Example", checked with the project's vectorised code matrix.

Reading the slides
------------------
The example is an animation of eight slides. Each shows the board X (a picture,
lost in the text of the source note), the template in use and the code matrix Y as 24
numbers. Numbers printed on one text line (``196 32``, ``202 208 50``, ``130 158``)
are neighbours in one row, so Y is a window of 4 rows x 6 columns, read row by row,
top row first. As in the templates' drawing, up is the player's forward direction.
Naming the six squares that ever hold a number (row, column of the window)::

    A (1,3)                    frame "Rook, Knight"   frame "Pawn"   final frame
    B (2,3)  C (2,4)  D (2,5)  A 128  B 128            A 136  B 196   A 140  B 202
    E (3,3)  F (3,4)                                   C  32  E 128   C 208  D  50
                                                                      E 130  F 158

Why no single board X gives all of it
-------------------------------------
* Every template holds all four orthogonal weights (ahead 8, left 2, right 32,
  behind 128), so two orthogonally adjacent pieces always see each other: the code
  of a piece with a neighbour on its right has 32 and the neighbour's code has 2;
  a piece with a neighbour ahead has 8 and that neighbour has 128
  (``test_adjacent_pieces_always_see_each_other``). The slides break this six times:
  frame "Rook, Knight": A is directly ahead of B, yet B is 128 without 8;
  frame "Pawn": C is 32 without 2 (B beside it), E is 128 without 8 (B ahead of it);
  final frame: B 202 lacks 32 (C beside it), C 208 lacks both 2 and 32 (B and D
  beside it), E 130 lacks 8 and 32 (B ahead of it, F beside it).
* 196 = 128 + 64 + 4 (frame "Pawn") contains 64, diagonally behind, which neither
  the Pawn nor the Rook-Knight template has; in this project a square's template is
  fixed by its piece, so no piece shown in a Pawn or Rook-Knight step can have it.
* Y at a square depends only on the piece there and its neighbours, yet A reads 128,
  136 and 140 in successive frames (B: 128, 196, 202; C: 32, 208; E: 128, 130) while
  the board does not change. The frames cannot come from one board, so each frame is
  rebuilt on its own board below.
* Several values count squares whose own Y is 0 (A's 140 counts the two squares
  ahead of it, D's 50 the squares right of it): those are the opponent's pieces, so
  the source note's X counts every piece as a neighbour. The project's collector counts the
  player's own pieces (and, for pawn structure, the opposing pawns);
  :func:`iam.chunks.template.code_matrix` takes any occupancy as ``neighbours``, and these
  tests pass the source note's (every piece).

What is reproduced
------------------
Every value that can be reproduced is: 128 at A (frame "Rook, Knight"), 136 at A
(frame "Pawn"), 140 at A, 50 at D and 158 at F (final frame), each on a board that
holds every piece the frame shows, plus every 0 of the final frame. The other seven
values cannot be, for the reasons above; for them the tests state the value the
template rules force on the same board.
"""

from __future__ import annotations

import numpy as np

from iam.chunks.board import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from iam.chunks.template import code_matrix

ROWS, COLS = 4, 6
FRAME_ROOK_KNIGHT = {(1, 3): 128, (2, 3): 128}
FRAME_PAWN = {(1, 3): 136, (2, 3): 196, (2, 4): 32, (3, 3): 128}
FRAME_FINAL = {(1, 3): 140, (2, 3): 202, (2, 4): 208, (2, 5): 50, (3, 3): 130, (3, 4): 158}
A, B, C, D, E, F = (1, 3), (2, 3), (2, 4), (2, 5), (3, 3), (3, 4)
OPPONENT = -KNIGHT  # any opposing piece: only its presence matters


def board(pieces: dict[tuple[int, int], int]) -> np.ndarray:
    """A board matrix holding ``pieces`` at window squares (row 0 at the top, forward = up).

    Window (r, c) is matrix row 5 - r (forward is +1 in a board matrix) and column
    c + 1, so the squares one step outside the window stay on the board.
    """
    grid = np.zeros((8, 8), dtype=np.int8)
    for (row, col), piece in pieces.items():
        grid[5 - row, col + 1] = piece
    return grid


def window(codes: np.ndarray) -> dict[tuple[int, int], int]:
    """The 4 x 6 window of a code matrix as {square: value} (zeros included)."""
    return {(r, c): int(codes[5 - r, c + 1]) for r in range(ROWS) for c in range(COLS)}


def seed_y(grid: np.ndarray, shown: tuple[int, ...]) -> dict[tuple[int, int], int]:
    """Y as the slides show it: every piece counts as a neighbour; codes of the piece types shown so far."""
    codes = code_matrix(grid, neighbours=grid != 0)
    return window(np.where(np.isin(grid, shown), codes, 0))


def test_final_frame():
    # A and D are pawns (their codes have no bit diagonally behind although C, E
    # and F stand there), F is General (158 has forward diagonals), and B and C
    # need diagonal bits behind (64): General as well. E is a rook.
    grid = board(
        {A: PAWN, B: QUEEN, C: BISHOP, D: PAWN, E: ROOK, F: KING}
        | {square: OPPONENT for square in [(0, 2), (0, 3), (2, 2), (1, 6), (2, 6), (4, 4)]}
    )
    y = seed_y(grid, (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING))
    expected = {square: FRAME_FINAL.get(square, 0) for square in y}
    differs = {square: (y[square], expected[square]) for square in y if y[square] != expected[square]}
    # Reproduced: A 140, D 50, F 158 and all 18 zeros. Forced instead of the slide:
    assert differs == {
        B: (202 + 32, 202),  # C stands on B's right
        C: (4 + 2 + 32 + 1 + 128, 208),  # A, B, D, E, F all touch C; 208 denies B and D beside it
        E: (8 + 32, 130),  # B ahead of E and F on its right; 130 claims neither
    }


def test_rook_knight_frame():
    # A (rook) directly ahead of B (knight); B's 128 counts the square behind it.
    grid = board({A: ROOK, B: KNIGHT, E: OPPONENT})
    y = seed_y(grid, (ROOK, KNIGHT))
    assert y[A] == FRAME_ROOK_KNIGHT[A] == 128
    assert y[B] == 8 + 128  # the slide's 128 leaves out A, ahead of B
    assert all(value == 0 for square, value in y.items() if square not in (A, B))


def test_pawn_frame():
    # The frame's pieces A, B, C, E as pawns (196 at B fits no Pawn or Rook-Knight
    # code); D and F stand on the board as General pieces, shown only in the last frame.
    grid = board({A: PAWN, B: PAWN, C: PAWN, E: PAWN, D: QUEEN, F: KING, (0, 3): OPPONENT, (4, 3): OPPONENT})
    y = seed_y(grid, (PAWN, ROOK, KNIGHT))
    assert y[A] == FRAME_PAWN[A] == 136
    assert (y[B], y[C], y[E]) == (8 + 32 + 128, 4 + 2 + 32 + 128, 8 + 16 + 32 + 128)
    assert FRAME_PAWN[B] & 64 and not (y[B] & 64)  # no Pawn code has the bit diagonally behind
    assert y[D] == y[F] == 0  # not shown yet


def test_adjacent_pieces_always_see_each_other():
    """The property the slides break: orthogonal neighbours carry each other's bits."""
    rng = np.random.default_rng(7)
    grids = rng.choice(np.arange(-6, 7), size=(200, 8, 8), p=[0.04] * 6 + [0.52] + [0.04] * 6).astype(np.int8)
    codes = code_matrix(grids)
    own = grids > 0
    right = own[:, :, :-1] & own[:, :, 1:]
    assert right.any()
    assert np.all((codes[:, :, :-1] & 32)[right] == 32) and np.all((codes[:, :, 1:] & 2)[right] == 2)
    ahead = own[:, :-1, :] & own[:, 1:, :]  # row r + 1 is ahead of row r
    assert ahead.any()
    assert np.all((codes[:, :-1, :] & 8)[ahead] == 8) and np.all((codes[:, 1:, :] & 128)[ahead] == 128)
