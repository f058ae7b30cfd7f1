"""Tapered piece-square evaluation for the fast board: material plus square bonuses,
one table for the middlegame and one for the endgame, blended by the game phase.

A piece's worth depends on the stage of the game: a king hides in the middlegame and
walks to the centre in the endgame, a passed pawn grows with every rank as the board
empties. Each piece on a square contributes a middlegame and an endgame value;
the position's value is ``(mg * phase + eg * (24 - phase)) / 24``, where the phase
counts the pieces left (knight and bishop 1, rook 2, queen 4; 24 at the start).
Both sums change by a table lookup per moved piece, so :class:`~search.chess.board.Position`
keeps them up to date at every move instead of recounting the board.

The middlegame square bonuses are those of :mod:`search.chess.evaluation` (simple
formulas, not tuned); the endgame ones follow the usual principles (a central king,
advanced pawns worth more). Tables are indexed ``TABLE[piece][mailbox square]`` with
White pieces positive and Black pieces negative (a negative index reads the end of
the 16-long tuple); a Black piece's entry is the mirrored White value, negated, so
the sums are always from White's point of view.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MG_TABLE", "EG_TABLE", "PHASE", "PHASE_TOTAL", "MG_VALUES", "EG_VALUES", "PieceValues", "PIECE_NAMES",
    "SQUARE_NAMES", "phase_table",
]

PHASE_TOTAL = 24
MG_VALUES = (0, 100, 320, 330, 500, 900, 0)
"""Middlegame material by piece type (index 1 pawn ... 6 king)."""
EG_VALUES = (0, 120, 290, 320, 530, 950, 0)
"""Endgame material: pawns and rooks gain as the board empties, knights lose."""
_PHASE_WEIGHTS = (0, 0, 1, 1, 2, 4, 0)
PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen")
"""The pieces whose material a :class:`PieceValues` sets, in its order."""
SQUARE_NAMES = tuple(f"{piece}_squares_{phase}" for piece in (*PIECE_NAMES, "king") for phase in ("mg", "eg"))
"""The scales of the square bonuses a :class:`PieceValues` sets, in its order: each piece's (pawn to king)
middlegame then endgame bonus table multiplied by one number (1: the hand-set tables)."""
_ONES = (1.0,) * len(SQUARE_NAMES)


@dataclass(frozen=True)
class PieceValues:
    """Material values of pawn, knight, bishop, rook and queen (centipawns) in the middlegame and the endgame,
    and a scale for each piece's square bonuses in each phase.

    Given to :class:`~search.chess.engine.ChessSearch`, they take the place of
    :data:`MG_VALUES` and :data:`EG_VALUES` in the tapered evaluation, and each piece's
    bonus on a square (the table's entry less its material) is multiplied by its scale
    (``squares``, in the order of :data:`SQUARE_NAMES`: pawn middlegame, pawn endgame, ...,
    king endgame; 0 removes a table, 1 keeps it, 2 doubles it; the scaled bonus is rounded
    to whole centipawns). Twelve numbers rather than the tables' 768 entries: each keeps its
    table's shape (the centre, the advance, the king's shelter) and evolves only how much it
    counts against the material. :meth:`standard` gives the tables' own values and scales
    1, hence the default evaluation.

    >>> PieceValues.uniform((100, 300, 300, 500, 900)).endgame
    (100, 300, 300, 500, 900)
    """

    middlegame: tuple[int, int, int, int, int]
    endgame: tuple[int, int, int, int, int]
    squares: tuple[float, ...] = _ONES

    def __post_init__(self) -> None:
        for name in ("middlegame", "endgame"):
            values = tuple(getattr(self, name))
            if len(values) != 5 or not all(isinstance(v, int) and -100_000 < v < 100_000 for v in values):
                raise ValueError(f"{name} must be five whole numbers of centipawns, got {values!r}")
            object.__setattr__(self, name, values)
        scales = tuple(float(v) for v in self.squares)
        if len(scales) != len(SQUARE_NAMES) or not all(0 <= v <= 100 for v in scales):
            raise ValueError(f"squares must be {len(SQUARE_NAMES)} scales from 0 to 100, got {self.squares!r}")
        object.__setattr__(self, "squares", scales)

    @classmethod
    def uniform(cls, values) -> PieceValues:
        """The same five values in both phases (rounded to whole centipawns)."""
        rounded = tuple(int(round(float(v))) for v in values)
        return cls(rounded, rounded)  # type: ignore[arg-type]

    @classmethod
    def standard(cls) -> PieceValues:
        """The tables' own values (:data:`MG_VALUES`, :data:`EG_VALUES`)."""
        return cls(MG_VALUES[1:6], EG_VALUES[1:6])

    def with_squares(self, scales) -> PieceValues:
        """The same material with these square scales (:data:`SQUARE_NAMES`' order)."""
        return PieceValues(self.middlegame, self.endgame, tuple(float(v) for v in scales))

    def shifts(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Each piece's value minus the table's, by piece type (index 0 and 6 are 0), middlegame and endgame."""
        middle = (0, *(v - d for v, d in zip(self.middlegame, MG_VALUES[1:6])), 0)
        end = (0, *(v - d for v, d in zip(self.endgame, EG_VALUES[1:6])), 0)
        return middle, end

    def tables(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        """The middlegame and endgame tables these values and scales make (indexed as :data:`MG_TABLE`)."""
        middle, end = self.squares[0::2], self.squares[1::2]
        return (phase_table(self.middlegame, middle, _middlegame_bonus),
                phase_table(self.endgame, end, _endgame_bonus))


def _centre_distance(file: int, rank: int) -> float:
    return max(abs(file - 3.5), abs(rank - 3.5)) - 0.5  # 0 in the centre, 3 on the rim


def _middlegame_bonus(kind: int, file: int, rank: int) -> float:
    centre = _centre_distance(file, rank)
    if kind == 1:
        return (0, 0, 2, 6, 14, 26, 45, 0)[rank] + (12 if file in (3, 4) and rank in (3, 4) else 0)
    if kind == 2:
        return 12 - 12 * centre
    if kind == 3:
        return 6 - 5 * centre
    if kind == 4:
        return (15 if rank == 6 else 0) + (4 if file in (3, 4) else 0)
    if kind == 5:
        return 4 - 3 * centre
    shelter = (10, 20, 12, 0, 0, 4, 22, 10)[file] if rank == 0 else 0
    return shelter - 12 * rank


def _endgame_bonus(kind: int, file: int, rank: int) -> float:
    centre = _centre_distance(file, rank)
    if kind == 1:
        return (0, 0, 4, 12, 26, 48, 80, 0)[rank]
    if kind == 2:
        return 8 - 10 * centre
    if kind == 3:
        return 6 - 6 * centre
    if kind == 4:
        return 10 if rank == 6 else 0
    if kind == 5:
        return 6 - 6 * centre
    return 24 - 12 * centre


def phase_table(material, scales, bonus) -> tuple[tuple[int, ...], ...]:
    """One phase's table: ``material`` (pawn to queen), each piece's ``bonus(kind, file, rank)`` times its scale
    (pawn to king), indexed ``[piece][mailbox square]`` as :data:`MG_TABLE`."""
    values = (0, *material, 0)
    table: list[tuple[int, ...]] = [(0,) * 120] * 16
    for kind in range(1, 7):
        white, black = [0] * 120, [0] * 120
        for rank in range(8):
            for file in range(8):
                square = 21 + file + 10 * rank
                mirrored = 21 + file + 10 * (7 - rank)
                value = values[kind] + int(round(scales[kind - 1] * bonus(kind, file, rank)))
                white[square] = value
                black[mirrored] = -value
        table[kind], table[-kind] = tuple(white), tuple(black)
    return tuple(table)


MG_TABLE = phase_table(MG_VALUES[1:6], _ONES[:6], _middlegame_bonus)
EG_TABLE = phase_table(EG_VALUES[1:6], _ONES[:6], _endgame_bonus)
PHASE = tuple(_PHASE_WEIGHTS[abs(p)] if -6 <= p <= 6 else 0 for p in (*range(0, 8), *range(-8, 0)))
"""Phase weight by piece (indexed like the tables)."""
