"""Benchmark of the opponent model on the bundled Botvinnik games.

Measures, in one run and against references measured in the same run:

* training time (reading the whole PGN file + ``OpponentModel().fit`` on its training
  games, 713 of 891) against python-chess's own parse-and-replay of every game in the
  file: medians of ``--repeats`` runs, and the ratio (wall clock, and CPU time, which a
  busy shared machine disturbs less); also with ``belief="rules"`` (IAM's chunk library
  and rote memory without the learned belief's leave-one-game-out sample);
* peak memory (max RSS) of a training process, next to that of a parse-and-replay process;
* predict latency of ``predict_proba`` over 1,000 held-out positions (p50, p99), next
  to python-chess listing the legal moves of the same positions;
* the belief-band table for 12, 22, 80 and all training games.

Each figure with a target is printed next to it, with "met" or "missed":
training / parse-and-replay <= 2.0, peak memory <= 500 MB, predict p50 <= 2 ms, p99 <= 10 ms.

Run: ``python benchmarks/bench_iam.py [--repeats 3] [--out results/benchmarks]``.
The machine is shared and noisy: read the ratios, not single timings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pandas as pd

from iam.chunks.model import OpponentModel
from iam.games.bundled import default_pgn
from iam.games.pgn import load_player_games
from iam.measure.evaluation import evaluate, first_training_games
from iam.runtime import Runtime

_REPLAY = """
import sys, chess.pgn
with open(sys.argv[1], encoding="utf-8") as handle:
    while (game := chess.pgn.read_game(handle)) is not None:
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
"""
_TRAIN = """
import sys
from iam.chunks.model import OpponentModel
from iam.games.pgn import load_player_games
games, _ = load_player_games([sys.argv[1]], player="Botvinnik", split="train")
OpponentModel().fit(games)
"""
TARGETS = {
    "training_over_parse_and_replay": 2.0,
    "training_rules_belief_over_parse_and_replay": 2.0,
    "training_mb": 500.0,
    "predict_p50_ms": 2.0,
    "predict_p99_ms": 10.0,
}
"""The targets (all upper bounds)."""


def parse_and_replay(path: Path) -> tuple[float, float]:
    """Seconds (wall, CPU) python-chess takes to parse every game and push its moves."""
    wall, cpu = time.perf_counter(), time.process_time()
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
    return time.perf_counter() - wall, time.process_time() - cpu


def train(path: Path, belief: str = "learned") -> tuple[float, float, float]:
    """Seconds to read the file's games and to fit a model on its training games (wall), and the CPU total."""
    wall, cpu = time.perf_counter(), time.process_time()
    games, _ = load_player_games([path], player="Botvinnik", split="train")
    read = time.perf_counter() - wall
    OpponentModel(belief=belief).fit(games)
    return read, time.perf_counter() - wall - read, time.process_time() - cpu


def peak_rss_mb(script: str, path: Path) -> float:
    """Peak resident memory (MB) of a fresh Python process running ``script``.

    The child reports its own VmHWM (Linux), which starts afresh at exec; the
    ``ru_maxrss`` of a child would include the parent's size at fork time.
    """
    report = (
        "\nfrom pathlib import Path\n"
        "status = Path('/proc/self/status').read_text().splitlines()\n"
        "print(next(line.split()[1] for line in status if line.startswith('VmHWM')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script + report, str(path)], check=True, capture_output=True, text=True
    )
    return int(done.stdout.split()[-1]) / 1024.0


def held_out_boards(games, count: int) -> list[chess.Board]:
    """The first ``count`` positions of the test games where the player is to move (with history)."""
    boards = []
    for game in (g for g in games if g.split == "test"):
        board = game.board()
        for move in game.moves:
            if board.turn == game.color:
                boards.append(board.copy())
                if len(boards) == count:
                    return boards
            board.push(move)
    return boards


