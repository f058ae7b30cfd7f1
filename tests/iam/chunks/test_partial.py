"""The partial chunk finder: constructed positions and an independent brute-force reference."""

from __future__ import annotations

import itertools

import chess
import numpy as np
import pandas as pd

from iam.chunks.board import board_matrix
from iam.chunks.chunk import canonical, decode, from_pattern, mirror
from iam.chunks.library import ChunkLibrary
from iam.chunks.noise_filter import STAT_COLUMNS
from iam.chunks.partial import cell_values, find_completions


def library_of(patterns: list[str]) -> ChunkLibrary:
    """A library holding the given chunks (statistics are placeholders)."""
    codes = sorted({int(canonical(from_pattern(p))[0]) for p in patterns})
    table = pd.DataFrame(1, index=pd.Index(codes, name="code"), columns=list(STAT_COLUMNS))
    table["size"] = [int(np.count_nonzero(decode(c))) for c in codes]
    return ChunkLibrary.from_table(table)


def proposed(library: ChunkLibrary, board: chess.Board) -> set[tuple[str, int]]:
    """(move, chunk row) pairs the finder proposes."""
    found = find_completions(library, board)
    return {(found.moves[m].uci(), int(c)) for m, c in zip(found.move, found.chunk)}


def test_a_known_completing_move_is_proposed():
    # chunk: pawns on d4 and e4 with a knight on f3
    library = library_of(["PP./..N"])
    board = chess.Board("4k3/8/8/8/3P4/4PN2/8/4K3 w - - 0 1")
    assert proposed(library, board) == {("e3e4", 0)}


def test_mirror_images_and_translations_are_found():
    library = library_of(["PP./..N"])
    mirrored = chess.Board("4k3/8/8/8/4P3/2NP4/8/4K3 w - - 0 1")  # mirror image, shifted one file
    assert proposed(library, mirrored) == {("d3d4", 0)}


def test_black_positions_are_seen_from_blacks_side():
    library = library_of(["PP./..N"])
    board = chess.Board("4k3/8/4pn2/3p4/8/8/8/4K3 b - - 0 1")
    assert proposed(library, board) == {("e6e5", 0)}


def test_a_move_that_breaks_the_rest_of_the_chunk_is_not_proposed():
    library = library_of(["P/P"])  # pawns on d3 and d4
    lone = chess.Board("4k3/8/8/8/8/3P4/8/4K3 w - - 0 1")
    # d3-d4 fills the missing d4 cell but empties d3, the chunk's other cell
    assert proposed(library, lone) == set()
    # control: a capture by another pawn fills d4 without touching d3
    capture = chess.Board("4k3/8/8/8/3n4/2PP4/8/4K3 w - - 0 1")
    assert proposed(library, capture) == {("c3d4", 0)}


def test_castling_completes_a_chunk_missing_king_and_rook():
    library = library_of(["PPP/RK."])  # castled: rook f1, king g1, pawns f2 g2 h2
    board = chess.Board("4k3/8/8/8/8/8/5PPP/4K2R w K - 0 1")
    assert ("e1g1", 0) in proposed(library, board)


def test_dissolved_pattern_is_flagged():
    library = library_of([".N/P."])  # pawn e2 with a knight on f3
    board = chess.Board("4k3/8/8/8/8/5N2/4P3/4K3 w - - 0 1")
    board.push_san("Ng5")
    board.push_san("Kd7")
    found = find_completions(library, board)
    flags = {found.moves[m].uci(): bool(d) for m, d in zip(found.move, found.dissolved)}
    assert flags["g5f3"] is True
    fresh = chess.Board(board.fen())  # same position, no history: nothing was just dissolved
    found = find_completions(library, fresh)
    assert not found.dissolved.any()


# -- independent reference ------------------------------------------------------------------------


def reference(library: ChunkLibrary, board: chess.Board) -> set[tuple[str, int, int]]:
    """(move, chunk row, placement squares) by trying every placement of every chunk."""
    color = board.turn
    before = cell_values(board_matrix(board, color))
    after = {}
    for move in board.legal_moves:
        board.push(move)
        after[move] = cell_values(board_matrix(board, color))
        board.pop()
    result = set()
    for row, code in enumerate(library.table.index.to_numpy()):
        for variant in {int(code), int(mirror(code))}:
            cells = decode(variant)
            occupied = [(r, c, int(cells[r, c])) for r in range(4) for c in range(4) if cells[r, c]]
            for dr, dc in itertools.product(range(8), repeat=2):
                squares = [((r + dr) * 8 + c + dc, v) for r, c, v in occupied]
                if any(r + dr > 7 or c + dc > 7 for r, c, _ in occupied):
                    continue
                missing = [(s, v) for s, v in squares if before[s] != v]
                if not missing or len(missing) > 2:
                    continue
                mask = sum(1 << s for s, _ in squares)
                for move, cells_after in after.items():
                    if all(cells_after[s] == v for s, v in squares):
                        if len(missing) == 1 or board.is_castling(move):
                            result.add((move.uci(), row, mask))
    return result


def test_finder_agrees_with_the_reference(small_model, botvinnik_games):
    table = small_model.library_.table.head(25)
    library = ChunkLibrary.from_table(table)
    rng = np.random.default_rng(3)
    checked = 0
    for game_index in rng.choice(len(botvinnik_games), size=12, replace=False):
        game = botvinnik_games[int(game_index)]
        board = game.board()
        for move in game.moves[: int(rng.integers(0, 30))]:
            board.push(move)
        found = find_completions(library, board)
        ours = {
            (found.moves[m].uci(), int(c), int(library.placements.mask[p]))
            for m, c, p in zip(found.move, found.chunk, found.placement)
        }
        assert ours == reference(library, board), board.fen()
        checked += len(ours)
    assert checked > 20  # the comparison covered real proposals, not only empty sets
