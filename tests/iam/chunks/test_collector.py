"""The chunk collector against golden positions and an independent brute-force reference."""

from __future__ import annotations

import itertools

import chess
import numpy as np

from iam.chunks.board import PAWN, board_matrix, relative_square
from iam.chunks.chunk import OPPONENT_PAWN, canonical, encode, from_pattern, to_pattern
from iam.chunks.collector import chunks_on, collect
from iam.chunks.template import DIRECTION_BITS, TEMPLATE_OF


def patterns(board: chess.Board, color: chess.Color) -> set[str]:
    return {to_pattern(code) for code, _ in chunks_on(board_matrix(board, color))}


def test_opening_position_has_the_five_back_rank_chunks():
    board = chess.Board()
    expected = {"PPPP/QBNR", "PPPP/KQBN", "PPPP/BKQB", "PPPP/QKBN", "PPPP/KBNR"}
    assert patterns(board, chess.WHITE) == expected
    assert patterns(board, chess.BLACK) == expected  # both colours pool into the same chunks


def test_pawn_structure_takes_the_opposing_pawns_it_touches():
    board = chess.Board("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1")
    assert patterns(board, chess.WHITE) == {"p/P"}
    # an opposing knight in the same place is not part of any chunk
    assert patterns(chess.Board("4k3/8/8/4n3/4P3/8/8/4K3 w - - 0 1"), chess.WHITE) == set()


def test_continuation_links_defenders_along_open_lines():
    open_file = chess.Board("4k3/8/8/8/R7/8/8/R3K3 w - - 0 1")  # rooks a1 and a4 defend each other
    assert patterns(open_file, chess.WHITE) == {"R/././R"}
    blocked = chess.Board("4k3/8/8/8/R7/n7/8/R3K3 w - - 0 1")  # an opposing knight in between
    assert patterns(blocked, chess.WHITE) == set()
    knight = chess.Board("4k3/8/8/8/8/2P5/8/1N2K3 w - - 0 1")  # knight b1 defends c3
    assert patterns(knight, chess.WHITE) == {int_pattern(".P/../N.")}


def test_chunks_never_exceed_four_by_four_and_are_maximal():
    board = chess.Board("4k3/8/4P3/3P4/2P5/1P6/P7/4K3 w - - 0 1")  # a five-pawn diagonal
    found = chunks_on(board_matrix(board, chess.WHITE))
    assert [bin(squares).count("1") for _, squares in found] == [4, 4]
    for _, squares in found:
        rows = {sq // 8 for sq in range(64) if squares >> sq & 1}
        cols = {sq % 8 for sq in range(64) if squares >> sq & 1}
        assert max(rows) - min(rows) < 4 and max(cols) - min(cols) < 4


def test_formed_marks_chunks_the_move_put_a_piece_into():
    board = chess.Board("4k3/8/8/8/8/8/PP1PP3/4K3 w - - 0 1")
    board.push_san("e3")
    moved = np.array([1 << relative_square(chess.E3, chess.WHITE)], dtype=np.uint64)
    found = collect(board_matrix(board, chess.WHITE)[None], moved_to=moved)
    formed = {to_pattern(int(code)): bool(flag) for code, flag in zip(found.code, found.formed)}
    assert formed == {"PP": False, int_pattern(".P/P./.K"): True}


def int_pattern(text: str) -> str:
    """The canonical spelling of a pattern (a chunk and its mirror are stored as one)."""
    return to_pattern(int(canonical(from_pattern(text))[0]))


# -- an independent reference -----------------------------------------------------------------


def reference_chunks(board: chess.Board, color: chess.Color) -> set[tuple[int, int]]:
    """Chunks by brute force: template neighbours, python-chess attack maps, BFS per window."""
    grid = board_matrix(board, color)
    own = {(r, c) for r in range(8) for c in range(8) if grid[r, c] > 0}
    opposing_pawns = {(r, c) for r in range(8) for c in range(8) if grid[r, c] == -PAWN}
    links = _reference_links(board, color, grid, own, opposing_pawns)
    pieces = own | {p for p in opposing_pawns if any(p in link for link in links)}
    groups = _reference_groups(pieces, links)
    maximal = {g for g in groups if not any(g < other for other in groups)}
    result = set()
    for group in maximal:
        top, left = min(r for r, _ in group), min(c for _, c in group)
        cells = np.zeros((4, 4), dtype=np.int8)
        for r, c in group:
            cells[r - top, c - left] = OPPONENT_PAWN if grid[r, c] == -PAWN else grid[r, c]
        bitboard = sum(1 << (r * 8 + c) for r, c in group)
        result.add((int(canonical(encode(cells))[0]), bitboard))
    return result


def _reference_links(
    board: chess.Board, color: chess.Color, grid: np.ndarray, own: set, opposing_pawns: set
) -> set[frozenset]:
    """Pairs of linked cells: template neighbours and python-chess attacks on own pieces."""
    links: set[frozenset] = set()
    for r, c in own:
        template = TEMPLATE_OF[int(grid[r, c])]
        for (dr, dc), _ in DIRECTION_BITS.items():
            if template[1 - dr, 1 + dc] == 0:  # template drawn with "forward" on top
                continue
            other = (r + dr, c + dc)
            if other in own or (grid[r, c] == PAWN and other in opposing_pawns):
                links.add(frozenset({(r, c), other}))
        square = relative_square(r * 8 + c, color)
        for target in board.attacks(square):
            rel = relative_square(target, color)
            if (rel // 8, rel % 8) in own:
                links.add(frozenset({(r, c), (rel // 8, rel % 8)}))
    return links


def _reference_groups(pieces: set, links: set[frozenset]) -> set[frozenset]:
    """Connected groups of two or more ``pieces`` within each 4x4 window, by BFS over ``links``."""
    groups: set[frozenset] = set()
    for r0, c0 in itertools.product(range(5), repeat=2):
        inside = {p for p in pieces if r0 <= p[0] < r0 + 4 and c0 <= p[1] < c0 + 4}
        seen: set = set()
        for start in inside:
            if start in seen:
                continue
            group, frontier = {start}, [start]
            while frontier:
                node = frontier.pop()
                for link in links:
                    if node in link:
                        (other,) = link - {node}
                        if other in inside and other not in group:
                            group.add(other)
                            frontier.append(other)
            seen |= group
            if len(group) >= 2:
                groups.add(frozenset(group))
    return groups


def game_positions(games, count: int, seed: int):
    rng = np.random.default_rng(seed)
    for game in rng.choice(len(games), size=count, replace=False):
        record = games[int(game)]
        board = record.board()
        stop = int(rng.integers(1, len(record.moves) + 1))
        for move in record.moves[:stop]:
            board.push(move)
        yield board


def test_collector_agrees_with_the_reference_on_real_positions(botvinnik_games):
    boards = list(game_positions(botvinnik_games, 60, seed=7))
    grids = np.stack([board_matrix(b, color) for b in boards for color in (chess.WHITE, chess.BLACK)])
    found = collect(grids)
    for index, (board, color) in enumerate(itertools.product(boards, (chess.WHITE, chess.BLACK))):
        ours = {
            (int(c), int(s))
            for c, s in zip(found.code[found.position == index], found.squares[found.position == index])
        }
        assert ours == reference_chunks(board, color), board.fen()
