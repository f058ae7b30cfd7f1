"""The guided fast search's speed: the plain search, a null guide and a guided search, in one run.

    .venv/bin/python benchmarks/bench_guided.py [--positions 10] [--depth 4] [--repeats 3] [--json]

On the middlegame positions the speed benchmarks share (``benchmarks/positions.py``), with
the side not to move as the modelled player, each position is searched to ``--depth``
by three searches, timed alternately ``--repeats`` times, each a fresh search:

* *plain*: ``ChessSearch()``;
* *null*: a :class:`~search.chess.guided.ModelGuide` whose predictor (read at his nodes
  one ply below the root) and cheap predictor (every deeper node of his with two plies
  left) predict nothing: the hook's whole cost, and the same tree as plain (checked);
* *guided*: Botvinnik's reply policy (fitted on 6,000 of his fitting positions, seed 1;
  no development or test game) as the cheap predictor under the default guidance.

Reported: per search the median over positions of its nodes per second (main search plus
quiescence over the median time), and the median over positions of each per-position
ratio to plain, with its range; for the guided search also the node ratio and the
policy's share of its time.
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
from search.chess.guided import GuideSettings, ModelGuide  # noqa: E402
from search.opponent.predictor import NullPredictor  # noqa: E402


class Silent:
    """A cheap predictor that predicts nothing."""

    def position_beliefs(self, position) -> dict:
        return {}


def _timed(search: ChessSearch, board, depth: int) -> tuple[float, object]:
    started = time.perf_counter()
    result = search.search(board, Limits(depth=depth))
    return time.perf_counter() - started, result


def measure(boards, policy, depth: int, repeats: int) -> dict:
    makers = {
        "plain": lambda: ChessSearch(),
        "null": lambda: ChessSearch(guide=ModelGuide(NullPredictor(), cheap=Silent(), settings=GuideSettings(near=1))),
        "guided": lambda: ChessSearch(guide=ModelGuide(cheap=policy)),
    }
    rows = []
    for number, board in enumerate(boards):
        times = {name: [] for name in makers}
        results, shares = {}, []
        for _ in range(repeats):
            for name, make in makers.items():
                search = make()
                seconds, results[name] = _timed(search, board, depth)
                times[name].append(seconds)
                if name == "guided":
                    shares.append(search.guide.stats().seconds / seconds)
        plain, null = results["plain"], results["null"]
        if (null.value, null.move, null.nodes, null.qnodes) != (plain.value, plain.move, plain.nodes, plain.qnodes):
            raise AssertionError(f"the null guide changed the search at {board.fen()}")
        row = {"position": number}
        for name, result in results.items():
            row[f"{name}_nps"] = (result.nodes + result.qnodes) / statistics.median(times[name])
        row["null_speed_ratio"] = row["null_nps"] / row["plain_nps"]
        row["guided_speed_ratio"] = row["guided_nps"] / row["plain_nps"]
        row["guided_time_ratio"] = statistics.median(times["guided"]) / statistics.median(times["plain"])
        guided = results["guided"]
        row["guided_node_ratio"] = (guided.nodes + guided.qnodes) / (plain.nodes + plain.qnodes)
        row["guided_policy_share"] = statistics.median(shares)
        rows.append(row)
    summary = {}
    for key in rows[0]:
        if key == "position":
            continue
        values = [row[key] for row in rows]
        summary[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return {"summary": summary, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print every position's figures as JSON")
    args = parser.parse_args()
    held = load_heldout(None, "Botvinnik", quiet=True)
    policy = fit_reply_policy(player_positions(held.fitting, sample=6000, random_state=1))
    result = measure(middlegame_positions(args.positions), policy, args.depth, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"depth {args.depth}, {args.positions} positions, {args.repeats} alternate timings each; "
        "medians over positions (range):"
    )
    for key, figures in result["summary"].items():
        print(f"  {key}: {figures['median']:,.3f} ({figures['min']:,.3f} - {figures['max']:,.3f})")


if __name__ == "__main__":
    main()
