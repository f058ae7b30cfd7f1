"""``iam match``: play two UCI engines against each other and estimate the Elo difference."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import chess.engine

from iam.cli._common import add_quiet, check_output_file, print_json, progress
from iam.errors import IAMError
from search.chess.match import (
    EloEstimate,
    GameRecord,
    MatchError,
    engine_command,
    likelihood_of_superiority,
    load_openings,
    play_match,
)

_MAX_MOVETIME_MS = 86_400_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "match",
        help="play two UCI engines against each other (ours is 'iam uci')",
        description="Play ENGINE_A against ENGINE_B with alternating colours, write the "
        "games as PGN and print wins/draws/losses, the score, the draw ratio, the Elo difference "
        "with its 95% interval and the likelihood of superiority (LOS). Engines are command lines, "
        "e.g. 'iam uci' or 'stockfish'.",
    )
    parser.add_argument("engine_a", metavar="ENGINE_A", help="command of the first engine")
    parser.add_argument("engine_b", metavar="ENGINE_B", help="command of the second engine")
    parser.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, help="nodes per move")
    limit.add_argument("--movetime", type=int, help="milliseconds per move (default 100)")
    limit.add_argument(
        "--tc",
        metavar="BASE+INC",
        help="a clock per engine: BASE seconds for the game plus INC seconds a move (e.g. 10+0.1); "
        "an engine whose clock runs out loses on time",
    )
    parser.add_argument(
        "--openings", metavar="FILE", help="start positions: a PGN file or one FEN/EPD a line"
    )
    parser.add_argument(
        "--pgn", metavar="FILE", default="match.pgn", help="where to write the games (default match.pgn)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="seconds an engine may take beyond the move time (all of it with --nodes) before "
        "it forfeits the game and is restarted (default 30)",
    )
    for side in ("a", "b"):
        parser.add_argument(
            f"--option-{side}", action="append", default=[], metavar="NAME=VALUE",
            help=f"a UCI option for ENGINE_{side.upper()} (repeatable), e.g. UCI_Elo=1500",
        )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_quiet(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:

    _check_numbers(args)
    clock = _clock(args.tc) if args.tc is not None else None
    check_output_file(args.pgn, "--pgn", inputs=[args.openings])
    options_a, options_b = _options(args.option_a, "--option-a"), _options(args.option_b, "--option-b")
    limit = (
        chess.engine.Limit(nodes=args.nodes)
        if args.nodes is not None
        else chess.engine.Limit(time=(args.movetime or 100) / 1000)
    )
    try:
        known = {"iam": [sys.executable, "-m", "iam"]}  # this toolkit's engine when no iam script is on PATH
        command_a, command_b = engine_command(args.engine_a, known=known), engine_command(args.engine_b, known=known)
        openings = load_openings(args.openings) if args.openings else []
        bar = progress(range(args.games), quiet=args.quiet, desc="games", total=args.games)

        def advance(_record: object) -> None:
            """Move the progress bar on by a game."""
            next(bar, None)

        estimate, records, names = play_match(
            command_a, command_b, games=args.games, limit=limit, openings=openings,
            on_game=advance, move_timeout=args.timeout,
            options_a=options_a, options_b=options_b, clock=clock,
        )
    except MatchError as exc:
        raise IAMError(str(exc)) from None
    pgn_path = Path(args.pgn)
    _write_games(pgn_path, records)
    forfeits = _forfeits(records, names)
    if args.json:
        print_json(_result_json(estimate, names, forfeits, pgn_path))
        return 0
    print("\n".join(report_lines(estimate, names)))
    for forfeit in forfeits:
        print(f"game {forfeit['game']} lost by {forfeit['engine']}: {forfeit['reason']}")
    print(f"games written to {pgn_path}", file=sys.stderr)
    return 0


def _check_numbers(args: argparse.Namespace) -> None:
    """IAMError for a game count, node or time limit, or timeout the match cannot be played with."""
    if args.games < 1:
        raise IAMError("--games must be at least 1")
    if args.nodes is not None and args.nodes < 1:
        raise IAMError("--nodes must be at least 1")
    if args.movetime is not None and args.movetime < 1:
        raise IAMError("--movetime must be at least 1")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise IAMError(f"--timeout must be a positive number of seconds, not {args.timeout}")
    if args.movetime is not None and args.movetime > _MAX_MOVETIME_MS:
        raise IAMError(f"--movetime must be at most {_MAX_MOVETIME_MS} ms (one day)")


def _write_games(pgn_path: Path, records: list[GameRecord]) -> None:
    """Write the match's games to ``pgn_path``; IAMError when the file cannot be written."""
    try:
        with pgn_path.open("w", encoding="utf-8") as handle:
            for record in records:
                print(record.game, file=handle, end="\n\n")
    except OSError as exc:
        raise IAMError(f"cannot write {pgn_path}: {exc.strerror}") from None


