"""``iam prepare``: the dossier a player reads the night before a game against X."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from iam.cli._common import add_quiet, command_runtime, output_dir
from iam.cli._games import add_header_filter_arguments, add_name_arguments, filter_from_args
from iam.errors import DataError, IAMError
from iam.games.filters import read_filtered
from iam.jsonsafe import finite
from iam.measure.predictors import load_predictor
from iam.prepare.book import write_book
from iam.prepare.dossier import (
    COLORS,
    DEFAULT_MODEL,
    MODEL_PLIES,
    BeliefSettings,
    HabitSettings,
    PrepareConfig,
    ScoringSettings,
    fit_default_model,
    prepare,
)
from iam.prepare.exports import book_moves, prepared_dict, repertoire_pgn
from iam.prepare.lines import LineSettings
from iam.prepare.model_cache import cached_default_model
from iam.prepare.page import judge_notes
from iam.prepare.population import POPULATION_STRENGTH
from iam.prepare.report import to_dict, to_html, to_markdown, to_pgn
from iam.prepare.tree import HALF_LIFE_YEARS, PRIOR_STRENGTH

__all__ = ["register", "run", "add_engine_lines", "engine_lines", "add_belief_arguments", "belief_fields"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "prepare",
        help="a dossier against a player: his repertoire, costly habits and lines prepared for him",
        description="Build the dossier against --player from his games: his opening tree per colour (continued "
        "by the model where his games run out), the positions where his usual move costs him, and lines "
        "maximising our expected evaluation against his predicted replies. Writes dossier.html (self-contained), "
        "dossier.md, dossier.json, lines.pgn (each line a game), repertoire.pgn (one game per colour, his replies "
        "as variations with his probabilities), book.bin (polyglot: our prepared moves and his replies) and "
        "prepared.json (the prepared lines, which 'iam drill' reads) into --out.",
    )
    parser.add_argument("pgn", metavar="PGN", help="PGN file with his games")
    parser.add_argument("--player", required=True, help="player name as written in the PGN")
    parser.add_argument("--model", metavar="M", help="model file of him (default: fit a move ranker on his games, "
                        f"search depth {DEFAULT_MODEL['search_depth']}, {DEFAULT_MODEL['max_positions']} positions of "
                        f"his first {MODEL_PLIES} plies; "
                        "with --engine it also reads the engine's depth-1 glance at each move)")
    parser.add_argument("--model-cache", default="iam-model-cache", metavar="DIR",
                        help="folder keeping the default model fitted on these games, so the next dossier from the "
                        "same "
                        "games reads it instead of fitting it again (default iam-model-cache)")
    parser.add_argument("--no-model-cache", action="store_true", help="fit the default model without keeping it")
    parser.add_argument(
        "--color", choices=("white", "black", "both"), default="both",
        help="his colour(s) to prepare against (default both)",
    )
    parser.add_argument(
        "--engine", metavar="PATH", help="UCI engine judging positions (default: the toolkit's own search)"
    )
    parser.add_argument("--engine-depth", type=int, default=12, metavar="D", help="engine depth (default 12)")
    parser.add_argument("--engine-cache", default="iam-engine-cache.sqlite", metavar="FILE",
                        help="SQLite file keeping the engine's analyses (default iam-engine-cache.sqlite)")
    add_engine_lines(parser)
    parser.add_argument(
        "--search-depth", type=int, default=ScoringSettings().search_depth, metavar="D",
        help=f"depth of the toolkit's search without --engine (default {ScoringSettings().search_depth})",
    )
    parser.add_argument(
        "--plies", type=int, default=12, metavar="N", help="plies from the start the tree and lines reach (default 12)"
    )
    parser.add_argument(
        "--min-games", type=int, default=1, metavar="K",
        help="refuse a colour with fewer than K of his games (default 1)",
    )
    add_belief_arguments(parser)
    parser.add_argument(
        "--habit-loss", type=int, default=50, metavar="CP",
        help="centipawns his usual move must lose to be a costly habit (default 50)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the default model's fit")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="engine processes analysing positions at once, and processes fitting the default model; "
                        "the dossier is the same for any N (default 1)")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write the dossier into")
    add_name_arguments(parser)
    add_header_filter_arguments(parser)
    add_quiet(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.plies < 1:
        raise DataError("--plies must be at least 1")
    lines = engine_lines(args)
    runtime = command_runtime(args)
    colors = ("white", "black") if args.color == "both" else (args.color,)
    config = PrepareConfig(
        player=args.player, colors=colors, lines=LineSettings(plies=args.plies), min_games=args.min_games,
        habits=HabitSettings(habit_loss=args.habit_loss), **belief_fields(args),
        scoring=ScoringSettings(engine_depth=args.engine_depth, engine_lines=lines, search_depth=args.search_depth),
        runtime=runtime, quiet=args.quiet,
    )
    folder = output_dir(args.out)
    _check_writable(folder)
    games_filter = replace(filter_from_args(args), player=args.player, color="any")
    games, report = read_filtered([args.pgn], games_filter, quiet=args.quiet, announce=False)  # one person only
    if not games:
        raise DataError(
            f"none of {args.player}'s games is left by the filters ({'; '.join(report.summary_lines()[1:])})"
        )
    if not args.quiet:
        for line in report.summary_lines():
            print(line, file=sys.stderr)
    if args.model:
        model, name = load_predictor(args.model, runtime=runtime), f"model file {args.model}"
    else:
        _check_colors(games, config)
        glance = ", and the engine's depth-1 glance at each move" if runtime.engine else ""
        if args.no_model_cache:
            model = fit_default_model(games, args.player, seed=args.seed, quiet=args.quiet, runtime=runtime)
        else:
            model, kept = cached_default_model(
                games, args.player, args.model_cache, seed=args.seed, quiet=args.quiet, runtime=runtime
            )
            if not args.quiet:
                print(
                    f"the default model: {'read from' if kept else 'fitted and kept in'} {args.model_cache}",
                    file=sys.stderr,
                )
        name = (f"a move ranker fitted on the openings of his {len(games)} games "
                f"(search depth {DEFAULT_MODEL['search_depth']}, "
                f"{DEFAULT_MODEL['max_positions']} positions of their first {MODEL_PLIES} plies{glance})")
    try:
        dossier = prepare(games, model, config, model_name=name)
        _write(folder, dossier)  # the outputs may still ask the model (its engine) about a position
    finally:
        model.close()
    return 0


def add_belief_arguments(parser: argparse.ArgumentParser) -> None:
    """How his beliefs are built: the recency of his games, the model's weight beside the book and his games."""
    parser.add_argument("--half-life", type=float, default=HALF_LIFE_YEARS, metavar="YEARS",
                        help="a game weighs 0.5 ** (years before his latest game / YEARS) (default "
                        f"{HALF_LIFE_YEARS:g})")
    parser.add_argument("--prior-strength", type=float, default=PRIOR_STRENGTH, metavar="A",
                        help="games' weight of the belief his own games update where he has been (default "
                        f"{PRIOR_STRENGTH:g})")
    parser.add_argument("--population-strength", type=float, default=POPULATION_STRENGTH, metavar="B",
                        help="games' weight of the model's belief beside the bundled masters' opening book (default "
                        f"{POPULATION_STRENGTH:g}); "
                        "0 leaves the book out")


