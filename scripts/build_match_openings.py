"""Write ``benchmarks/match_openings_100.epd``: 100 start positions for engine matches, from the bundled games.

    python scripts/build_match_openings.py

The rule: for each of the six bundled masters, every 25th game from game 10 on (10, 35, 60, ...; all
training games of the held-out protocol, i % 5 == 0) that lasts at least 40 plies gives the position
after its 12th ply; the masters are taken in turn (Alekhine, Botvinnik, Capablanca, Lasker, Smyslov,
Spassky) and repeated positions skipped until 100 are kept. A match plays each twice, once with each
colour, so 200 games start from 100 openings that the masters chose.
"""

from __future__ import annotations

from itertools import zip_longest
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
MASTERS = ("Alekhine", "Botvinnik", "Capablanca", "Lasker", "Smyslov", "Spassky")
COUNT, STRIDE, FIRST, PLY, MIN_PLIES = 100, 25, 10, 12, 40


def master_openings(path: Path, wanted: int) -> list[str]:
    """EPDs after ``PLY`` plies of every ``STRIDE``-th game from ``FIRST`` that lasts ``MIN_PLIES``."""
    found: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        index = -1
        while len(found) < wanted and (game := chess.pgn.read_game(handle)) is not None:
            index += 1
            moves = list(game.mainline_moves())
            if index % STRIDE != FIRST or len(moves) < MIN_PLIES:
                continue
            board = game.board()
            for move in moves[:PLY]:
                board.push(move)
            found.append(board.epd())
    return found


def main() -> int:
    per_master = [master_openings(ROOT / "datasets" / f"{name}.pgn", COUNT // len(MASTERS) + 4) for name in MASTERS]
    kept: list[str] = []
    for turn in zip_longest(*per_master):
        for epd in turn:
            if epd is not None and epd not in kept and len(kept) < COUNT:
                kept.append(epd)
    out = ROOT / "benchmarks" / "match_openings_100.epd"
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(f"{len(kept)} openings written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
