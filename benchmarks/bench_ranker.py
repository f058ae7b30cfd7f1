"""The move ranker against its targets: held-out accuracy, calibration and cost.

    .venv/bin/python benchmarks/bench_ranker.py --player Botvinnik [--engine /usr/games/stockfish]

One held-out comparison (the held-out protocol: test games are those with index
% 5 == 4, a seeded sample of whole test games capped at --max-positions) of the IAM
model, the move ranker (with the search family), the baselines, and with
--engine the ranker with engine features and the engine's best move; each target
printed with "met" or "missed". Then the cost figures: training the
ranker on 400 games and scoring 1,000 positions, and `predict` latency (median).
Results go to --out as CSV and markdown.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from iam.games.bundled import bundled_pgn
from iam.games.pgn import load_player_games
from iam.measure.evaluation import calibrated_ece, evaluate, first_training_games, sample_test_games
from iam.measure.predictors import PredictorSettings
from iam.priors.positions import player_positions
from iam.ranker import DEFAULT_FAMILIES, MoveRanker
from iam.runtime import Runtime

FAMILIES = DEFAULT_FAMILIES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="Botvinnik", help="a bundled master (or use --pgn)")
    parser.add_argument("--pgn", help="PGN file of the player (default: his bundled file)")
    parser.add_argument("--train-games", default="12,all", help="training sizes (all = every training game)")
    parser.add_argument("--max-positions", type=int, default=2000, help="test positions (whole test games, seeded)")
    parser.add_argument("--train-positions", type=int, default=2000, help="ranker training positions")
    parser.add_argument("--engine", help="UCI engine: adds ranker+engine and engine-best")
    parser.add_argument("--engine-depth", type=int, default=8)
    parser.add_argument("--engine-cache", default="iam-engine-cache.sqlite")
    parser.add_argument(
        "--search-cache",
        help="SQLite file for the search family's scores (read back, never recomputed; figures unchanged)",
    )
    parser.add_argument("--predictors", default="iam,ranker,search-best,opening-memory,random")
    parser.add_argument("--skip-cost", action="store_true", help="only the accuracy table")
    parser.add_argument("--only-cost", action="store_true", help="only the cost figures")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/bench-ranker")
    args = parser.parse_args()

    path = args.pgn or str(bundled_pgn(args.player))
    games, _ = load_player_games([path], player=args.player)
    training = [g for g in games if g.split == "train"]
    test = sample_test_games([g for g in games if g.split == "test"], args.max_positions, seed=args.seed)
    if args.only_cost:
        print("\n".join(cost(training, test, args)))
        return 0
    sizes = [None if s == "all" else int(s) for s in args.train_games.split(",")]
    predictors = args.predictors.split(",")
    if args.engine:
        predictors += [name for name in ("ranker+engine", "engine-best") if name not in predictors]
    settings = PredictorSettings(
        iam={"random_state": args.seed},
        ranker={"families": FAMILIES, "max_positions": args.train_positions, "random_state": args.seed},
        engine_depth=args.engine_depth,
        runtime=Runtime(engine=args.engine, engine_cache=args.engine_cache, search_cache=args.search_cache),
    )
    started = time.perf_counter()
    report = evaluate(
        training + test, player=args.player, train_sizes=sizes, predictors=predictors, settings=settings,
        runtime=Runtime(jobs=args.jobs),
    )
    seconds = time.perf_counter() - started
    summary = report.summary_frame()
    bands = report.band_frame()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / f"summary-{args.player}.csv", index=False)
    bands.to_csv(out / f"bands-{args.player}.csv", index=False)
    lines = [
        f"# {args.player}: {len(test)} test games, {int(summary['test_positions'].iloc[0])} positions; {seconds:.0f} s",
        "",
    ]
    lines.append(
        summary[["predictor", "train_games", "coverage", "top1", "top3", "ece", "brier", "log_loss"]].to_markdown(
            index=False, floatfmt=".3f"
        )
    )
    lines += ["", *targets(summary, bands, len(training), report.position_frame())]
    if not args.skip_cost:
        lines += ["", *cost(training, test, args)]
    text = "\n".join(lines) + "\n"
    (out / f"bench-{args.player}.md").write_text(text)
    print(text)
    return 0


def targets(summary, bands, training_count: int, positions) -> list[str]:
    """Each target with the measured figure and met/missed (``positions``: every run's records)."""
    rows = []

    def check(label: str, value: float, goal: float, higher: bool = True) -> None:
        met = value >= goal if higher else value <= goal
        rows.append(f"- {label}: {value:.3f} (target {'>=' if higher else '<='} {goal}) {'met' if met else 'missed'}")

    def figure(predictor: str, size: int, name: str) -> float | None:
        found = summary[(summary["predictor"] == predictor) & (summary["train_games"] == size)]
        return float(found[name].iloc[0]) if len(found) else None

    full = training_count
    if figure("ranker", full, "top1") is not None:
        check("ranker top-1, all training games", figure("ranker", full, "top1"), 0.45)
        check("ranker top-3", figure("ranker", full, "top3"), 0.70)
        check("ranker ECE", figure("ranker", full, "ece"), 0.02, higher=False)
        scored = positions[
            (positions["predictor"] == "ranker") & (positions["train_games"] == full) & (positions["candidates"] > 0)
        ]
        floor = calibrated_ece(scored["top_belief"].to_numpy())
        rows.append(
            f"  (perfect beliefs with the same top beliefs would show ECE {statistics.median(floor):.3f} "
            "at the median, "
            f"95% of draws under {float(np.quantile(floor, 0.95)):.3f}, on these {len(scored)} positions)"
        )
        own = bands[(bands["predictor"] == "ranker") & (bands["train_games"] == full)]
        share = float(own.loc[own["band"] == ">50%", "predictions"].sum() / own["predictions"].sum())
        check("ranker share of positions in the >50% band", share, 0.20)
    if figure("ranker", 12, "top1") is not None:
        check("ranker top-1 from 12 games (with the population prior)", figure("ranker", 12, "top1"), 0.40)
    if figure("ranker+engine", full, "top1") is not None:
        check("ranker+engine top-1", figure("ranker+engine", full, "top1"), 0.58)
    return rows


def cost(training, test, args) -> list[str]:
    """Train the ranker on 400 games, score 1,000 test positions; predict latency after load."""
    started = time.perf_counter()
    model = MoveRanker(families=FAMILIES, max_positions=args.train_positions, random_state=args.seed)
    model.fit(first_training_games(training, 400), runtime=Runtime(jobs=args.jobs))
    fitted = time.perf_counter() - started
    positions = player_positions(sample_test_games(test, 1000, seed=args.seed))
    latencies = []
    for position in positions:
        tick = time.perf_counter()
        model.predict_proba(position.board)
        latencies.append(time.perf_counter() - tick)
    total = time.perf_counter() - started
    p50 = statistics.median(latencies)
    return [
        f"- training on 400 games ({args.train_positions} positions, --jobs {args.jobs}): {fitted:.0f} s; "
        f"with scoring {len(positions)} positions: {total:.0f} s (target <= 120 s) "
        f"{'met' if total <= 120 else 'missed'}",
        f"- predict latency p50: {p50 * 1000:.1f} ms (target <= 20 ms) {'met' if p50 <= 0.02 else 'missed'}",
    ]


if __name__ == "__main__":
    sys.exit(main())