def belief_fields(args: argparse.Namespace) -> dict:
    """The config fields of :func:`add_belief_arguments` (DataError for a negative weight)."""
    if args.prior_strength <= 0:
        raise DataError(f"--prior-strength must be positive, not {args.prior_strength:g}")
    if args.population_strength < 0:
        raise DataError(
            f"--population-strength must be at least 0 (0 leaves the book out), not {args.population_strength:g}"
        )
    beliefs = BeliefSettings(
        prior_strength=args.prior_strength, population_strength=args.population_strength or None,
        half_life_years=args.half_life,
    )
    return {"beliefs": beliefs}


def add_engine_lines(parser: argparse.ArgumentParser) -> None:
    """The ``--engine-lines K`` option, shared by ``iam prepare`` and its experiment."""
    parser.add_argument(
        "--engine-lines", type=int, default=3, metavar="K",
        help="the engine scores its best K moves of each position (default 3; other moves are valued by the "
        "position they lead to); 0 scores every legal move, far slower. The cache keeps each width apart",
    )


def engine_lines(args: argparse.Namespace) -> int | None:
    """``--engine-lines`` as the config takes it: None for 0 (every legal move); DataError below 0."""
    if args.engine_lines < 0:
        raise DataError("--engine-lines must be at least 0 (0 scores every legal move)")
    return args.engine_lines or None


def _check_colors(games, config: PrepareConfig) -> None:
    """Refuse a colour with too few games before fitting a model (prepare checks again)."""
    for name in config.colors:
        count = sum(game.color == COLORS[name] for game in games)
        if count < max(1, config.min_games):
            raise DataError(f"{config.player} has {count} games with {name}, fewer than {max(1, config.min_games)}")


def _check_writable(folder: Path) -> None:
    probe = folder / ".iam-write-test"
    try:
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise IAMError(f"cannot write to {folder}: {exc.strerror or exc}") from None


def _write(folder: Path, dossier) -> None:
    try:
        (folder / "dossier.html").write_text(to_html(dossier), encoding="utf-8")
        (folder / "dossier.md").write_text(to_markdown(dossier), encoding="utf-8")
        (folder / "dossier.json").write_text(json.dumps(finite(to_dict(dossier)), indent=2) + "\n", encoding="utf-8")
        (folder / "lines.pgn").write_text(to_pgn(dossier), encoding="utf-8")
        (folder / "repertoire.pgn").write_text(repertoire_pgn(dossier), encoding="utf-8")
        prepared = json.dumps(finite(prepared_dict(dossier)), indent=1) + "\n"
        (folder / "prepared.json").write_text(prepared, encoding="utf-8")
        entries = write_book([move for side in dossier.sides for move in book_moves(side)], folder / "book.bin")
    except OSError as exc:
        raise IAMError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    print(
        f"wrote dossier.html, dossier.md, dossier.json, lines.pgn, repertoire.pgn, book.bin ({entries} entries) "
        f"and prepared.json to {folder}",
        file=sys.stderr,
    )
    for note in judge_notes(dossier):
        print(note, file=sys.stderr)
