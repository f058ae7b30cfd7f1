"""Loading a fitted move ranker and predicting one position: this tree against a reference revision.

    .venv/bin/python benchmarks/bench_load_predict.py [--reference REV] [--runs 7] [--json]

A small ranker is fitted once (this tree, the bundled Botvinnik games, the default
families) and saved. Then, alternately for this tree and for ``REV`` checked out in a
temporary git worktree, a fresh Python process imports the toolkit, loads the model
file and predicts the position after 1. e4 e5 2. Nf3 (the first prediction, and the
median of ten more on other positions). Reported per tree: the medians over ``--runs``
processes of the import, the load and the predictions, and this tree's ratio to the
reference (below 1: faster). Both trees run in the same interpreter and the same run,
so the shared machine's load weighs on both alike. The default reference is the
revision that set the version to 0.2.0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBE = r"""
import json, sys, time
started = time.perf_counter()
import chess
from iam.measure.predictors import load_predictor
imported = time.perf_counter()
model = load_predictor(sys.argv[1])
loaded = time.perf_counter()
board = chess.Board()
for san in ("e4", "e5", "Nf3"):
    board.push_san(san)
model.predict_proba(board)
first = time.perf_counter()
later = []
for san in ("Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3"):
    board.push_san(san)
    tick = time.perf_counter()
    model.predict_proba(board)
    later.append(time.perf_counter() - tick)
later.sort()
print(json.dumps({"import": imported - started, "load": loaded - imported, "first_predict": first - loaded,
                  "predict": later[len(later) // 2]}))
"""


def _reference_revision() -> str:
    found = subprocess.run(["git", "log", "--grep", "Version 0.2.0", "-1", "--format=%H"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    return found or "HEAD"


def _fit_model(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from iam.games.bundled import default_pgn
    from iam.games.pgn import load_player_games
    from iam.measure.evaluation import first_training_games
    from iam.ranker import MoveRanker

    games, _ = load_player_games([default_pgn()], player="Botvinnik")
    path = folder / "ranker.json.gz"
    MoveRanker(max_positions=300).fit(first_training_games(games, 60)).save(path)
    return path


def _probe(tree: Path, model: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", _PROBE, str(model)], cwd=tree, env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", help="git revision to compare with (default: the 0.2.0 revision)")
    parser.add_argument("--runs", type=int, default=7, help="processes per tree (default 7)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    reference = args.reference or _reference_revision()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        model = _fit_model(folder)
        other = folder / "reference"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(other), reference], cwd=ROOT, check=True)
        try:
            timings: dict[str, list[dict[str, float]]] = {"this tree": [], "reference": []}
            for _ in range(args.runs):
                timings["this tree"].append(_probe(ROOT, model))
                timings["reference"].append(_probe(other, model))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT, check=False)
    medians = {
        tree: {key: statistics.median(run[key] for run in runs) for key in runs[0]} for tree, runs in timings.items()
    }
    ratios = {key: medians["this tree"][key] / medians["reference"][key] for key in medians["reference"]}
    figures = {"reference": reference, "runs": args.runs, "medians_s": medians, "ratio_this_to_reference": ratios}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"reference {reference[:12]}, {args.runs} processes per tree (medians, seconds)")
    print(f"{'':12} {'import':>8} {'load':>8} {'1st pred':>9} {'predict':>8}")
    for tree, row in medians.items():
        print(f"{tree:12} {row['import']:8.3f} {row['load']:8.3f} {row['first_predict']:9.3f} {row['predict']:8.4f}")
    print(
        f"{'ratio':12} {ratios['import']:8.2f} {ratios['load']:8.2f} "
        f"{ratios['first_predict']:9.2f} {ratios['predict']:8.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
