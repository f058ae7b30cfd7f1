"""Rebuild the bundled policy networks (iam/priors/policy_nets.json.gz) from the masters' games.

    python scripts/build_policy_nets.py [--sides own,opponents] [--positions N] [--hidden 128] [--epochs 6] [--jobs 2]

Takes the moves of both sides of each bundled master's *fitting* games (training games
that are not development games; test games never enter, nor a game that is another
master's test game): his own moves and his opponents', who were mostly masters too. A
game found in two masters' files gives each side once. It fits one network on everything
and one without each master (:mod:`iam.priors.policynet`); the network without a master
never sees a game of his file (any split) nor a move of a side that bears his name
(:mod:`iam.evidence.policy_data`). Prints, for each network, how often its first choice is
the move played in development positions: of the master it left out (whom it never
saw), and of all masters for the network fitted on all. Deterministic for fixed arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from iam.evidence.policy_data import SIDES, MasterSide, join_tables, leave_out, side_positions, table_of
from iam.games.heldout import development_games, fitting_games
from iam.games.player_games import bundled_masters, population_games
from iam.priors.policynet import POLICY_NETS_FILE, PolicyNet, PolicyNets, PolicyTable, fit_policy_net
from iam.priors.positions import player_positions
from iam.runtime import Runtime


def _top1(net: PolicyNet, table: PolicyTable) -> float:
    """Share of positions where the network's first choice is the move played."""
    scores = net.values(table.boards, table.moves)
    heads, ends = table.starts[:-1], table.starts[1:]
    return float(np.mean([a + np.argmax(scores[a:b]) == played for a, b, played in zip(heads, ends, table.played)]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sides",
        default=",".join(SIDES),
        help="whose moves: own (the masters'), opponents (theirs), or both (default)",
    )
    parser.add_argument(
        "--positions", type=int, default=None, help="fitting positions per master and side (at most; default all)"
    )
    parser.add_argument(
        "--development-positions", type=int, default=1500, help="development positions per master, for the report"
    )
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(POLICY_NETS_FILE))
    args = parser.parse_args()
    sides = [side.strip() for side in args.sides.split(",") if side.strip()]
    if not sides or any(side not in SIDES for side in sides):
        parser.error(f"--sides takes some of {','.join(SIDES)}")
    started = time.perf_counter()
    masters = bundled_masters()
    usable, dropped = population_games(masters, fitting_games)
    print(f"fitting games dropped as another master's test game: {dropped}", flush=True)
    fitting: list[MasterSide] = []
    development: dict[str, PolicyTable] = {}
    seen: set = set()
    for name, games in tqdm(masters.items(), desc="masters", file=sys.stderr):
        fitting += [
            side_positions(
                name, side, usable[name], seen, sample=args.positions, random_state=args.seed,
                runtime=Runtime(jobs=args.jobs),
            )
            for side in sides
        ]
        development[name], _ = table_of(
            player_positions(development_games(games), sample=args.development_positions, random_state=args.seed),
            Runtime(jobs=args.jobs),
        )
    nets: dict[str | None, PolicyNet] = {}
    for without in (None, *masters):
        table = join_tables([leave_out(side, without, masters.get(without, ())) for side in fitting])
        net = fit_policy_net(table, hidden=args.hidden, epochs=args.epochs, random_state=args.seed)
        judged = [without] if without else list(development)
        top1 = _top1(net, join_tables([development[name] for name in judged]))
        nets[without] = replace(net, info={**net.info, "development_top1": round(top1, 4), "judged_on": judged})
        print(
            f"without {without or 'nobody'}: {table.positions} positions; "
            f"development top-1 {top1:.3f} on {', '.join(judged)}",
            flush=True,
        )
    info = {
        "masters": {
            name: {side.side: side.table.positions for side in fitting if side.master == name} for name in masters
        },
        "games": "fitting",
        "sides": sides,
        "dropped_test_games_of_others": dropped,
        "seed": args.seed,
    }
    out = Path(args.out)
    PolicyNets(nets=nets, info=info).save(out)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
