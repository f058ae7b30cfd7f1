"""What the piece-value evolution's games can tell, and how far its rule wanders without them.

    python benchmarks/bench_evolution_values.py matches --nodes 1000 --out matches.csv \\
        --values "queen 1.5 times=100,320,330,500,1350" ...
    python benchmarks/bench_evolution_values.py drift --out drift.csv --floor 0.1 0.05 --generations 100 150
    python benchmarks/bench_evolution_values.py endings --out endings.epd
    python benchmarks/bench_evolution_values.py imbalances --out benchmarks/imbalance_positions.epd
    python benchmarks/bench_evolution_values.py identical --count 60 --out identical.csv --values "all 2=..."
    python benchmarks/bench_evolution_values.py mix benchmarks/match_openings_100.epd \\
        benchmarks/imbalance_positions.epd --take 1 2 --out mixed.epd

``matches``: each ``--values`` set (a name, five piece values) against ``--against`` (the standard
values by default) from every opening of ``--openings`` twice, at ``--nodes`` a move
(:func:`iam.evolution.diagnosis.value_match`); one row a set, with the Elo estimate and the mates' material.
``drift``: the rule on random results (:func:`iam.evolution.diagnosis.random_results_drift`) from the
standard values, for every floor, number of generations and population size given; one row a setting,
with the share of runs whose mean ends within 25% of its start, piece by piece and all four together.
``endings``: start positions for ``matches --openings`` in which the queens are off, from the bundled
masters' games (every 25th game from game 10 on, training games of the held-out protocol): each game's
first position from ply 30 on with no queen, the same pieces' worth on both sides (knight and bishop 3,
rook 5; at most 8 a side), the same number of pawns (3 at least), no check; the masters in turn, 100 at
most.
``imbalances``: start positions with pieces against pawns (a minor piece against two or three pawns, the
exchange against one or two) made from the bundled masters' development games
(:func:`iam.evolution.imbalances.imbalance_positions`), for ``matches --openings`` and
``iam evolve --openings``; ``--kinds more-pawns``: pieces against more pawns
(:data:`iam.evolution.imbalances.MORE_PAWNS`).
``identical``: for each ``--values`` set, in how many of the first ``--count`` openings its game with White
against ``--against`` is move for move the game of ``--against`` against itself
(:func:`iam.evolution.diagnosis.first_difference`), and where the others first differ.
``mix``: two files of start positions (one FEN or EPD a line) in one, in turn (``--take`` of the first, then
of the second; :func:`iam.evolution.imbalances.interleave`), for ``iam evolve --openings``.
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import zip_longest
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pandas as pd

from iam.evolution.diagnosis import first_difference, random_results_drift, value_match
from iam.evolution.imbalances import IMBALANCES, MORE_PAWNS, imbalance_positions, interleave
from iam.games.bundled import bundled_pgn, manifest
from search.chess.match import load_openings

ROOT = Path(__file__).resolve().parent.parent
STANDARD = (100, 320, 330, 500, 900)
PIECES = ("knight", "bishop", "rook", "queen")


def _values(text: str) -> tuple[str, list[float]]:
    name, _, numbers = text.rpartition("=")
    values = [float(v) for v in numbers.split(",")]
    if not name or len(values) != 5:
        raise argparse.ArgumentTypeError(f"a set is NAME=P,N,B,R,Q, got {text!r}")
    return name, values


def matches(args: argparse.Namespace) -> pd.DataFrame:
    openings = load_openings(args.openings)
    rows = []
    for name, values in args.values:
        started = time.process_time()
        found = value_match(values, args.against, openings, nodes=args.nodes, max_plies=args.max_plies)
        endings = found.pop("endings")
        rows.append({"name": name, "values": ",".join(f"{v:g}" for v in values), "nodes": args.nodes, **found,
                     "checkmates": endings.get("checkmate", 0), "move_limit": endings.get("move limit", 0),
                     "cpu_seconds": round(time.process_time() - started, 1)})
        print(rows[-1], file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def identical(args: argparse.Namespace) -> pd.DataFrame:
    openings = load_openings(args.openings)[:args.count]
    rows = []
    for name, values in args.values:
        plies = [first_difference(values, args.against, start, nodes=args.nodes, max_plies=args.max_plies)
                 for start in openings]
        differ = [ply for ply in plies if ply is not None]
        rows.append({"name": name, "values": ",".join(f"{v:g}" for v in values), "nodes": args.nodes,
                     "games": len(plies), "identical": len(plies) - len(differ),
                     "first_difference_median": float(np.median(differ)) if differ else float("nan")})
        print(rows[-1], file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def drift(args: argparse.Namespace) -> pd.DataFrame:
    shares = {"level": args.shares[0], "won and drew": args.shares[1], "won both": args.shares[2]}
    rows = []
    for population in args.population:
        for floor in args.floor:
            for generations in args.generations:
                table = random_results_drift(STANDARD, floor=floor, generations=generations, population=population,
                                             runs=args.runs, shares=shares)
                ratios = table[[f"ratio_{i}" for i in range(1, 5)]].to_numpy()
                within = np.abs(ratios - 1) <= 0.25
                rows.append({"population": population, "floor": floor, "generations": generations, "runs": args.runs,
                             **{f"{piece}_within": round(float(within[:, i].mean()), 2)
                                for i, piece in enumerate(PIECES)},
                             **{f"{piece}_log_sd": round(float(np.log(ratios[:, i]).std()), 2)
                                for i, piece in enumerate(PIECES)},
                             "all_four_within": round(float(within.all(axis=1).mean()), 2)})
                print(rows[-1], file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


MASTERS = ("Alekhine", "Botvinnik", "Capablanca", "Lasker", "Smyslov", "Spassky")
_WORTH = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def _ending(board: chess.Board) -> bool:
    pieces = [sum(_WORTH.get(p.piece_type, 0) for p in board.piece_map().values() if p.color == colour)
              for colour in (chess.WHITE, chess.BLACK)]
    pawns = [len(board.pieces(chess.PAWN, colour)) for colour in (chess.WHITE, chess.BLACK)]
    return (not board.pieces(chess.QUEEN, chess.WHITE) and not board.pieces(chess.QUEEN, chess.BLACK)
            and pieces[0] == pieces[1] <= 8 and pawns[0] == pawns[1] >= 3 and not board.is_check()
            and board.outcome() is None)


def _master_endings(path: Path, wanted: int) -> list[str]:
    found: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        index = -1
        while len(found) < wanted and (game := chess.pgn.read_game(handle)) is not None:
            index += 1
            if index % 25 != 10:
                continue
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                if board.ply() >= 30 and _ending(board):
                    found.append(board.epd())
                    break
    return found


def endings(args: argparse.Namespace) -> int:
    per_master = [_master_endings(ROOT / "datasets" / f"{name}.pgn", 25) for name in MASTERS]
    kept: list[str] = []
    for turn in zip_longest(*per_master):
        for epd in turn:
            if epd is not None and epd not in kept and len(kept) < 100:
                kept.append(epd)
    Path(args.out).write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(f"{len(kept)} positions written to {args.out}")
    return 0


def imbalances(args: argparse.Namespace) -> int:
    players = [(entry.player, bundled_pgn(entry.file)) for entry in manifest()]
    kinds = {"standard": IMBALANCES, "more-pawns": MORE_PAWNS}[args.kinds]
    fens = imbalance_positions(players, count=args.count, first_ply=args.first_ply, last_ply=args.last_ply,
                               most_pieces=args.most_pieces, seed=args.seed, imbalances=kinds)
    Path(args.out).write_text("\n".join(fens) + "\n", encoding="utf-8")
    print(f"{len(fens)} positions written to {args.out}")
    return 0


def mix(args: argparse.Namespace) -> int:
    first, second = ([line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
                     for path in (args.first, args.second))
    mixed = interleave(first, second, take=tuple(args.take))
    Path(args.out).write_text("\n".join(mixed) + "\n", encoding="utf-8")
    print(f"{len(mixed)} positions written to {args.out}")
    return 0


def _games_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of the commands that play the values' games against the standard ones (or ``--against``)."""
    parser.add_argument("--values", type=_values, action="append", required=True, metavar="NAME=P,N,B,R,Q")
    parser.add_argument("--against", type=lambda t: _values("against=" + t)[1], default=list(STANDARD),
                        metavar="P,N,B,R,Q")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--max-plies", type=int, default=160)
    parser.add_argument("--openings", default=str(ROOT / "benchmarks" / "match_openings_100.epd"))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = _games_options(commands.add_parser("matches", help="piece values against the standard ones"))
    one.add_argument("--out", required=True)
    two = commands.add_parser("drift", help="the rule on random results")
    two.add_argument("--floor", type=float, nargs="+", default=[0.1])
    two.add_argument("--generations", type=int, nargs="+", default=[150])
    two.add_argument("--population", type=int, nargs="+", default=[16])
    two.add_argument("--runs", type=int, default=100)
    two.add_argument("--shares", type=float, nargs=3, default=[0.52, 0.22, 0.26],
                     metavar=("LEVEL", "WON_DREW", "WON_BOTH"))
    two.add_argument("--out", required=True)
    three = commands.add_parser("endings", help="start positions with the queens off, from the masters' games")
    three.add_argument("--out", required=True)
    four = commands.add_parser("imbalances", help="start positions with pieces against pawns")
    four.add_argument("--count", type=int, default=200)
    four.add_argument("--first-ply", type=int, default=20)
    four.add_argument("--last-ply", type=int, default=60)
    four.add_argument("--most-pieces", type=int, help="each side's pieces worth this much at most (N, B 3, R 5, Q 9)")
    four.add_argument("--seed", type=int, default=0)
    four.add_argument("--kinds", choices=("standard", "more-pawns"), default="standard",
                      help="iam.evolution.imbalances.IMBALANCES or MORE_PAWNS")
    four.add_argument("--out", required=True)
    five = _games_options(
        commands.add_parser("identical", help="games the values leave move for move as the standard ones'")
    )
    five.add_argument("--count", type=int, default=60)
    five.add_argument("--out", required=True)
    six = commands.add_parser("mix", help="two files of start positions in one, in turn")
    six.add_argument("first")
    six.add_argument("second")
    six.add_argument("--take", type=int, nargs=2, default=[1, 2], metavar=("FIRST", "SECOND"))
    six.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.command == "mix":
        return mix(args)
    if args.command == "endings":
        return endings(args)
    if args.command == "imbalances":
        return imbalances(args)
    table = {"matches": matches, "drift": drift, "identical": identical}[args.command](args)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
