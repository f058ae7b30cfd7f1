"""``iam evaluate``: a saved model measured on the games the user gives (belief-band table)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from iam.cli import compare
from iam.cli._common import check_seed, command_runtime, output_dir, print_json
from iam.cli._games import pgn_paths, read_player_games
from iam.errors import DataError
from iam.games.digest import TrainingGames
from iam.games.heldout import development_games, test_games
from iam.games.pgn import IngestReport, PlayerGame
from iam.measure.evaluation import EvaluationReport, EvaluationRun, sample_test_games, score_games, score_positions
from iam.measure.predictors import is_model_file, load_predictor
from iam.progress import phase

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
        "By default only the player's test games (game i in file order when i %% 5 == 4) are scored; "
        "--split chooses. The figures are held-out figures only when the model was not trained on these games: "
        "a warning names the games it was trained on when the model file records them. "
        "Without a model file as first argument, this is 'iam compare' (deprecated spelling).",
    )
    compare.add_compare_arguments(parser)
    parser.add_argument(
        "--split", choices=tuple(_SPLITS), default="test",
        help="the player's games scored, numbered in file order: test (i %% 5 == 4, default), dev (the development "
        "games, i %% 5 == 3) or all",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.pgn or not _names_a_model(args.pgn[0]):
        print(_DEPRECATED, file=sys.stderr)
        return compare.run(args)
    return evaluate_model(args)


def _names_a_model(path: str) -> bool:
    """Whether the first argument is a model file: by its content, or by its name (a damaged or empty model file
    is still meant as one, and its loading says what is wrong with it)."""
    return path.endswith((".json", ".json.gz")) or is_model_file(path)


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
        games = _split_games(games, args.split, model.training_games_, quiet=args.quiet)
        trained = training_overlap(model.training_games_, games)
        games = sample_test_games(games, args.max_positions, seed=args.seed)
        overlap = None if trained is None else sum(game.index in trained for game in games)
        started = time.perf_counter()
        phase(f"scoring {sum(game.player_moves for game in games)} positions", quiet=args.quiet)
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
    payload = {"model": str(model_path), "split": args.split, "training_games_scored": overlap, **report.to_dict()}
    for run_, cis in zip(payload["runs"], intervals):
        run_.update(cis)
    text = compare._markdown(
        report, ingest, elapsed, intervals, title=f"{model_path} on the given games", scored=_SCORED[args.split]
    )
    if folder is not None:
        compare._write(folder, report, payload, text)
    if args.json:
        print_json(payload)
    else:
        print(text)
        if args.out:
            print(f"written: {args.out}/summary.csv, bands.csv, positions.csv, evaluation.json, evaluation.md")
    _warn(overlap, len(games), ingest, quiet=args.quiet)
    return 0


def _warn(overlap: int | None, scored: int, ingest: IngestReport, *, quiet: bool) -> None:
    """On stderr: the games scored that the model was trained on (even when quiet), and the games skipped."""
    if overlap:
        print(
            f"iam: warning: {overlap} of the {scored} games scored are games the model was trained on: "
            "these figures are not held-out figures (train with --split train, or score other games)",
            file=sys.stderr,
        )
    if (ingest.skipped_total or ingest.filtered) and not quiet:
        print(f"note: {ingest.skipped_total} games skipped ({dict(ingest.skipped)}), {sum(ingest.filtered.values())} "
              f"left out by the filters ({dict(ingest.filtered)})", file=sys.stderr)


_SPLITS: dict[str, Callable[[list[PlayerGame]], list[PlayerGame]]] = {
    "test": test_games, "dev": development_games, "all": list,
}
"""The games each ``--split`` scores, by the held-out protocol's numbers."""
_SCORED = {"test": "test ", "dev": "development ", "all": ""}


def _split_games(
    games: list[PlayerGame], split: str, trained: TrainingGames | None, *, quiet: bool
) -> list[PlayerGame]:
    """The games of ``split``; DataError when there is none, a note when the model learnt from none of ``games``."""
    chosen = _SPLITS[split](games)
    if not chosen:
        raise DataError(
            f"none of the player's {len(games)} games is a {_SCORED[split]}game (numbered in file order); "
            "give --split all to score them all"
        )
    if quiet:
        return chosen
    if trained is None:
        print("iam: note: the model file does not record the games it was trained on: whether these games are "
              "among them cannot be checked", file=sys.stderr)
    elif split != "all" and not trained.among(games):
        print(
            f"iam: note: the model learnt from none of these {len(games)} games; --split all scores every one, "
            f"not only the {len(chosen)} {_SCORED[split]}games",
            file=sys.stderr,
        )
    return chosen


def training_overlap(trained: TrainingGames | None, games: list[PlayerGame]) -> set[int] | None:
    """The numbers of the games of ``games`` the model was trained on; None when its file does not record them."""
    return None if trained is None else {game.index for game in trained.among(games)}
