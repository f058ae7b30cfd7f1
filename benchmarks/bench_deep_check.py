"""How deep can the sparring partner check a drawn move, and how often does he blunder by that check?

    .venv/bin/python benchmarks/bench_deep_check.py --player NAME [--positions 100] [--depths 4 5 6 7 8]
        [--seed 0] --out DIR

On ``--positions`` positions of his TRAINING games (development data, drawn with the seed), his move
is checked by :func:`search.chess.imitation.deep_check` at each depth: the nodes of the
iterative-deepening search of the position (the cost of a check) and his move's loss against the
best. Writes ``checks.csv`` and ``summary.json`` (per depth: the median and 90th percentile of the
nodes, the median seconds, and his share of moves losing 200 centipawns or more) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from iam import load_player_games  # noqa: E402
from search.chess.engine import ChessSearch  # noqa: E402
from search.chess.imitation import BLUNDER_LOSS, deep_check  # noqa: E402
from search.result import Limits  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_sparring import test_positions  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True)
    parser.add_argument("--pgn", help="his games (default: the bundled file of the player)")
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--depths", type=int, nargs="+", default=[4, 5, 6, 7, 8])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from iam.games.bundled import bundled_pgn

    games, _ = load_player_games([args.pgn or bundled_pgn(args.player)], player=args.player)
    train = [game for game in games if game.split == "train"]
    positions = test_positions(train, args.positions, args.seed)
    search = ChessSearch()
    rows = []
    for number, (board, played) in enumerate(positions):
        for depth in args.depths:
            search.clear()
            started = time.perf_counter()
            nodes = 0
            for _ in search.iterate(board, Limits(depth=depth)):
                nodes = search.nodes + search.qnodes
            search.clear()
            found = deep_check(search, board, played, Limits(depth=depth))
            rows.append({"position": number, "depth": depth, "nodes": nodes,
                         "seconds": time.perf_counter() - started,
                         "loss": None if found is None else found.loss})
    frame = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "checks.csv", index=False)
    summary = {
        str(depth): {"nodes_median": int(group["nodes"].median()), "nodes_p90": int(group["nodes"].quantile(0.9)),
                     "seconds_median": round(float(group["seconds"].median()), 3),
                     "his_blunder_rate": round(float((group["loss"] >= BLUNDER_LOSS).mean()), 4)}
        for depth, group in frame.groupby("depth")
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
