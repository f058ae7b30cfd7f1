"""Rebuild the bundled value network (iam/priors/value_net.json.gz) from a UCI engine's scores.

    python scripts/build_value_net.py [--positions 30000] [--engine /usr/games/stockfish] [--jobs 2]

Samples positions of the six bundled masters' *fitting* games (training games that are
not development games; test games never enter, nor a game that is another master's
test game), has the engine score every legal move
at depth 1 (cached in --engine-cache, so a rebuild reuses the analyses), and fits the
network of :mod:`iam.priors.valuenet` to those scores. Deterministic for fixed
arguments and cache. Prints the fit's agreement with the engine on a tenth of the
positions held out.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from tqdm import tqdm

from iam.engines.analysis import EngineAnalyser
from iam.evidence.movefeatures import move_features
from iam.games.heldout import fitting_games
from iam.games.player_games import bundled_masters, population_games
from iam.priors.positions import PlayerPosition, player_positions
from iam.priors.valuenet import VALUE_MOVE_INPUTS, VALUE_NET_FILE, ValueTable, board_inputs, fit_value_net, value_table


def _rows(positions: list[PlayerPosition], engine: str, cache: str) -> list[tuple]:
    """(board inputs, move inputs, engine scores in pawns) of each position with legal moves."""
    rows = []
    with EngineAnalyser(engine, depth=1, cache=cache) as analyser:
        for position in positions:
            if not position.moves:
                continue
            scores = analyser.analyse(position.board).scores
            columns = move_features(position)
            rows.append(
                (
                    board_inputs(position.board, position.moves),
                    np.column_stack([columns[name] for name in VALUE_MOVE_INPUTS]),
                    np.clip(np.array([scores[move] for move in position.moves], dtype=np.float64) / 100.0, -10.0, 10.0),
                )
            )
    return rows


def _agreement(net, table: ValueTable) -> tuple[float, float]:
    """Share of positions where the net's best move is the engine's, and the correlation of centred scores."""
    values = net.values(table.boards, table.moves)
    heads = table.starts[:-1]
    same = [np.argmax(values[a:b]) == np.argmax(table.targets[a:b]) for a, b in zip(heads, table.starts[1:])]
    sizes = np.diff(table.starts)
    centre = lambda v: v - np.repeat(np.add.reduceat(v, heads) / sizes, sizes)  # noqa: E731
    return float(np.mean(same)), float(np.corrcoef(centre(values), centre(table.targets))[0, 1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30000, help="sampled fitting positions per master")
    parser.add_argument("--engine", default="/usr/games/stockfish")
    parser.add_argument("--engine-cache", default="value-net-cache.sqlite")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(VALUE_NET_FILE))
    args = parser.parse_args()
    started = time.perf_counter()
    usable, dropped = population_games(bundled_masters(), fitting_games)
    print(f"fitting games dropped as another master's test game: {dropped}", flush=True)
    positions: list[PlayerPosition] = []
    for games in usable.values():
        positions += player_positions(games, sample=args.positions, random_state=args.seed)
    pieces = [positions[start::args.jobs * 8] for start in range(args.jobs * 8)]
    done = Parallel(n_jobs=args.jobs, return_as="generator")(
        delayed(_rows)(piece, args.engine, args.engine_cache) for piece in pieces
    )
    rows = [row for part in tqdm(done, total=len(pieces), desc="engine", file=sys.stderr) for row in part]
    order = np.random.default_rng(args.seed).permutation(len(rows))
    cut = len(rows) * 9 // 10
    train = value_table([rows[i] for i in order[:cut]])
    held = value_table([rows[i] for i in order[cut:]])
    net = fit_value_net(train, hidden=args.hidden, epochs=args.epochs, random_state=args.seed)
    best, correlation = _agreement(net, held)
    net = type(net)(**{
        **net.__dict__,
        "info": {
            **net.info,
            "engine_depth": 1,
            "dropped_test_games_of_others": dropped,
            "held_out_best_move": round(best, 4),
            "held_out_correlation": round(correlation, 4),
        },
    })
    out = Path(args.out)
    net.save(out)
    print(
        f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s: "
        f"{train.positions} positions fitted; on {held.positions} held out the engine's best move is the net's "
        f"in {best:.3f} of positions, centred scores correlate {correlation:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
