"""``iam train``: learn a model of one player from PGN files and write it as JSON."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from iam.chunks.model import OpponentModel
from iam.cli._common import (
    add_quiet,
    add_ranker_arguments,
    check_output_file,
    check_seed,
    command_runtime,
    print_json,
    progress,
    ranker_params,
)
from iam.cli._games import add_game_arguments, pgn_paths, read_player_games
from iam.errors import DataError
from iam.models.files import check_writable
from iam.ranker import MoveRanker
from iam.ranker.strongest import strongest_evidence, strongest_lines


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="learn a model of a player from PGN files",
        description="Learn a model of a player from his games and write the model file (JSON; gzip when "
        "the name ends in .gz): by default the move ranker, which scores every legal move from all the "
        "evidence (--predictor iam: the source notes' chunks and opening memory alone). The ranker's "
        "time goes into its training positions (--train-positions), each searched at --search-depth: fewer "
        "positions or a shallower search train faster (the cost is measured in docs/results/ranker.md). "
        "A status line on stderr says what it learns from and when it is done.",
    )
    add_game_arguments(parser, player_required=True)
    parser.add_argument(
        "--split", choices=("all", "train", "test"), default="all",
        help="held-out protocol: game i is a test game when i %% 5 == 4 (default all: test games included; "
        "train before comparing with held-out figures)",
    )
    parser.add_argument(
        "--max-games", type=int, metavar="N", help="use at most the first N games (after the other filters)"
    )
    parser.add_argument(
        "--min-games", type=int, default=2, metavar="N",
        help="noise filter: keep chunks (and remembered move sequences) seen in at least N games (default 2)",
    )
    parser.add_argument(
        "--min-formed-games",
        type=int,
        default=2,
        metavar="N",
        help="a stored chunk proposes moves only if the player formed it by a move in at least N games (default 2; 0 = "
        "no such filter)",
    )
    parser.add_argument(
        "--predictor",
        choices=("ranker", "iam"),
        default="ranker",
        help="ranker: every legal move scored from all the evidence (default); iam: the source notes' chunks and "
        "opening memory alone",
    )
    parser.add_argument(
        "--belief", choices=("learned", "rules"), default="learned",
        help="iam: learned weights and calibration (default), or the source notes' rules",
    )
    add_ranker_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, help="random seed of the belief's position sample")
    parser.add_argument(
        "-o", "--output", required=True, metavar="MODEL", help="model file to write (.json or .json.gz)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_quiet(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.max_games is not None and args.max_games < 1:
        raise DataError("--max-games must be at least 1")
    if args.min_games < 1:
        raise DataError("--min-games must be at least 1")
    if args.min_formed_games < 0:
        raise DataError("--min-formed-games cannot be negative")
    check_seed(args.seed)
    caches = [args.search_cache, args.engine_cache if args.engine else None]
    output = check_output_file(args.output, "-o", inputs=[*pgn_paths(args), *caches])
    check_writable(output)  # before reading and training, not after
    games, report, _, _ = read_player_games(args, split=args.split, max_games=args.max_games, quiet=args.quiet)
    if not games:
        raise DataError(f"none of the player's games can be used ({'; '.join(report.summary_lines()[1:])})")
    started = time.perf_counter()
    if not args.quiet:  # a status line even when stderr is not a terminal: training takes minutes
        positions = sum(game.player_moves for game in games)
        sampled = (
            f", {min(positions, args.ranker_positions)} sampled for training" if args.predictor == "ranker" else ""
        )
        print(
            f"iam: learning from {len(games)} game{'s' if len(games) != 1 else ''} "
            f"({positions} positions of the player{sampled}) ...",
            file=sys.stderr,
        )
    if args.predictor == "ranker":
        code = _train_ranker(args, games, report, output)
        _done(args, started)
        return code
    return _train_iam(args, games, report, output, started)


def _train_iam(args: argparse.Namespace, games, report, output: Path, started: float) -> int:
    """Fit and write the source notes' IAM model; print what it learned."""
    model = OpponentModel(
        min_games=args.min_games, min_formed_games=args.min_formed_games, belief=args.belief, random_state=args.seed
    )
    model.fit(games, progress=lambda steps: progress(steps, quiet=args.quiet, desc="fitting", unit=" steps"))
    model.save(output)
    _done(args, started)
    summary = {
        "model": str(output),
        "player": model.player_,
        "games": report.to_dict(),
        "positions": model.n_positions_,
        "colors": model.colors_,
        "chunks": model.chunk_counts_,
        "rote_sequences": len(model.rote_),
        "rote_positions": len(model.rote_.positions),
        "belief": model.belief_kind_,
        "notes": model.notes_,
    }
    if args.json:
        print_json(summary)
        return 0
    counts = model.chunk_counts_
    print("\n".join(report.summary_lines()))
    print(
        f"positions (the player's moves): {model.n_positions_} ({model.colors_['white']} games as White, "
        f"{model.colors_['black']} as Black)"
    )
    print(
        f"chunks: {counts['occurrences']} occurrences of {counts['distinct']} distinct chunks; "
        f"{counts['after_noise_filter']} after the noise filter (>= {model.min_games} games); "
        f"{counts['stored']} stored (formed by a move in >= {model.min_formed_games} games)"
    )
    print(
        f"rote memory: {len(model.rote_)} sequences, {len(model.rote_.positions)} positions; belief: "
        f"{model.belief_kind_}"
    )
    for note in model.notes_:
        print(f"note: {note}")
    print(f"model written to {output} ({output.stat().st_size / 1024:.0f} KiB)")
    return 0


def _done(args: argparse.Namespace, started: float) -> None:
    """The closing status line on stderr."""
    if not args.quiet:
        print(f"iam: done in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def _train_ranker(args: argparse.Namespace, games, report, output: Path) -> int:
    """Fit and write a move ranker; print what it learned."""
    model = MoveRanker(**ranker_params(args), min_games=args.min_games, random_state=args.seed)
    try:
        model.fit(
            games, runtime=command_runtime(args),
            progress=lambda tasks, total: progress(
                tasks, quiet=args.quiet, total=total, desc="fitting: scoring his positions", unit=" parts"
            ),
        )
    finally:
        model.close()
    model.save(output)
    weights = sorted(model.weights().items(), key=lambda item: -abs(item[1]))
    strongest = strongest_evidence(model)
    summary = {
        "model": str(output),
        "predictor": "ranker",
        "player": model.player_,
        "games": report.to_dict(),
        "positions": model.n_positions_,
        "families": list(model.families_),
        "training_log_loss": model.training_log_loss_,
        "residual_trees": model.trees_.trees if model.trees_ is not None else 0,
        "weights": dict(weights),
        "strongest_evidence": [entry.to_dict() for entry in strongest],
    }
    if args.json:
        print_json(summary)
        return 0
    print("\n".join(report.summary_lines()))
    trees = f", plus the population's {model.trees_.trees} residual trees" if model.trees_ is not None else ""
    print(
        f"move ranker of {model.player_}: {model.n_positions_} training positions, families "
        f"{', '.join(model.families_)}{trees}"
    )
    print("\n".join(strongest_lines(strongest)))
    print(f"model written to {output} ({output.stat().st_size / 1024:.0f} KiB)")
    return 0
