"""``iam predict``: the model's beliefs about the next move in a position."""

from __future__ import annotations

import argparse
import re

import chess

from iam.cli._common import command_runtime, print_json
from iam.cli._games import read_pgn_games
from iam.errors import PositionError
from iam.evidence.words import feature_words
from iam.measure.predictors import load_predictor
from iam.models.explanation import Explanation


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "predict",
        help="predict the modelled player's next move",
        description="Rank the moves of the side to move by the model's belief. The position is "
        "--fen (default: the standard start) after the optional --moves (SAN or UCI), or the position "
        "after a game's last move (--pgn, or after ply N with --ply). The opening memory follows "
        "the moves from --fen; a position whose sequence it does not know (a transposition, or a "
        "--fen without --moves) is looked up by the position itself. One rule (a pattern the player "
        "just dissolved) needs the player's previous move, so give --moves when you have them.",
    )
    parser.add_argument("model", metavar="MODEL", help="model file written by 'iam train'")
    parser.add_argument("--fen", help="starting position (default: the standard start)")
    parser.add_argument(
        "--moves", nargs="*", default=[], metavar="MOVE",
        help="moves played from --fen, in SAN or UCI (d4 Nf6 c4, or d2d4 g8f6 ...)",
    )
    parser.add_argument(
        "--pgn", metavar="GAME", help="predict the move after this game's last move (the first game of the file)"
    )
    parser.add_argument(
        "--ply", type=int, metavar="N",
        help="with --pgn: the position after the game's first N plies (half-moves; default: all)",
    )
    parser.add_argument("--top", type=int, default=5, metavar="K", help="show the K most believed moves (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON: fen and predictions with sources")
    parser.add_argument(
        "--engine", metavar="PATH", help="the UCI engine a move ranker with engine evidence runs (a model file never "
        "names one)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise PositionError("--top must be at least 1")
    if args.pgn is not None:
        if args.fen is not None or args.moves:
            raise PositionError("--pgn gives the position: leave out --fen and --moves")
        board = game_position(args.pgn, args.ply)
    elif args.ply is not None:
        raise PositionError("--ply needs --pgn")
    else:
        board = position(args.fen, args.moves)
    with load_predictor(args.model, runtime=command_runtime(args)) as model:
        predictions = model.explain(board, top=args.top)
    if args.json:
        payload = [_with_words(prediction.to_dict()) for prediction in predictions]
        print_json({"fen": board.fen(), "predictor": model.kind, "predictions": payload})
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
    for ply, text in enumerate(moves, 1):
        board.push(parse_move(board, text, ply))
    _check_not_over(board)
    return board


def parse_move(board: chess.Board, text: str, ply: int) -> chess.Move:
    """``text`` as a legal move of ``board``, read as SAN then as UCI; PositionError naming it and its ply."""
    try:
        return board.parse_san(text)
    except chess.AmbiguousMoveError:
        raise PositionError(
            f"ambiguous move {text} (ply {ply}) in {board.fen()}: give the piece's file or rank (e.g. Nbd2)"
        ) from None
    except ValueError:
        pass
    try:
        move = chess.Move.from_uci(text)
    except ValueError:
        if _looks_like_a_move(text):
            raise PositionError(f"illegal move {text} (ply {ply}) in {board.fen()}") from None
        raise PositionError(f"{text!r} (ply {ply}) is not a move in SAN (Nf3) or UCI (g1f3) notation") from None
    if move not in board.legal_moves:
        raise PositionError(f"illegal move {text} (ply {ply}) in {board.fen()}")
    return move


_SAN = r"[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBN])?[+#]?|O-O(-O)?[+#]?|0-0(-0)?"
"""How a SAN move is written (castling with letters O or digits 0)."""


def _looks_like_a_move(text: str) -> bool:
    """Whether ``text`` is written like a SAN move (so refusing it means it is illegal here, not unreadable)."""
    return re.fullmatch(_SAN, text.strip()) is not None


def game_position(path: str, ply: int | None) -> chess.Board:
    """The board after the first game of ``path`` (after its first ``ply`` half-moves when given)."""
    game = read_pgn_games(path)[0]
    moves = list(game.mainline_moves())
    if ply is not None and not 0 <= ply <= len(moves):
        raise PositionError(f"--ply must be from 0 to {len(moves)} (the game's half-moves), not {ply}")
    board = game.board()
    for move in moves[:ply]:
        board.push(move)
    _check_not_over(board)
    return board


def _check_not_over(board: chess.Board) -> None:
    if board.is_game_over():
        raise PositionError(f"the game is over in {board.fen()} ({board.result()}): there is no move to predict")


def _evidence(prediction: Explanation) -> str:
    """The evidence in words: the memory and chunks that proposed the move, else the features that carried it."""
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
    if not parts:
        parts = [f"{feature_words(c.feature)} {c.contribution:+.2f}" for c in prediction.features[:3]]
        return ", ".join(parts)
    return "; ".join(parts)


def _with_words(payload: dict) -> dict:
    """An explanation's JSON with each feature's words beside its column name."""
    for feature in payload["features"]:
        feature["words"] = feature_words(feature["feature"])
    return payload
