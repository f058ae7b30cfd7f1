"""Write the first games of a PGN file to another (a player's file cut to a size, for timing a command).

    python scripts/first_games.py datasets/Smyslov.pgn 300 OUT.pgn
"""

from __future__ import annotations

import sys
from pathlib import Path

import chess.pgn


def main() -> int:
    source, count, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    written = 0
    with source.open(encoding="utf-8", errors="replace") as stream, out.open("w", encoding="utf-8") as sink:
        while written < count and (game := chess.pgn.read_game(stream)) is not None:
            print(game, file=sink, end="\n\n")
            written += 1
    print(f"{written} games written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
