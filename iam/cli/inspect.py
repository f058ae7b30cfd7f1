"""``iam inspect``: what a model learned, its most frequent chunks, optionally drawn as SVG boards."""

from __future__ import annotations

import argparse
from pathlib import Path

import chess
import chess.svg

from iam.chunks.chunk import Chunk
from iam.chunks.model import OpponentModel
from iam.chunks.rote import Repertoire, opening_repertoire
from iam.cli._common import output_dir, print_json
from iam.errors import DataError
from iam.measure.predictors import load_predictor
from iam.models.words import FAMILY_WORDS
from iam.ranker import MoveRanker
from iam.ranker.strongest import SHOWN, WeightedFeature, strongest_evidence, strongest_lines
from iam.runtime import Runtime


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="describe a model: what it learned and what it weighs",
        description="Describe a model file of either kind. A move ranker: its evidence families, its "
        "strongest evidence in words (what draws him to a move, what keeps him from it), search depth, "
        "calibration, training games and positions, and how many positions his opening memory holds; then (for "
        "both kinds) his repertoire (his first moves with each colour) and the model's most frequent chunks, "
        "optionally as SVG boards.",
    )
    parser.add_argument("model", metavar="MODEL", help="model file written by 'iam train'")
    parser.add_argument(
        "--top", type=int, default=10, metavar="N", help="how many chunks (and ranker weights) to list (default 10)"
    )
    parser.add_argument("--svg", metavar="DIR", help="draw each listed chunk as DIR/chunk-<rank>.svg")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise DataError("--top must be at least 1")
    model = load_predictor(args.model, runtime=Runtime(engine="(not run)"))
    folder = output_dir(args.svg) if args.svg else None
    describe = _SUMMARIES.get(model.kind)
    ranker = describe(model, top=args.top) if describe is not None else None
    chunks_of = model.chunk_model()
    if chunks_of is None:
        if args.json:
            print_json({"ranker": ranker, "repertoire": None})
        else:
            assert ranker is not None  # only a move ranker lacks a chunk model, and it has a summary
            print(_ranker_text(ranker))
            print("his repertoire: unknown (the model has no opening memory: no habits family)")
            print("\nno chunks: the model has no habits family (no IAM model inside)")
        return 0
    model = chunks_of  # a ranker's chunks and opening memory are those of its IAM model
    chunks = _top_chunks(model, args.top, folder)
    repertoire = opening_repertoire(model.rote_)
    summary = {
        "player": model.player_,
        "games": model.n_games_,
        "positions": model.n_positions_,
        "chunks": model.chunk_counts_,
        "rote_sequences": len(model.rote_),
        "belief": model.belief_kind_,
        "repertoire": repertoire.to_dict(),
        "top_chunks": chunks,
    }
    if ranker is not None:
        summary = {**summary, "ranker": ranker}  # the chunk summary stays at the top, as for an IAM model
    if args.json:
        print_json(summary)
        return 0
    if ranker is not None:
        print(_ranker_text(ranker))
    if ranker is not None:
        print("\nhis habits (the IAM model inside the ranker):")
    _print_chunks(model, chunks, repertoire)
    if args.svg:
        print(f"\nSVG boards written to {args.svg}/")
    return 0


def _top_chunks(model: OpponentModel, top: int, folder: Path | None) -> list[dict]:
    """The ``top`` most frequent chunks of the IAM model, each drawn as ``folder/chunk-<rank>.svg`` when given."""
    table = model.library_.table.head(top)
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
    return chunks


def _print_chunks(model: OpponentModel, chunks: list[dict], repertoire: Repertoire) -> None:
    """Print what the IAM model holds, his repertoire, then each listed chunk with its counts and diagram."""
    counts = model.chunk_counts_
    print(
        f"model of {model.player_}: {model.n_games_} games, {model.n_positions_} positions, "
        f"belief {model.belief_kind_}"
    )
    print(f"chunks stored: {counts['stored']} (of {counts['distinct']} distinct); rote sequences: {len(model.rote_)}")
    print("his repertoire (from his opening memory):")
    print("\n".join(f"  {line}" for line in repertoire.lines()))
    for entry in chunks:
        print(
            f"\n#{entry['rank']} {entry['pattern']}  {entry['size']} pieces, {entry['occurrences']} occurrences "
            f"in {entry['games']} games, formed by a move in {entry['formed_games']}, "
            f"won {entry['won_games']} / lost {entry['lost_games']}"
        )
        print(entry["diagram"])


def ranker_summary(model: MoveRanker, *, top: int = SHOWN) -> dict:
    """What a move ranker holds, each weight with its words (JSON-ready; raw column names kept)."""
    memory = model.iam_.rote_ if model.iam_ is not None else None
    book = model.book_
    assert book is not None  # a fitted ranker holds the population's book (empty without a prior)
    return {
        "player": model.player_,
        "training_games": model.n_games_,
        "training_positions": model.n_positions_,
        "families": [{"family": family, "words": FAMILY_WORDS.get(family, family)} for family in model.families_],
        "search_depth": model.search_depth,
        "training_log_loss": model.training_log_loss_,
        "temperature": model.temperature_,
        "top_calibration": {"slope": model.top_calibration_.slope, "offset": model.top_calibration_.offset},
        "residual_trees": model.trees_.trees if model.trees_ is not None else 0,
        "prior": model.prior,
        "opening_memory": None if memory is None else {"sequences": len(memory), "positions": len(memory.positions)},
        "book_positions": len({epd for master in book.masters.values() for epd in master}),
        "strongest_evidence": [entry.to_dict() for entry in strongest_evidence(model, top)],
    }


def _ranker_text(summary: dict) -> str:
    families = "; ".join(f"{entry['words']} ({entry['family']})" for entry in summary["families"])
    calibration = summary["top_calibration"]
    memory = summary["opening_memory"]
    lines = [
        f"move ranker of {summary['player']}: trained on {summary['training_games']} games, "
        f"{summary['training_positions']} positions",
        f"evidence: {families}",
        f"search depth {summary['search_depth']} plies; prior: {summary['prior']}"
        + (
            f", plus the population's {summary['residual_trees']} correction trees"
            if summary["residual_trees"] else ""
        ),
        f"calibration: temperature {summary['temperature']:.2f}, top belief recalibrated with slope "
        f"{calibration['slope']:.2f} and offset {calibration['offset']:+.2f}; training log loss "
        f"{summary['training_log_loss']:.3f}",
        "opening memory: "
        + ("none" if memory is None else f"{memory['positions']} positions, {memory['sequences']} move sequences")
        + f"; other masters' book: {summary['book_positions']} positions",
    ]
    strongest = [WeightedFeature(e["feature"], e["weight"], e["effect"]) for e in summary["strongest_evidence"]]
    lines.extend(strongest_lines(strongest))
    return "\n".join(lines)


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


_SUMMARIES = {"ranker": ranker_summary}
"""What ``iam inspect`` says of a model beyond its chunks, by :attr:`kind` (an IAM model: its chunks say it all)."""