def latencies(function, boards, passes: int) -> np.ndarray:
    """Per-board median over ``passes`` of the seconds one call takes."""
    times = np.zeros((passes, len(boards)))
    for p in range(passes):
        for i, board in enumerate(boards):
            started = time.perf_counter()
            function(board)
            times[p, i] = time.perf_counter() - started
    return np.median(times, axis=0)


def target_table(figures: dict[str, float]) -> pd.DataFrame:
    """Each figure with a target: its value, the target (an upper bound) and whether it is met."""
    rows = [
        {
            "figure": name,
            "value": figures[name],
            "target": f"<= {limit:g}",
            "result": "met" if figures[name] <= limit else "missed",
        }
        for name, limit in TARGETS.items()
    ]
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--out", default="results/benchmarks")
    args = parser.parse_args()
    path = default_pgn()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    reference = [parse_and_replay(path) for _ in range(args.repeats)]
    runs = [train(path) for _ in range(args.repeats)]
    rules = [train(path, belief="rules") for _ in range(args.repeats)]
    memory = {"training_mb": peak_rss_mb(_TRAIN, path), "parse_and_replay_mb": peak_rss_mb(_REPLAY, path)}

    def ratio(trainings, which):
        if which == "wall":
            return statistics.median((r + f) / ref for (r, f, _), (ref, _) in zip(trainings, reference))
        return statistics.median(c / ref_cpu for (_, _, c), (_, ref_cpu) in zip(trainings, reference))

    games, _ = load_player_games([path], player="Botvinnik")
    model = OpponentModel().fit(first_training_games(games, None))
    boards = held_out_boards(games, args.positions)
    predict = latencies(model.predict_proba, boards, passes=3)
    legal = latencies(lambda board: list(board.legal_moves), boards, passes=3)

    report = evaluate(games, player="Botvinnik", runtime=Runtime(jobs=2))
    bands = report.band_frame()
    summary = report.summary_frame()

    figures = {
        "parse_and_replay_s_median": statistics.median(wall for wall, _ in reference),
        "training_s_median": statistics.median(r + f for r, f, _ in runs),
        "reading_s_median": statistics.median(r for r, _, _ in runs),
        "fitting_s_median": statistics.median(f for _, f, _ in runs),
        "training_over_parse_and_replay": ratio(runs, "wall"),
        "training_over_parse_and_replay_cpu": ratio(runs, "cpu"),
        "training_rules_belief_s_median": statistics.median(r + f for r, f, _ in rules),
        "training_rules_belief_over_parse_and_replay": ratio(rules, "wall"),
        "training_rules_belief_over_parse_and_replay_cpu": ratio(rules, "cpu"),
        **memory,
        "predict_positions": len(boards),
        "predict_p50_ms": float(np.percentile(predict, 50) * 1000),
        "predict_p99_ms": float(np.percentile(predict, 99) * 1000),
        "legal_moves_p50_ms": float(np.percentile(legal, 50) * 1000),
        "predict_over_legal_moves_p50": float(np.percentile(predict, 50) / np.percentile(legal, 50)),
    }
    checks = target_table(figures)
    (out / "iam_benchmark.json").write_text(
        json.dumps({"figures": figures, "targets": checks.to_dict("records"), "evaluation": report.to_dict()}, indent=2)
    )
    summary.to_csv(out / "iam_summary.csv", index=False)
    bands.to_csv(out / "iam_bands.csv", index=False)
    print(checks.to_markdown(index=False, floatfmt=".3f"))
    print()
    print(pd.Series(figures).to_frame("value").to_markdown(floatfmt=".3f"))
    print()
    columns = ["train_games", "test_positions", "coverage", "top1", "top3", "ece", "brier"]
    print(summary[columns].astype({"train_games": str, "test_positions": str}).to_markdown(index=False, floatfmt=".3f"))
    print()
    print(bands.to_markdown(index=False, floatfmt=".3f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
