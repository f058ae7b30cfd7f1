"""Write ``benchmarks/match_openings_100.epd``: 100 start positions for engine matches, from the bundled games.

    python scripts/build_match_openings.py

The rule: for each of the six bundled masters, every 25th game from game 10 on (10, 35, 60, ...; all
training games of the held-out protocol, i % 5 == 0) that lasts at least 40 plies gives the position
after its 12th ply; the masters are taken in turn (Alekhine, Botvinnik, Capablanca, Lasker, Smyslov,
Spassky) and repeated positions skipped until 100 are kept. A match plays each twice, once with each
colour, so 200 games start from 100 openings that the masters chose.

    python scripts/build_match_openings.py --first 5 15 20 --count 300 --out benchmarks/match_openings_300.epd

writes 300 more by the same rule from the games 5, 15 and 20 on (also training games), less the
positions of ``benchmarks/match_openings_100.epd`` and ``benchmarks/match_openings.epd``.
"""

from __future__ import annotations

import argparse
from itertools import zip_longest
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
MASTERS = ("Alekhine", "Botvinnik", "Capablanca", "Lasker", "Smyslov", "Spassky")
COUNT, STRIDE, FIRST, PLY, MIN_PLIES = 100, 25, 10, 12, 40


def master_openings(path: Path, wanted: int, first: int = FIRST) -> list[str]:
    """EPDs after ``PLY`` plies of every ``STRIDE``-th game from ``first`` that lasts ``MIN_PLIES``."""
    found: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        index = -1
        while len(found) < wanted and (game := chess.pgn.read_game(handle)) is not None:
            index += 1
            moves = list(game.mainline_moves())
            if index % STRIDE != first or len(moves) < MIN_PLIES:
                continue
            board = game.board()
            for move in moves[:PLY]:
                board.push(move)
            found.append(board.epd())
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, nargs="+", default=[FIRST])
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--out", default="benchmarks/match_openings_100.epd")
    args = parser.parse_args()
    out = ROOT / args.out
    taken: set[str] = set()
    if out.name != "match_openings_100.epd":
        for name in ("match_openings_100.epd", "match_openings.epd"):
            taken |= {" ".join(line.split()[:4]) for line in (ROOT / "benchmarks" / name).read_text().splitlines()}
    kept: list[str] = []
    for first in args.first:
        wanted = args.count // len(args.first) // len(MASTERS) + 12
        per_master = [master_openings(ROOT / "datasets" / f"{name}.pgn", wanted, first) for name in MASTERS]
        goal = len(kept) + args.count // len(args.first)
        for turn in zip_longest(*per_master):
            for epd in turn:
                if epd is not None and epd not in kept and epd not in taken and len(kept) < goal:
                    kept.append(epd)
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(f"{len(kept)} openings written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
