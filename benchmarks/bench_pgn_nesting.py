"""Reading hostile PGN in linear time: nested variations and long runs of comments.

    .venv/bin/python benchmarks/bench_pgn_nesting.py

Reads one game whose movetext holds N nested variations (and one with N comments on a
line) for N = 10,000, 20,000 and 40,000, and prints the median time of three reads
and the ratio of each time to the N = 10,000 one. Linear reading gives ratios near 2
and 4; quadratic reading would give 4 and 16. Target: 40,000
levels in under 2 s.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from iam.games.pgn import load_player_games

GAME = '[Event "G"]\n[White "Tester, Tom"]\n[Black "Other, Olga"]\n[Result "1-0"]\n\n'


def _seconds(text: str, folder: Path) -> float:
    path = folder / "game.pgn"
    path.write_text(text)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        games, report = load_player_games([path], player="Tester")
        times.append(time.perf_counter() - started)
        assert report.used == 1
    return statistics.median(times)


def main() -> None:
    sizes = (10_000, 20_000, 40_000)
    shapes = {
        "nested variations": lambda n: "1. e4 e5 2. Nf3 " + "( 2. Nc3 " * n + ")" * n + " Nc6 1-0\n",
        "comments on one line": lambda n: "1. e4 " + "{c} " * n + "e5 2. Nf3 1-0\n",
    }
    with tempfile.TemporaryDirectory() as folder:
        for name, movetext in shapes.items():
            times = [_seconds(GAME + movetext(n), Path(folder)) for n in sizes]
            cells = ", ".join(f"{n:,}: {t:.3f} s ({t / times[0]:.1f}x)" for n, t in zip(sizes, times))
            met = "met" if times[-1] < 2.0 else "missed"
            print(f"{name}: {cells}; 40,000 under 2 s: {met}")


if __name__ == "__main__":
    main()
