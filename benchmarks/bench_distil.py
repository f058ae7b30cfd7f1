"""The cheap predictors beside a player's move ranker: cost per call, top-1, top-3.

    .venv/bin/python benchmarks/bench_distil.py [--ranker PATH] [--player Botvinnik] [--distil 1000]
        [--fit 6000] [--positions 300] [--json]

The ranker (``--ranker``, a saved :class:`iam.ranker.MoveRanker`; fitted here on the
player's fitting games when not given: 2,000 positions, seed 0) is the teacher. On
``--distil`` positions of his fitting games (seed 1) the policy is fitted to the
ranker's beliefs (:func:`iam.ranker.replytable.distil_reply_policy`, share 1) and, for
comparison, to the moves he played there and on ``--fit`` positions (the ranker's own
reply policy, :func:`~iam.ranker.replytable.fit_reply_policy`). The *quick* ranker (the
families that search nothing, :data:`iam.ranker.QUICK_FAMILIES`) is fitted like the
ranker, on 2,000 positions of his fitting games. All are measured on
``--positions`` positions of his development games (never fitted on; no test game):

* top-1 and top-3: how often the move he played is each model's first (first three);
* cost per call: the median seconds of one position's beliefs, the rankers from a
  ``chess.Board``, the policies from the fast board the search holds (as inside the
  search), each timed over the same positions, and the ratio ranker / the cheaper one.
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

from iam.games.player_games import load_heldout  # noqa: E402
from iam.priors.positions import player_positions  # noqa: E402
from iam.ranker import QUICK_FAMILIES, MoveRanker  # noqa: E402
from iam.ranker.replytable import distil_reply_policy, fit_reply_policy  # noqa: E402
from search.chess.board import Position, to_move  # noqa: E402


def _ranked(beliefs: dict) -> list:
    return sorted(beliefs, key=beliefs.get, reverse=True)


def measure(rankers: dict, policies: dict, positions) -> dict:
    """Figures of ``rankers`` (read from a ``chess.Board``; the first is the reference)
    and ``policies`` (from the fast board)."""
    figures = {name: {"top1": 0, "top3": 0, "seconds": []} for name in [*rankers, *policies]}
    for position in positions:
        played = position.played_move
        for name, ranker in rankers.items():
            started = time.perf_counter()
            beliefs = ranker.predict_proba(position.board)
            figures[name]["seconds"].append(time.perf_counter() - started)
            ranked = _ranked(beliefs)
            figures[name]["top1"] += ranked[:1] == [played]
            figures[name]["top3"] += played in ranked[:3]
        fast = Position.from_board(position.board)
        for name, policy in policies.items():
            started = time.perf_counter()
            beliefs = policy.position_beliefs(fast)
            figures[name]["seconds"].append(time.perf_counter() - started)
            ranked = [to_move(move) for move in _ranked(beliefs)]
            figures[name]["top1"] += ranked[:1] == [played]
            figures[name]["top3"] += played in ranked[:3]
    count = len(positions)
    summary = {
        name: {
            "top1": f["top1"] / count,
            "top3": f["top3"] / count,
            "seconds_per_call": statistics.median(f["seconds"]),
        }
        for name, f in figures.items()
    }
    reference = next(iter(rankers))
    for name in [*list(rankers)[1:], *policies]:
        summary[name]["cheaper_than_ranker"] = (
            summary[reference]["seconds_per_call"] / summary[name]["seconds_per_call"]
        )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranker", help="a saved move ranker fitted on the player's fitting games")
    parser.add_argument("--player", default="Botvinnik")
    parser.add_argument("--pgn", default=None)
    parser.add_argument("--distil", type=int, default=1000)
    parser.add_argument("--fit", type=int, default=6000)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--save-policy", help="write the distilled policy's weights here (JSON)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    held = load_heldout(args.pgn, args.player, quiet=True)
    if args.ranker:
        ranker = MoveRanker.load(args.ranker)
    else:
        ranker = MoveRanker(max_positions=2000, random_state=0).fit(held.fitting, player=held.player)
    started = time.perf_counter()
    distilled = distil_reply_policy(player_positions(held.fitting, sample=args.distil, random_state=1), ranker)
    distil_seconds = time.perf_counter() - started
    played = fit_reply_policy(player_positions(held.fitting, sample=args.fit, random_state=1))
    if args.save_policy:
        Path(args.save_policy).write_text(json.dumps({"weights": distilled.weights.tolist()}))
    quick = MoveRanker(families=QUICK_FAMILIES, max_positions=2000, random_state=0).fit(
        held.fitting, player=held.player
    )
    positions = player_positions(held.development, sample=args.positions, random_state=2)
    summary = measure({"ranker": ranker, "quick": quick}, {"distilled": distilled, "played": played}, positions)
    summary["distil_seconds"] = distil_seconds
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{held.player}: {len(positions)} development positions; policy distilled on {args.distil} fitting positions "
          f"in {distil_seconds:.0f} s, the played-move policy fitted on {args.fit}")
    for name, figures in summary.items():
        if isinstance(figures, dict):
            extra = (
                f", {figures['cheaper_than_ranker']:.0f}x cheaper than the ranker"
                if "cheaper_than_ranker" in figures
                else ""
            )
            print(f"  {name}: top-1 {figures['top1']:.3f}, top-3 {figures['top3']:.3f}, "
                  f"{1000 * figures['seconds_per_call']:.3f} ms a call{extra}")


if __name__ == "__main__":
    main()
