"""``iam inspect``: what a model learned, its most frequent chunks, optionally drawn as SVG boards."""

from __future__ import annotations

import argparse

import chess
import chess.svg

from iam.chunk import Chunk
from iam.cli._common import output_dir, print_json
from iam.errors import DataError
from iam.predictors import load_predictor


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="show a model's most frequent chunks",
        description="Summarise a model file and list its most frequent chunks (optionally as SVG boards).",
    )
    parser.add_argument("model", metavar="MODEL", help="model file written by 'iam train'")
    parser.add_argument("--top", type=int, default=10, metavar="N", help="how many chunks to list (default 10)")
    parser.add_argument("--svg", metavar="DIR", help="draw each listed chunk as DIR/chunk-<rank>.svg")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise DataError("--top must be at least 1")
    model = load_predictor(args.model)
    if getattr(model, "iam_", False) is None:
        raise DataError(f"{args.model} is a move ranker without habit features: it holds no chunks to inspect")
    model = getattr(model, "iam_", model)  # a ranker's chunks are those of its IAM model
    folder = output_dir(args.svg) if args.svg else None
    table = model.library_.table.head(args.top)
    chunks = []
    for rank, (code, row) in enumerate(table.iterrows(), 1):
        chunk = Chunk(int(code))
        chunks.append(
            {
                "rank": rank,
                "pattern": chunk.pattern,
                "size": chunk.size,
                "occurrences": int(row["occurrences"]),
                "games": int(row["games"]),
                "formed_games": int(row["formed_games"]),
                "won_games": int(row["won_games"]),
                "lost_games": int(row["lost_games"]),
                "diagram": chunk_diagram(chunk),
            }
        )
        if folder is not None:
            try:
                (folder / f"chunk-{rank}.svg").write_text(chunk_svg(chunk))
            except OSError as exc:
                raise DataError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    summary = {
        "player": model.player_,
        "games": model.n_games_,
        "positions": model.n_positions_,
        "chunks": model.chunk_counts_,
        "rote_sequences": len(model.rote_),
        "belief": model.belief_kind_,
        "top_chunks": chunks,
    }
    if args.json:
        print_json(summary)
        return 0
    counts = model.chunk_counts_
    print(f"model of {model.player_}: {model.n_games_} games, {model.n_positions_} positions, belief {model.belief_kind_}")
    print(f"chunks stored: {counts['stored']} (of {counts['distinct']} distinct); rote sequences: {len(model.rote_)}")
    for entry in chunks:
        print(
            f"\n#{entry['rank']} {entry['pattern']}  {entry['size']} pieces, {entry['occurrences']} occurrences "
            f"in {entry['games']} games, formed by a move in {entry['formed_games']}, "
            f"won {entry['won_games']} / lost {entry['lost_games']}"
        )
        print(entry["diagram"])
    if args.svg:
        print(f"\nSVG boards written to {args.svg}/")
    return 0


def chunk_diagram(chunk) -> str:
    """The chunk's box as text, far row on top ('.' = any square)."""
    return "\n".join("  " + " ".join(row) for row in chunk.pattern.split("/"))


def chunk_svg(chunk) -> str:
    """An SVG board showing the chunk (the player as White) with its box shaded."""
    board = chess.Board(None)
    pieces = chunk.pieces()
    has_pawn = any(letter in "Pp" for _, _, letter in pieces)
    base_rank, base_file = (1 if has_pawn else 0), 2
    height = max(row for row, _, _ in pieces) + 1
    width = max(col for _, col, _ in pieces) + 1
    for row, col, letter in pieces:
        square = chess.square(base_file + col, base_rank + row)
        board.set_piece_at(square, chess.Piece.from_symbol(letter))
    box = {
        chess.square(base_file + c, base_rank + r): "#cfe3ff80" for r in range(height) for c in range(width)
    }
    return chess.svg.board(board, fill=box, size=360, coordinates=True)
