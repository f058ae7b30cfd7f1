"""``iam predict``: the model's beliefs about the next move in a position."""

from __future__ import annotations

import argparse

import chess

from iam.cli._common import print_json
from iam.errors import PositionError
from iam.predictors import load_predictor
from iam.ranker import MoveRanker


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "predict",
        help="predict the modelled player's next move",
        description="Rank the moves of the side to move by the model's belief. The position is "
        "--fen (default: the standard start) after the optional --moves. The opening memory follows "
        "the moves from --fen; a position whose sequence it does not know (a transposition, or a "
        "--fen without --moves) is looked up by the position itself. One rule (a pattern the player "
        "just dissolved) needs the player's previous move, so give --moves when you have them.",
    )
    parser.add_argument("model", metavar="MODEL", help="model file written by 'iam train'")
    parser.add_argument("--fen", help="starting position (default: the standard start)")
    parser.add_argument("--moves", nargs="*", default=[], metavar="UCI", help="moves played from --fen, in UCI (e2e4 ...)")
    parser.add_argument("--top", type=int, default=5, metavar="K", help="show the K most believed moves (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON: fen and predictions with sources")
    parser.add_argument(
        "--engine", metavar="PATH", help="the UCI engine a move ranker with engine evidence runs (a model file never names one)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise PositionError("--top must be at least 1")
    board = position(args.fen, args.moves)
    model = load_predictor(args.model, engine=args.engine)
    if isinstance(model, MoveRanker):
        try:
            return _ranker(model, board, args)
        finally:
            model.close()
    predictions = model.explain(board, top=args.top)
    if args.json:
        print_json({"fen": board.fen(), "predictions": [p.to_dict() for p in predictions]})
        return 0
    print(f"{model.player_} to move in {board.fen()}")
    if not predictions:
        print("no prediction: no stored chunk or remembered sequence applies here")
    for rank, prediction in enumerate(predictions, 1):
        evidence = _evidence(prediction)
        print(f"{rank:>2}. {prediction.san:<8} {prediction.belief:6.1%}  {evidence}")
    return 0


def position(fen: str | None, moves: list[str]):
    """The board after ``moves`` from ``fen`` (PositionError on a bad FEN or an illegal move)."""
    if fen is not None and not fen.strip():
        raise PositionError("--fen is empty (leave it out for the standard start position)")
    try:
        board = chess.Board(fen) if fen is not None else chess.Board()
    except ValueError as exc:
        raise PositionError(f"invalid FEN {fen!r}: {exc}") from None
    if fen is not None and not board.is_valid():
        raise PositionError(f"invalid FEN {fen!r}: the position is not legal ({board.status()!r})")
    for text in moves:
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise PositionError(f"{text!r} is not a move in UCI notation (e.g. e2e4)") from None
        if move not in board.legal_moves:
            raise PositionError(f"illegal move {text} in {board.fen()}")
        board.push(move)
    if board.is_game_over():
        raise PositionError(f"the game is over in {board.fen()} ({board.result()}): there is no move to predict")
    return board


def _evidence(prediction) -> str:
    parts = []
    for source in prediction.sources:
        if source["kind"] == "rote":
            parts.append(f"remembered: chosen in {source['chosen']}/{source['games']} games")
    chunks = [s for s in prediction.sources if s["kind"] == "chunk"]
    if chunks:
        best = chunks[0]
        parts.append(
            f"completes {prediction.chunk_sources} chunk placement(s), e.g. {best['pattern']} on "
            f"{' '.join(best['squares'])} (seen in {best['games']} games)"
        )
    return "; ".join(parts)


def _ranker(model, board, args: argparse.Namespace) -> int:
    """A move ranker's beliefs, each move with the features that carried it."""
    explained = model.explain(board, top=args.top)
    if args.json:
        payload = [
            {
                "move": item["move"].uci(),
                "san": item["san"],
                "belief": item["belief"],
                "features": [
                    {"feature": c.feature, "family": c.family, "value": c.value, "contribution": c.contribution}
                    for c in item["features"]
                ],
            }
            for item in explained
        ]
        print_json({"fen": board.fen(), "predictor": "ranker", "predictions": payload})
        return 0
    print(f"{model.player_} to move in {board.fen()}")
    for rank, item in enumerate(explained, 1):
        reasons = ", ".join(f"{c.feature} {c.contribution:+.2f}" for c in item["features"][:3])
        print(f"{rank:>2}. {item['san']:<8} {item['belief']:6.1%}  {reasons}")
    return 0
