"""Start positions with a material imbalance, pieces against pawns, for the piece-value evolution's games.

From the start position or an opening, the evolution's games at a small node budget are decided by
pieces won outright, and what a pawn is worth against a piece is hardly asked (docs/results/evolution.md).
From a position where one side has a minor piece more and the other two or three pawns more, or the
exchange against a pawn or two, each side's choices (to trade into an ending, to give the piece back for
pawns, to keep it) follow what its values say a pawn is worth against a piece.

The positions are made from real ones: a position of a game of the bundled masters' (their *development*
games of the held-out protocol, :func:`iam.games.heldout.is_development`; never a test game) from which an
:class:`Imbalance` is removed: pieces from one side, pieces and pawns from the other. A position is kept
only when it is quiet: legal, no side in check, and no capture for either side (so neither side wins
material back at once). The game's positions are tried from ``first_ply`` on until one is quiet;
which piece or pawn of a kind is removed is drawn from ``default_rng([seed, game index, ply])``.

>>> board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4")
>>> made = remove_imbalance(board, IMBALANCES[0], piece_side=chess.WHITE, rng=np.random.default_rng(0))
>>> material(made, chess.WHITE), material(made, chess.BLACK)
((6, 2, 2, 2, 1), (8, 1, 2, 2, 1))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

import chess
import numpy as np

from iam.games.heldout import is_development
from iam.games.pgn import iter_player_games

__all__ = [
    "IMBALANCES", "Imbalance", "MORE_PAWNS", "imbalance_positions", "interleave", "material", "pieces_worth", "quiet",
    "remove_imbalance",
]


@dataclass(frozen=True)
class Imbalance:
    """What is removed from a level position: ``piece_side_loses`` from the side left with the piece(s) more,
    ``pawn_side_loses`` from the other (piece letters, as in a FEN: ``"PP"`` two pawns, ``"N"`` a knight)."""

    name: str
    piece_side_loses: str
    pawn_side_loses: str


IMBALANCES = (
    Imbalance("a knight against two pawns", "PP", "N"),
    Imbalance("a bishop against two pawns", "PP", "B"),
    Imbalance("a knight against three pawns", "PPP", "N"),
    Imbalance("a bishop against three pawns", "PPP", "B"),
    Imbalance("the exchange (rook for knight) against a pawn", "NP", "R"),
    Imbalance("the exchange (rook for bishop) against two pawns", "BPP", "R"),
)
"""The imbalances made, in turn: a minor piece against two or three pawns, the exchange against one or two
(standard values 100, 320, 330, 500: the piece side 20 to 130 centipawns ahead)."""

MORE_PAWNS = (
    Imbalance("a knight against four pawns", "PPPP", "N"),
    Imbalance("a bishop against four pawns", "PPPP", "B"),
    Imbalance("a rook against a knight and two pawns", "NPP", "R"),
    Imbalance("a rook against a bishop and two pawns", "BPP", "R"),
    Imbalance("a knight against three pawns", "PPP", "N"),
    Imbalance("a bishop against three pawns", "PPP", "B"),
)
"""Pieces against more pawns than :data:`IMBALANCES` (by the standard values,
the side with the pawns from 30 centipawns behind, a bishop against three, to 80 ahead, a knight against four)."""

_ORDER = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def material(board: chess.Board, colour: chess.Color) -> tuple[int, ...]:
    """How many pawns, knights, bishops, rooks and queens ``colour`` has."""
    return tuple(len(board.pieces(piece, colour)) for piece in _ORDER)


def quiet(board: chess.Board) -> bool:
    """Legal, not over, no side in check, and no capture for the side to move nor, were it the other's
    turn, for the other side."""
    if not board.is_valid() or board.is_check() or board.is_game_over():
        return False
    if any(board.generate_legal_captures()):
        return False
    other = board.copy(stack=False)
    other.turn = not other.turn
    other.ep_square = None
    return other.is_valid() and not other.is_check() and not any(other.generate_legal_captures())


def remove_imbalance(
    board: chess.Board, imbalance: Imbalance, *, piece_side: chess.Color, rng: np.random.Generator,
) -> chess.Board | None:
    """``board`` less ``imbalance`` (``piece_side`` keeping the piece(s) more), each removed piece drawn among
    its kind's squares; None when a side lacks a piece to remove. Castling rights and the en-passant square
    are cleaned; the move counters kept."""
    made = board.copy(stack=False)
    for colour, letters in ((piece_side, imbalance.piece_side_loses), (not piece_side, imbalance.pawn_side_loses)):
        for letter in letters:
            squares = sorted(made.pieces(chess.Piece.from_symbol(letter).piece_type, colour))
            if not squares:
                return None
            made.remove_piece_at(squares[int(rng.integers(len(squares)))])
    made.castling_rights = made.clean_castling_rights()
    made.ep_square = None
    return made


def imbalance_positions(
    players: Sequence[tuple[str, str | Path]], *, count: int, first_ply: int = 20, last_ply: int = 60, seed: int = 0,
    imbalances: Sequence[Imbalance] = IMBALANCES, most_pieces: int | None = None,
) -> list[str]:
    """``count`` quiet FENs made from the development games of ``players`` (a name and a file of his games,
    e.g. the bundled masters', :func:`iam.games.bundled.manifest`), at most one a game: the players in turn,
    each player's games in file order, the imbalances in turn (the piece side White and Black in turn) over
    the positions kept. Each game's positions from ply ``first_ply`` to ``last_ply`` are tried until one is
    quiet once the imbalance is removed and, with ``most_pieces``, each side's pieces are worth that much at
    most (knight and bishop 3, rook 5, queen 9: 13 leaves a rook and two minor pieces, or a queen and a
    minor piece)."""
    if count < 1 or not imbalances or not 0 <= first_ply <= last_ply:
        raise ValueError(f"count at least 1, an imbalance, 0 <= first_ply <= last_ply; got {count}, "
                         f"{len(imbalances)}, {first_ply}, {last_ply}")
    kept: list[str] = []
    streams = [_development_boards(player, path, first_ply, last_ply) for player, path in players]
    for turn in zip_longest(*streams):
        for game in turn:
            if game is None:
                continue
            made = _first_quiet(game, imbalances[len(kept) % len(imbalances)],
                                chess.WHITE if (len(kept) // len(imbalances)) % 2 == 0 else chess.BLACK, seed,
                                most_pieces)
            if made is not None and made not in kept:
                kept.append(made)
                if len(kept) == count:
                    return kept
    return kept


def _development_boards(player: str, path: str | Path, first_ply: int,
                        last_ply: int) -> Iterable[tuple[int, list[chess.Board]]]:
    """Each of the player's development games: its index and its positions from ``first_ply`` to ``last_ply``."""
    for game in iter_player_games([path], player=player, split="train"):
        if not is_development(game.index) or len(game.moves) < first_ply:
            continue
        board, boards = game.board(), []
        for ply, move in enumerate(game.moves[:last_ply], 1):
            board.push(move)
            if ply >= first_ply:
                boards.append(board.copy(stack=False))
        yield game.index, boards


def pieces_worth(board: chess.Board, colour: chess.Color) -> int:
    """What ``colour``'s pieces are worth, pawns left out (knight and bishop 3, rook 5, queen 9)."""
    return sum(worth * count for worth, count in zip((0, 3, 3, 5, 9), material(board, colour)))


def _first_quiet(game: tuple[int, list[chess.Board]], imbalance: Imbalance, piece_side: chess.Color,
                 seed: int, most_pieces: int | None) -> str | None:
    index, boards = game
    for board in boards:
        rng = np.random.default_rng([seed, index, board.ply()])
        made = remove_imbalance(board, imbalance, piece_side=piece_side, rng=rng)
        if made is None or (most_pieces is not None
                            and max(pieces_worth(made, chess.WHITE), pieces_worth(made, chess.BLACK)) > most_pieces):
            continue
        if quiet(made):
            return made.fen()
    return None


def interleave(first: Sequence[str], second: Sequence[str], *, take: tuple[int, int] = (1, 2)) -> list[str]:
    """Both lists of start positions in one, in turn: ``take[0]`` of ``first``, then ``take[1]`` of ``second``,
    and again, until both are used up (what is left of the longer one at the end), so that the consecutive
    positions an evolution's generation plays from mix both kinds in that proportion.

    >>> interleave(["o1", "o2"], ["i1", "i2", "i3", "i4", "i5"])
    ['o1', 'i1', 'i2', 'o2', 'i3', 'i4', 'i5']
    """
    if min(take) < 1:
        raise ValueError(f"take at least one position of each list in turn, got {take!r}")
    mixed: list[str] = []
    i = j = 0
    while i < len(first) or j < len(second):
        mixed.extend(first[i:i + take[0]])
        mixed.extend(second[j:j + take[1]])
        i, j = i + take[0], j + take[1]
    return mixed
