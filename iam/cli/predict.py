"""``iam predict``: the model's beliefs about the next move in a position."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import chess
import chess.pgn

from iam.cli._common import command_runtime, print_json
from iam.errors import PositionError
from iam.games.pgn import name_matches, read_whole_games
from iam.measure.predictors import load_predictor
from iam.models.explanation import Explanation
from iam.models.words import feature_words


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "predict",
        help="predict the modelled player's next move",
        description="Rank the modelled player's moves by the model's belief. The position is "
        "--fen (default: the standard start) after the optional --moves (SAN or UCI), or the position "
        "after a game's last move (--pgn, or after ply N with --ply). His side is --color, else the side his "
        "name has in the --pgn game, else the side to move. When his opponent is to move in a game, the "
        "prediction is for his next turn, after the opponent's move the game went on with; elsewhere "
        "the command refuses, since the model predicts his moves only. The opening memory follows "
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
    parser.add_argument(
        "--color", choices=("white", "black"),
        help="the side the modelled player has (default: his name's side in the --pgn game, else the side to move)",
    )
    parser.add_argument("--top", type=int, default=5, metavar="K", help="show the K most believed moves (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON: fen and predictions with sources")
    parser.add_argument(
        "--engine", metavar="PATH", help="the UCI engine a move ranker with engine evidence runs (a model file never "
        "names one)"
    )
    parser.set_defaults(run=run)


@dataclass(frozen=True)
class PredictedPosition:
    """Where the prediction is made: the board, the modelled player's side, and how it was reached."""

    board: chess.Board
    player_color: chess.Color | None
    """His side, or None when neither --color nor the game's headers tell it (he is taken to be to move)."""
    opponent_move: str = ""
    """The opponent's move (SAN with its number) the game went on with, when the asked position was his to play."""
    asked_ply: int | None = None
    """The ply of the game's position the user asked for (``--ply``, or the game's last)."""


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise PositionError("--top must be at least 1")
    if args.pgn is not None:
        if args.fen is not None or args.moves:
            raise PositionError("--pgn gives the position: leave out --fen and --moves")
    elif args.ply is not None:
        raise PositionError("--ply needs --pgn")
    with load_predictor(args.model, runtime=command_runtime(args)) as model:
        color = None if args.color is None else args.color == "white"
        if args.pgn is not None:
            where = game_position(args.pgn, args.ply, model.player_, color)
        else:
            where = PredictedPosition(position(args.fen, args.moves), color)
            _check_his_turn(where, model.player_)
        predictions = model.explain(where.board, top=args.top)
    board = where.board
    if args.json:
        payload = [_with_words(prediction.to_dict()) for prediction in predictions]
        print_json({
            "fen": board.fen(), "predictor": model.kind, "player": model.player_, "to_move": _side(board.turn),
            "player_color": None if where.player_color is None else _side(where.player_color),
            "opponent_move": where.opponent_move or None, "predictions": payload,
        })
        return 0
    for line in heading(where, model.player_):
        print(line)
    if not predictions:
        print("no prediction: no stored chunk or remembered sequence applies here")
    for rank, prediction in enumerate(predictions, 1):
        evidence = _evidence(prediction)
        print(f"{rank:>2}. {prediction.san:<8} {prediction.belief:6.1%}  {evidence}")
    return 0


def heading(where: PredictedPosition, player: str) -> list[str]:
    """The lines above the predictions: whose move it is, in which position, and the move played to reach it."""
    board = where.board
    lines = []
    if where.opponent_move:
        lines.append(
            f"after ply {where.asked_ply} {_side_word(board.turn, other=True)} is to move, not {player}: the model "
            f"predicts his moves only; his next turn follows the game's {where.opponent_move}"
        )
    if where.player_color is None:
        lines.append(f"{_side_word(board.turn)} to move in {board.fen()}, predicted as {player}'s move")
    else:
        lines.append(f"{player} ({_side_word(board.turn)}) to move in {board.fen()}")
    return lines


def _side(color: chess.Color, *, other: bool = False) -> str:
    """``white`` or ``black``: the side of ``color``, or of the other colour."""
    return "white" if (color == chess.WHITE) != other else "black"


def _side_word(color: chess.Color, *, other: bool = False) -> str:
    """``White`` or ``Black``, for a sentence."""
    return _side(color, other=other).capitalize()


def _check_his_turn(where: PredictedPosition, player: str) -> None:
    """PositionError when the modelled player's side is known and it is not his move."""
    board = where.board
    if where.player_color is not None and where.player_color != board.turn:
        raise PositionError(
            f"{_side_word(board.turn)} is to move in {board.fen()}, not {player} ({_side_word(where.player_color)}): "
            "the model predicts his moves only; add his opponent's move"
        )


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


def game_position(path: str, ply: int | None, player: str, color: chess.Color | None) -> PredictedPosition:
    """The position of the first game of ``path`` after ``ply`` half-moves where ``player`` is to move.

    His side is ``color``, else the side whose header names him (None when neither or
    both do). When the other side is to move there, the game's next move is played
    and the position after it is his turn; PositionError when the game has no next move.
    """
    game = read_whole_games(path)[0]
    moves = list(game.mainline_moves())
    _check_ply(ply, len(moves))
    asked = len(moves) if ply is None else ply
    board = _after(game, moves, asked)
    _check_not_over(board)
    color = color if color is not None else player_color(game.headers, player)
    if color is None or color == board.turn:
        return PredictedPosition(board, color, asked_ply=asked)
    if asked == len(moves):
        where = "after the game's last move" if ply is None else f"after ply {asked}, the game's last"
        raise PositionError(
            f"{_side_word(board.turn)} is to move {where}, not {player} ({_side_word(color)}): the model predicts "
            "his moves only; give a --ply where he is to move"
        )
    played = f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'} {board.san(moves[asked])}"
    board.push(moves[asked])
    _check_not_over(board)
    return PredictedPosition(board, color, opponent_move=played, asked_ply=asked)


def player_color(headers: chess.pgn.Headers, player: str) -> chess.Color | None:
    """The side whose ``White``/``Black`` header names ``player`` (whole words), None when neither or both do."""
    sides = [color for color, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
             if name_matches(player, headers.get(tag, ""))]
    return sides[0] if len(sides) == 1 else None


def _check_ply(ply: int | None, count: int) -> None:
    if ply is not None and not 0 <= ply <= count:
        raise PositionError(f"--ply must be from 0 to {count} (the game's half-moves), not {ply}")


def _after(game: chess.pgn.Game, moves: list[chess.Move], ply: int) -> chess.Board:
    board = game.board()
    for move in moves[:ply]:
        board.push(move)
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
