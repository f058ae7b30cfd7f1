"""``iam annotate``: every move of the modelled player with the model's belief in it, as PGN comments and a table."""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import chess
import chess.pgn

from iam.cli._common import check_not_input, command_runtime, print_json
from iam.cli._games import pgn_paths
from iam.errors import DataError
from iam.games.pgn import name_matches, read_whole_games
from iam.measure.predictors import load_predictor

SURPRISE_FLOOR = 1e-4
"""Beliefs below this count as this in the surprise (at most -log2(1e-4), about 13.3 bits), as in the log loss."""


@dataclass(frozen=True)
class AnnotatedMove:
    """One move of the modelled player, judged by the model."""

    game: int
    ply: int
    """The move's number in the game from 0 (half-moves from the game's start position)."""
    label: str
    """``12. Nf3`` or ``12... Nf6``."""
    move: str
    """The move played, in SAN."""
    belief: float
    """The model's belief in the move played."""
    expected: str | None
    """The model's most believed move, in SAN (None when the model predicts nothing)."""
    expected_belief: float
    surprise: float
    """-log2 of the belief in the move played (floored at :data:`SURPRISE_FLOOR`), in bits."""

    def comment(self) -> str:
        """The PGN comment: ``belief 0.31; expected Nf3 0.44; surprise 1.7 bits``."""
        expected = f"expected {self.expected} {self.expected_belief:.2f}" if self.expected else "no prediction"
        return f"belief {self.belief:.2f}; {expected}; surprise {self.surprise:.1f} bits"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "annotate",
        help="comment every move of the modelled player with the model's belief in it",
        description="For every move of the modelled player in the games: the model's belief in the move "
        "played, the move it expected (its most believed move and that belief), and the surprise, "
        "-log2(belief of the move played) in bits (beliefs below 1e-4 count as 1e-4). Written as PGN "
        "comments to --out (default: stdout) and as a table (on stderr when the PGN goes to stdout).",
    )
    parser.add_argument(
        "pgn", nargs="*", metavar="PGN", help="PGN files with the games to annotate (one game or several)"
    )
    parser.add_argument(
        "--pgn", dest="pgn_option", action="append", default=[], metavar="PGN",
        help="a PGN file, as the positional PGN (repeatable)",
    )
    parser.add_argument("--model", required=True, metavar="MODEL", help="model file written by 'iam train'")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--player", help="annotate the moves of the side with this name (default: the model's player)")
    side.add_argument("--color", choices=("white", "black"), help="annotate the moves of this side in every game")
    parser.add_argument("--out", metavar="FILE", help="write the annotated games to this PGN file (default: stdout)")
    parser.add_argument("--json", action="store_true", help="print the annotations as JSON on stdout")
    parser.add_argument("--engine", metavar="PATH", help="the UCI engine a move ranker with engine evidence runs")
    parser.add_argument("--quiet", "-q", action="store_true", help="no table when the PGN goes to stdout")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = pgn_paths(args)
    if args.out:
        check_not_input(args.out, [*paths, args.model], "--out")
    skipped: Counter[str] = Counter()
    games = [game for path in paths for game in read_whole_games(path, skipped)]
    model = load_predictor(args.model, runtime=command_runtime(args))
    try:
        annotated = _annotate_games(model, games, args, skipped)
    finally:
        model.close()
    if not annotated:
        raise DataError(f"no game to annotate ({'; '.join(f'{r}: {c}' for r, c in skipped.items())})")
    pgn_text = "".join(f"{game}\n\n" for game, _ in annotated)
    if args.out:
        _write_pgn(args.out, pgn_text)
    if args.json:
        games_json = [_game_dict(game, moves) for game, moves in annotated]
        print_json({"model": args.model, "games": games_json, "skipped": dict(skipped)})
    else:
        if not args.out:
            print(pgn_text, end="")
        if args.out or not args.quiet:
            print(_table(annotated), file=sys.stdout if args.out else sys.stderr)
    if skipped:
        print(f"iam: {sum(skipped.values())} games skipped ({dict(skipped)})", file=sys.stderr)
    if args.out and not args.json:
        print(f"annotated games written to {args.out}", file=sys.stderr)
    return 0


def _annotate_games(
    model, games: list[chess.pgn.Game], args: argparse.Namespace, skipped: Counter[str]
) -> list[tuple[chess.pgn.Game, list[AnnotatedMove]]]:
    """Every game with its annotated moves; a game whose side cannot be told is counted in ``skipped``."""
    annotated: list[tuple[chess.pgn.Game, list[AnnotatedMove]]] = []
    for number, game in enumerate(games):
        color, reason = _side(game, args, model.player_)
        if color is None:
            skipped[reason] += 1
            continue
        annotated.append((game, annotate_game(model, game, color, number=number)))
    return annotated


def _write_pgn(path: str, text: str) -> None:
    """Write the annotated games to ``path`` (DataError when it cannot be written)."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot write {path}: {exc.strerror or exc}") from None


def annotate_game(model, game: chess.pgn.Game, color: chess.Color, *, number: int = 0) -> list[AnnotatedMove]:
    """Judge every main-line move of ``color`` in ``game`` and write each judgement as the move's comment."""
    found = []
    board = game.board()
    for ply, node in enumerate(game.mainline()):
        move = node.move
        if board.turn == color:
            beliefs = model.predict_proba(board)
            top = max(beliefs, key=beliefs.__getitem__) if beliefs else None
            belief = float(beliefs.get(move, 0.0))
            judged = AnnotatedMove(
                game=number,
                ply=ply,
                label=f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'} {board.san(move)}",
                move=board.san(move),
                belief=belief,
                expected=board.san(top) if top is not None else None,
                expected_belief=float(beliefs[top]) if top is not None else 0.0,
                surprise=-math.log2(max(belief, SURPRISE_FLOOR)),
            )
            found.append(judged)
            node.comment = _joined(node.comment, judged.comment())
        board.push(move)
    return found


def _joined(existing: str, added: str) -> str:
    return f"{existing.strip()} {added}" if existing.strip() else added


def _side(game: chess.pgn.Game, args: argparse.Namespace, model_player: str) -> tuple[chess.Color | None, str]:
    """The colour whose moves are annotated in ``game``, or None and why not."""
    if args.color:
        return args.color == "white", ""
    name = args.player or model_player
    sides = [
        color
        for color, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
        if name_matches(name, game.headers.get(tag, ""))
    ]
    if len(sides) == 1:
        return sides[0], ""
    if not sides:
        return None, f"{name!r} plays neither side (give --color)"
    return None, f"{name!r} plays both sides (give --color)"


def _table(annotated: list[tuple[chess.pgn.Game, list[AnnotatedMove]]]) -> str:
    lines = []
    for game, moves in annotated:
        hits = sum(move.move == move.expected for move in moves)
        mean = sum(move.surprise for move in moves) / len(moves) if moves else float("nan")
        lines.append(
            f"{game.headers.get('White', '?')} - {game.headers.get('Black', '?')} {game.headers.get('Result', '*')}: "
            f"{len(moves)} moves, {hits} as expected, mean surprise {mean:.1f} bits"
        )
        lines.append(f"{'move':<12} {'belief':>6}  {'expected':<8} {'belief':>6}  {'surprise':>8}")
        for move in moves:
            expected = move.expected or "-"
            lines.append(
                f"{move.label:<12} {move.belief:6.2f}  {expected:<8} "
                f"{move.expected_belief:6.2f}  {move.surprise:5.1f} bits"
            )
        lines.append("")
    return "\n".join(lines)


def _game_dict(game: chess.pgn.Game, moves: list[AnnotatedMove]) -> dict:
    return {
        "white": game.headers.get("White", ""),
        "black": game.headers.get("Black", ""),
        "moves": [asdict(move) for move in moves],
    }
