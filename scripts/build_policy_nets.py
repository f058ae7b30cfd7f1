"""Rebuild the bundled policy networks (iam/ranker/policy_nets.json.gz) from the masters' own moves.

    python scripts/build_policy_nets.py [--positions 40000] [--hidden 128] [--epochs 6] [--jobs 2]

Takes up to --positions of each bundled master's own moves in his *fitting* games
(training games that are not development games; test games never enter, nor a game
that is another master's test game) and fits
one network on all masters and one without each master (:mod:`iam.ranker.policynet`).
Prints, for each network, how often its first choice is the move played in
development positions: of the master it left out (whom it never saw), and of all
masters for the network fitted on all. Deterministic for fixed arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import scipy.sparse as sparse
from joblib import Parallel, delayed
from tqdm import tqdm

from iam.heldout import development_games, fitting_games
from iam.player_games import bundled_masters, population_games
from iam.ranker.movefeatures import move_features
from iam.ranker.policynet import POLICY_NETS_FILE, PolicyNet, PolicyNets, PolicyTable, fit_policy_net, policy_inputs, policy_table
from iam.ranker.positions import Position, player_positions
from iam.ranker.valuenet import VALUE_MOVE_INPUTS


def _rows(positions: list[Position]) -> list[tuple]:
    """(policy inputs, move inputs, played index) of each labelled position with legal moves."""
    rows = []
    for position in positions:
        if not position.moves or position.played < 0:
            continue
        columns = move_features(position)
        rows.append((policy_inputs(position.board, position.moves), np.column_stack([columns[n] for n in VALUE_MOVE_INPUTS]), position.played))
    return rows


def _table(positions: list[Position], jobs: int) -> PolicyTable:
    pieces = [positions[start :: jobs * 4] for start in range(jobs * 4)]
    done = Parallel(n_jobs=jobs)(delayed(_rows)(piece) for piece in pieces)
    return policy_table([row for part in done for row in part])


def _top1(net: PolicyNet, table: PolicyTable) -> float:
    """Share of positions where the network's first choice is the move played."""
    scores = net.values(table.boards, table.moves)
    heads, ends = table.starts[:-1], table.starts[1:]
    return float(np.mean([a + np.argmax(scores[a:b]) == played for a, b, played in zip(heads, ends, table.played)]))


def _join(tables: list[PolicyTable]) -> PolicyTable:
    offsets = np.cumsum([0] + [len(t.moves) for t in tables])
    return PolicyTable(
        boards=sparse.vstack([t.boards for t in tables], format="csr"),
        moves=np.concatenate([t.moves for t in tables]),
        starts=np.concatenate([t.starts[:-1] + o for t, o in zip(tables, offsets)] + [[offsets[-1]]]).astype(np.int64),
        played=np.concatenate([t.played + o for t, o in zip(tables, offsets)]).astype(np.int64),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40000, help="fitting positions per master (at most)")
    parser.add_argument("--development-positions", type=int, default=1500, help="development positions per master, for the report")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(POLICY_NETS_FILE))
    args = parser.parse_args()
    started = time.perf_counter()
    masters = bundled_masters()
    usable, dropped = population_games(masters, fitting_games)
    print(f"fitting games dropped as another master's test game: {dropped}", flush=True)
    fitting, development = {}, {}
    for name, games in tqdm(masters.items(), desc="masters", file=sys.stderr):
        fitting[name] = _table(player_positions(usable[name], sample=args.positions, random_state=args.seed), args.jobs)
        development[name] = _table(
            player_positions(development_games(games), sample=args.development_positions, random_state=args.seed), args.jobs
        )
    nets: dict[str | None, PolicyNet] = {}
    for without in (None, *fitting):
        table = _join([table for name, table in fitting.items() if name != without])
        net = fit_policy_net(table, hidden=args.hidden, epochs=args.epochs, random_state=args.seed)
        judged = [without] if without else list(development)
        top1 = _top1(net, _join([development[name] for name in judged]))
        nets[without] = replace(net, info={**net.info, "development_top1": round(top1, 4), "judged_on": judged})
        print(f"without {without or 'nobody'}: {table.positions} positions; development top-1 {top1:.3f} on {', '.join(judged)}", flush=True)
    info = {
        "masters": {name: table.positions for name, table in fitting.items()},
        "games": "fitting",
        "dropped_test_games_of_others": dropped,
        "seed": args.seed,
    }
    out = Path(args.out)
    PolicyNets(nets=nets, info=info).save(out)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
