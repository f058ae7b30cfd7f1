"""``iam compare``: every predictor retrained at several training sizes, one held-out table.

The bundled Botvinnik games by default.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from iam.cli._common import (
    add_quiet,
    add_ranker_arguments,
    add_scheduler_argument,
    check_seed,
    command_runtime,
    finite,
    output_dir,
    print_json,
    progress,
    ranker_params,
)
from iam.cli._games import add_game_arguments, read_player_games
from iam.errors import DataError
from iam.evidence.registry import without_engine
from iam.games.heldout import parse_sizes, sample_test_games, test_games, training_games
from iam.measure.bootstrap import interval, resample_games, summary_figures
from iam.measure.evaluation import evaluate
from iam.measure.predictors import PREDICTORS, TRAINED, PredictorSettings, available_predictors
from iam.runtime import Runtime

DESCRIPTION = (
    "Retrain every predictor on the first N training games of a player for several N (game i is a test "
    "game when i % 5 == 4), predict every move of the player in the test games, and report coverage, "
    "top-1/top-3 accuracy, calibration and the belief-band table of each. Costly: one training per "
    "predictor and size, and every test position scored by each; --train-games, --predictor, --max-positions, "
    "--search-depth and --train-positions bound the work (measured in docs/results/ranker.md)."
)
_SUMMARY_COLUMNS = (
    "predictor", "train_games", "coverage", "top1", "top1_95", "top3", "ece", "brier", "log_loss", "log_loss_95"
)
"""The summary table's columns, in order (those a report has)."""
PLAYER_HELP = (
    "player name (default: Botvinnik); without PGN, the bundled file of this player if there is one "
    "(Botvinnik, Capablanca, Alekhine, Lasker, Smyslov, Spassky), else Botvinnik's file"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare predictors retrained at several training sizes on held-out games",
        description=DESCRIPTION,
    )
    add_compare_arguments(parser)
    parser.set_defaults(run=run)


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``iam compare`` (PGN files and filters included)."""
    add_game_arguments(parser, optional=True, player_help=PLAYER_HELP)
    parser.add_argument(
        "--train-games", default="12,22,80,all", metavar="LIST", help="training sizes, e.g. 12,22,80,all (default)"
    )
    parser.add_argument(
        "--predictor",
        default="all",
        metavar="LIST",
        help="predictors compared, some of iam,ranker,ranker+engine,search-best,engine-best,opening-memory,random "
        "(default all: those needing an engine only with --engine)",
    )
    parser.add_argument(
        "--belief", choices=("learned", "rules"), default="learned",
        help="iam: the belief to evaluate (default learned)",
    )
    parser.add_argument(
        "--max-positions", type=int, metavar="N",
        help="score at most N test positions: whole test games sampled with --seed (default: all)",
    )
    parser.add_argument(
        "--seed", type=int, default=0,
        help="random seed of the models' position samples and of --max-positions (default 0)",
    )
    add_ranker_arguments(parser)
    parser.set_defaults(jobs=1)
    add_scheduler_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", metavar="DIR", help="also write CSV and JSON files to this folder (default: none)")
    add_quiet(parser)


def parse_predictors(text: str, settings) -> list[str]:
    """``"iam,ranker"`` or ``"all"`` -> predictor names (DataError on an unknown one or a missing engine)."""
    if text.strip() == "all":
        return available_predictors(settings)
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in PREDICTORS]
    if unknown or not names:
        raise DataError(f"--predictor takes 'all' or some of {','.join(PREDICTORS)}, not {text!r}")
    missing = [name for name in names if name not in available_predictors(settings)]
    if missing:
        raise DataError(f"{', '.join(missing)} needs --engine PATH")
    return list(dict.fromkeys(names))


def run(args: argparse.Namespace) -> int:
    sizes = parse_sizes(args.train_games)
    runtime = command_runtime(args)
    check_seed(args.seed)
    if args.max_positions is not None and args.max_positions < 1:
        raise DataError("--max-positions must be at least 1")
    settings = _settings(args, runtime)
    predictors = parse_predictors(args.predictor, settings)
    runs = sum(len(sizes) if name in TRAINED else 1 for name in predictors)
    # Runs go to the workers; a single run keeps them for its ranker's training features instead.
    features = dataclasses.replace(runtime, jobs=runtime.jobs if runs == 1 else 1)
    settings = dataclasses.replace(settings, runtime=features)
    folder = output_dir(args.out) if args.out else None
    games, ingest, player, _ = read_player_games(args, optional=True, quiet=args.quiet)
    training = training_games(games)
    test = test_games(games)
    if not training or not test:
        raise DataError(f"{player} needs at least one training and one test game (found {len(games)} games)")
    test = sample_test_games(test, args.max_positions, seed=args.seed)
    started = time.perf_counter()
    report = evaluate(
        training + test,
        player=player,
        train_sizes=sizes,
        predictors=predictors,
        settings=settings,
        runtime=dataclasses.replace(runtime, jobs=runtime.jobs if runs > 1 else 1),
        progress=lambda finished: progress(
            finished, quiet=args.quiet, total=runs, desc="training and scoring", unit=" runs"
        ),
    )
    elapsed = time.perf_counter() - started
    intervals = _intervals(report, seed=args.seed)
    payload = report.to_dict()
    for run_, cis in zip(payload["runs"], intervals):
        run_.update(cis)
    if folder is not None:
        _write(folder, report, payload, _markdown(report, ingest, elapsed, intervals))
    if args.json:
        print_json(payload)
    else:
        print(_markdown(report, ingest, elapsed, intervals))
        if args.out:
            print(f"written: {args.out}/summary.csv, bands.csv, positions.csv, evaluation.json, evaluation.md")
    if ingest.skipped_total and not args.quiet:
        print(f"note: {ingest.skipped_total} games skipped ({dict(ingest.skipped)})", file=sys.stderr)
    return 0


def _settings(args: argparse.Namespace, runtime: Runtime) -> PredictorSettings:
    """The predictors' settings from the ranker's and the engine's options, run on ``runtime`` (DataError when
    wrong)."""
    ranker = ranker_params(args)
    ranker.update(families=without_engine(ranker["families"]))
    if not ranker["families"]:
        raise DataError("--families needs a family besides engine and glance (the ranker+engine row adds them)")
    return PredictorSettings(
        iam={"belief": args.belief, "random_state": args.seed},
        ranker={**{k: v for k, v in ranker.items() if not k.startswith("engine")}, "random_state": args.seed},
        engine_depth=args.engine_depth,
        runtime=runtime,
        search_depth=args.search_depth,
    )


def _write(folder: Path, report, payload: dict, markdown: str) -> None:
    """The comparison's tables as CSV, its payload as JSON and its summary as markdown in ``folder``."""
    try:
        report.summary_frame().to_csv(folder / "summary.csv", index=False)
        report.band_frame().to_csv(folder / "bands.csv", index=False)
        report.position_frame().to_csv(folder / "positions.csv", index=False)
        (folder / "evaluation.json").write_text(_json_text(payload))
        (folder / "evaluation.md").write_text(markdown)
    except OSError as exc:
        raise DataError(f"cannot write to {folder}: {exc.strerror or exc}") from None


