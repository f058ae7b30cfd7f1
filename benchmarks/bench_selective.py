"""The selective search at the modelled player's nodes against the plain search, in one run.

    .venv/bin/python benchmarks/bench_selective.py [--positions 20] [--depths 3 4] [--below 0.05]
        [--nodes 10000] [--repeats 3] [--json]

The reply policy of Botvinnik is fitted as the move ranker fits it (6,000 of his fitting
positions, seed 1; no development or test game). On the middlegame positions the speed
benchmarks share (``benchmarks/positions.py``), with the side not to move as the modelled
player:

* at each fixed depth, the plain search and the selective one (his quiet moves believed
  less than ``--below`` searched a ply shallower), each a fresh search, timed alternately
  ``--repeats`` times: per position the ratio of the median times and the ratio of the
  nodes (main search plus quiescence, which the load cannot move), and the share of the
  selective search's time spent in the policy (a timed wrapper around it);
* at a fixed node budget (``--nodes``, the matches' 10,000), the depth each completes.

Reported: medians over the positions, with the range of the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from positions import middlegame_positions  # noqa: E402  (benchmarks/positions.py)

from iam.games.player_games import load_heldout  # noqa: E402
from iam.priors.positions import player_positions  # noqa: E402
from iam.ranker.replytable import fit_reply_policy  # noqa: E402
from search import Limits  # noqa: E402
from search.chess.engine import ChessSearch  # noqa: E402
from search.chess.replies import ReplyPolicy  # noqa: E402


class TimedPolicy(ReplyPolicy):
    """The policy, counting the seconds spent in it."""

    seconds = 0.0

    def position_beliefs(self, position):
        started = time.perf_counter()
        try:
            return super().position_beliefs(position)
        finally:
            self.seconds += time.perf_counter() - started


def _timed(search: ChessSearch, board, limits: Limits) -> tuple[float, object]:
    started = time.perf_counter()
    result = search.search(board, limits)
    return time.perf_counter() - started, result


def measure(boards, weights, depths, below: float, nodes: int, repeats: int) -> dict:
    rows = []
    for number, board in enumerate(boards):
        for depth in depths:
            plain_times, selective_times, policy_shares = [], [], []
            for _ in range(repeats):
                seconds, plain = _timed(ChessSearch(), board, Limits(depth=depth))
                plain_times.append(seconds)
                policy = TimedPolicy(weights)
                seconds, selective = _timed(ChessSearch(replies=policy, reduce_below=below), board, Limits(depth=depth))
                selective_times.append(seconds)
                policy_shares.append(policy.seconds / seconds)
            rows.append({
                "position": number, "depth": depth,
                "time_ratio": statistics.median(selective_times) / statistics.median(plain_times),
                "node_ratio": (selective.nodes + selective.qnodes) / (plain.nodes + plain.qnodes),
                "policy_share": statistics.median(policy_shares),
                "same_move": selective.move == plain.move,
            })
        plain = ChessSearch().search(board, Limits(nodes=nodes))
        selective = ChessSearch(replies=ReplyPolicy(weights), reduce_below=below).search(board, Limits(nodes=nodes))
        rows.append({"position": number, "depth": None, "plain_depth": plain.depth, "selective_depth": selective.depth})
    summary = {}
    for depth in depths:
        at = [row for row in rows if row["depth"] == depth]
        summary[f"depth {depth}"] = {
            key: {
                "median": statistics.median(row[key] for row in at),
                "min": min(row[key] for row in at),
                "max": max(row[key] for row in at),
            }
            for key in ("time_ratio", "node_ratio", "policy_share")
        } | {"same_move": sum(row["same_move"] for row in at) / len(at)}
    budget = [row for row in rows if row["depth"] is None]
    summary[f"{nodes} nodes"] = {
        "plain_depth_mean": statistics.mean(row["plain_depth"] for row in budget),
        "selective_depth_mean": statistics.mean(row["selective_depth"] for row in budget),
        "deeper": sum(row["selective_depth"] > row["plain_depth"] for row in budget),
        "shallower": sum(row["selective_depth"] < row["plain_depth"] for row in budget),
    }
    return {"summary": summary, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--below", type=float, default=0.05)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print every position's figures as JSON")
    args = parser.parse_args()
    held = load_heldout(None, "Botvinnik", quiet=True)
    weights = fit_reply_policy(player_positions(held.fitting, sample=6000, random_state=1)).weights
    result = measure(middlegame_positions(args.positions), weights, args.depths, args.below, args.nodes, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"selective search (his quiet moves under {args.below:g} a ply shallower) / plain search, "
          f"{args.positions} positions, medians (range):")
    for name, figures in result["summary"].items():
        if name.startswith("depth"):
            parts = [f"{key} {value['median']:.3f} ({value['min']:.3f}-{value['max']:.3f})"
                     for key, value in figures.items() if isinstance(value, dict)]
            print(f"  {name}: " + ", ".join(parts) + f", same move {figures['same_move']:.0%}")
        else:
            print(f"  {name}: mean depth plain {figures['plain_depth_mean']:.2f}, "
                  f"selective {figures['selective_depth_mean']:.2f}; "
                  f"deeper at {figures['deeper']}, shallower at {figures['shallower']}")


if __name__ == "__main__":
    main()
