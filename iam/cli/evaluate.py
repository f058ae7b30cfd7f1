"""``iam evaluate``: a saved model measured on the games the user gives (belief-band table)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from iam.cli import compare
from iam.cli._common import check_seed, command_runtime, output_dir, print_json
from iam.cli._games import pgn_paths, read_player_games
from iam.errors import DataError
from iam.measure.evaluation import EvaluationReport, EvaluationRun, sample_test_games, score_games, score_positions
from iam.measure.predictors import is_model_file, load_predictor

_DEPRECATED = (
    "iam: note: 'iam evaluate PGN' is now 'iam compare PGN'; 'iam evaluate' without a model file goes on working "
    "for one version"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="measure a saved model on the games you give (belief-band table)",
        description="Predict every move of the modelled player in the given games with a saved model "
        "(either kind, 'iam train' writes them) and report coverage, top-1/top-3 accuracy, calibration and "
        "the belief-band table, with 95%% intervals over games. Usage: iam evaluate MODEL PGN [PGN ...]. "
        "The figures are held-out figures only when the model was not trained on these games. "
        "Without a model file as first argument, this is 'iam compare' (deprecated spelling).",
    )
    compare.add_compare_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.pgn or not _names_a_model(args.pgn[0]):
        print(_DEPRECATED, file=sys.stderr)
        return compare.run(args)
    return evaluate_model(args)


def _names_a_model(path: str) -> bool:
    """Whether the first argument is a model file: by its content, or by its name when it does not exist."""
    if Path(path).exists():
        return is_model_file(path)
    return path.endswith((".json", ".json.gz"))


def evaluate_model(args: argparse.Namespace) -> int:
    """``iam evaluate MODEL PGN ...``: the model's predictions of every position of the player in the games."""
    check_seed(args.seed)
    if args.max_positions is not None and args.max_positions < 1:
        raise DataError("--max-positions must be at least 1")
    model_path, args.pgn = args.pgn[0], args.pgn[1:]
    pgn_paths(args)  # a PGN file is needed: fail before loading the model
    folder = output_dir(args.out) if args.out else None
    runtime = command_runtime(args)
    model = load_predictor(model_path, runtime=runtime)
    try:
        if not args.player:
            args.player = model.player_
        games, ingest, player, _ = read_player_games(args, quiet=args.quiet)
        if not games:
            raise DataError(f"none of the player's games can be used ({'; '.join(ingest.summary_lines()[1:])})")
        games = sample_test_games(games, args.max_positions, seed=args.seed)
        started = time.perf_counter()
        if args.engine:  # the engine process stays on this machine
            records = score_positions(model, games)
        else:
            records = score_games(model, games, runtime=runtime)
    finally:
        model.close()
    elapsed = time.perf_counter() - started
    kind = model.kind
    scored = EvaluationRun(train_games=model.n_games_, records=records, predictor=kind)
    report = EvaluationReport(player=player, test_games=len(games), runs=[scored])
    intervals = compare._intervals(report, seed=args.seed)
    payload = {"model": str(model_path), **report.to_dict()}
    for run_, cis in zip(payload["runs"], intervals):
        run_.update(cis)
    text = compare._markdown(report, ingest, elapsed, intervals, title=f"{model_path} on the given games", scored="")
    if folder is not None:
        compare._write(folder, report, payload, text)
    if args.json:
        print_json(payload)
    else:
        print(text)
        if args.out:
            print(f"written: {args.out}/summary.csv, bands.csv, positions.csv, evaluation.json, evaluation.md")
    if (ingest.skipped_total or ingest.filtered) and not args.quiet:
        print(f"note: {ingest.skipped_total} games skipped ({dict(ingest.skipped)}), {sum(ingest.filtered.values())} "
              f"left out by the filters ({dict(ingest.filtered)})", file=sys.stderr)
    return 0