def _intervals(report, *, seed: int) -> list[dict[str, list[float]]]:
    """Per run, 95% bootstrap intervals over test games of top-1, top-3, log loss and ECE (``<figure>_ci``)."""
    games = sorted({int(game) for run in report.runs for game in run.records["game"]})
    if not games:
        return [{} for _ in report.runs]
    draws = resample_games(games, seed=seed)
    found = []
    for run in report.runs:
        figures = summary_figures(run.records, draws)
        found.append({f"{name}_ci": list(interval(figures[name])) for name in ("top1", "top3", "log_loss", "ece")})
    return found


def _markdown(
    report,
    ingest,
    elapsed: float,
    intervals: list[dict] | None = None,
    *,
    title: str = "held-out evaluation",
    scored: str = "test ",
) -> str:
    """The readable report: summary figures and the belief-band table (hits/predictions and rate)."""
    summary = report.summary_frame()
    if intervals:
        summary = summary.assign(
            top1_95=[_span(cis.get("top1_ci")) for cis in intervals],
            log_loss_95=[_span(cis.get("log_loss_ci")) for cis in intervals],
        )
    bands = report.band_frame()
    lines = [
        f"# {report.player}: {title}",
        "",
        f"{report.test_games} {scored}games, {int(summary['test_positions'].iloc[0])} {scored}positions "
        f"(games read: {ingest.used}, skipped: {ingest.skipped_total}); {elapsed:.0f} s",
        "",
        summary[[c for c in _SUMMARY_COLUMNS if c in summary]]
        .astype({"train_games": str})
        .to_markdown(index=False, floatfmt=".3f"),
        "",
        "95%: percentile bootstrap intervals over test games (1,000 resamples).",
        "",
        "Belief bands: hits/predictions (hit rate) of each test position's top prediction",
        "",
    ]
    cells = bands.assign(
        cell=[
            f"{h}/{p} ({r:.0%})" if p else "0/0"
            for h, p, r in zip(bands["hits"], bands["predictions"], bands["rate"].fillna(0))
        ]
    )
    table = cells.pivot(index=["predictor", "train_games"], columns="band", values="cell")
    table = table.reindex(list(dict.fromkeys(zip(bands["predictor"], bands["train_games"]))))
    order = [band for band in ("<25%", "25-30%", "30-40%", "40-50%", ">50%") if band in table.columns]
    lines.append(table[order].reset_index().to_markdown(index=False))
    return "\n".join(lines) + "\n"


def _span(ci) -> str:
    """``0.344-0.393`` for an interval (``-`` when there is none)."""
    if not ci or ci[0] != ci[0]:
        return "-"
    return f"{ci[0]:.3f}-{ci[1]:.3f}"


def _json_text(payload) -> str:

    return json.dumps(finite(payload), indent=2) + "\n"