def _forfeits(records: list[GameRecord], names: tuple[str, str]) -> list[dict]:
    """The games lost by forfeit: the game's number, the engine that lost it and why."""
    return [
        {"game": number, "engine": names[0] if record.forfeited_by == "A" else names[1],
         "reason": record.termination}
        for number, record in enumerate(records, 1)
        if record.forfeited_by is not None
    ]


def _result_json(estimate: EloEstimate, names: tuple[str, str], forfeits: list[dict], pgn_path: Path) -> dict:
    """The match's result as ``--json`` prints it."""
    return {
        "engine_a": names[0],
        "engine_b": names[1],
        "games": estimate.games,
        "wins": estimate.wins,
        "draws": estimate.draws,
        "losses": estimate.losses,
        "score": estimate.score,
        "draw_ratio": estimate.draws / estimate.games,
        "elo": estimate.elo if math.isfinite(estimate.elo) else None,
        "elo_bound": _bound(estimate),
        "elo_ci95": [_finite(estimate.low), _finite(estimate.high)],
        "los": likelihood_of_superiority(estimate.wins, estimate.losses),
        "forfeits": forfeits,
        "pgn": str(pgn_path),
    }


def _options(pairs: list[str], flag: str) -> dict[str, str]:
    """``NAME=VALUE`` words as a mapping; IAMError on a word without ``=``."""
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise IAMError(f"{flag} takes NAME=VALUE, not {pair!r}")
        options[name.strip()] = value.strip()
    return options


def report_lines(estimate, names: tuple[str, str]) -> list[str]:
    """The match's result as match runners print it: W/D/L, score, draw ratio, Elo with its interval, LOS."""
    lines = [
        f"{names[0]} vs {names[1]}: {estimate.games} games, W {estimate.wins} / D {estimate.draws} / L "
        f"{estimate.losses}",
        f"score {estimate.wins + estimate.draws / 2:g}/{estimate.games} ({estimate.score:.1%}), "
        f"draw ratio {estimate.draws / estimate.games:.1%}",
    ]
    bound = _bound(estimate)
    if bound is None:
        lines.append(
            f"Elo difference: {_fmt(estimate.elo)} (95% interval {_fmt(estimate.low)} to {_fmt(estimate.high)})"
        )
    else:
        everything = "every" if bound["side"] == ">" else "no"
        lines.append(
            f"Elo difference: {bound['side']} {_fmt(bound['value'])} (one-sided 95% bound: {names[0]} won {everything} "
            "game, so the difference has no finite estimate)"
        )
    lines.append(
        f"LOS: {likelihood_of_superiority(estimate.wins, estimate.losses):.1%} (likelihood that {names[0]} is the "
        "stronger)"
    )
    return lines


def _bound(estimate) -> dict | None:
    """For a 0% or 100% score, the Elo difference as a one-sided bound (``{"side": ">", "value": ...}``)."""
    if estimate.score >= 1.0:
        return {"side": ">", "value": estimate.low}
    if estimate.score <= 0.0:
        return {"side": "<", "value": estimate.high}
    return None


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _clock(text: str) -> tuple[float, float]:
    """``"10+0.1"`` -> ``(10.0, 0.1)`` seconds; IAMError otherwise."""
    base, _, increment = text.partition("+")
    try:
        clock = float(base), float(increment or 0)
    except ValueError:
        clock = (math.nan, math.nan)
    if not (math.isfinite(clock[0]) and math.isfinite(clock[1]) and 0 < clock[0] <= 86_400 and 0 <= clock[1] <= 3600):
        raise IAMError(f"--tc takes BASE+INC in seconds (e.g. 10+0.1), not {text!r}")
    return clock


def _fmt(value: float) -> str:
    return f"{round(value):+d}"
