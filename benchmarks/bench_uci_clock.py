"""Does the UCI engine keep to its clock in every mode? Time from ``go`` to ``bestmove``.

    .venv/bin/python benchmarks/bench_uci_clock.py [--moves 200] [--json]

Modes: the plain search; the search guided by a model (a small move ranker, a small IAM
model); the value-exploiting search against each; the imitation of each. Each mode
answers ``--moves`` ``go`` commands, cycling through ``movetime`` 50, 100 and 200 and
clocks of 2, 5 and 10 s (a fortieth of which is the budget), on positions of the
bundled Botvinnik games (plies 10 to 60, with their history). The budget of a ``go`` is
the time the engine means to take (:func:`search.chess.uci.allotted_time`); the overrun
is the answer time less that budget. Reported per mode: the median, 95th percentile and
largest overrun (ms) and how many answers came later than the budget plus 50 ms. The
models are trained here, small, in a few seconds (as the tests do).
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import threading
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from iam.chunks.model import OpponentModel  # noqa: E402
from iam.games.bundled import default_pgn  # noqa: E402
from iam.games.pgn import load_player_games  # noqa: E402
from iam.measure.evaluation import first_training_games  # noqa: E402
from iam.ranker import MoveRanker  # noqa: E402
from search.chess.imitation import Imitation  # noqa: E402
from search.chess.uci import EngineModel, UciEngine, allotted_time, parse_go, settle_memory  # noqa: E402
from search.opponent.exploitation import Exploitation  # noqa: E402

GOS = ("movetime 50", "movetime 100", "movetime 200", "wtime 2000 btime 2000", "wtime 5000 btime 5000",
       "wtime 10000 btime 10000")
LATE = 0.050


class _Answers(io.TextIOBase):
    """The engine's output; notes when each ``bestmove`` was written."""

    def __init__(self) -> None:
        self.answered = threading.Event()

    def write(self, text: str) -> int:
        if text.startswith("bestmove"):
            self.answered.set()
        return len(text)


def positions(games, count: int) -> list[str]:
    """``position`` commands: plies 10 to 60 of the games, in turn, with their moves."""
    commands = []
    for game in games:
        if game.start_fen != chess.STARTING_FEN:
            continue
        moves = [move.uci() for move in game.moves]
        for ply in range(10, min(60, len(moves)), 7):
            commands.append("position startpos moves " + " ".join(moves[:ply]))
            if len(commands) == count:
                return commands
    return commands


def overruns(engine: UciEngine, answers: _Answers, commands: list[str]) -> list[float]:
    """Seconds past its budget each ``go`` was answered (negative: early)."""
    late = []
    for index, command in enumerate(commands):
        engine.handle(command)
        words = GOS[index % len(GOS)]
        budget = allotted_time(parse_go(words.split()), engine.board.turn)
        answers.answered.clear()
        started = time.perf_counter()
        engine.handle("go " + words)
        answers.answered.wait(30)
        late.append(time.perf_counter() - started - budget)
        engine._thread.join()
    return late


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=200, help="go commands per mode (default 200)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--modes", nargs="+", help="only these modes (default: all), e.g. 'exploit ranker'")
    args = parser.parse_args()
    games, _ = load_player_games([default_pgn()], player="Botvinnik")
    training = first_training_games(games, 30)
    started = time.perf_counter()
    models = {
        "ranker": MoveRanker(max_positions=150, prior="none").fit(training),
        "iam": OpponentModel(belief_positions=200).fit(training),
    }
    print(f"models trained in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    commands = positions(games, args.moves)
    modes = {"plain": {}}
    for name, model in models.items():
        modes[f"guided {name}"] = {"model": EngineModel(model)}
        modes[f"exploit {name}"] = {"model": EngineModel(model), "exploitation": Exploitation(weight=0.5)}
        modes[f"imitate {name}"] = {"model": EngineModel(model), "imitation": Imitation()}
    if args.modes:
        unknown = set(args.modes) - set(modes)
        if unknown:
            parser.error(f"unknown modes {sorted(unknown)}; choose from {sorted(modes)}")
        modes = {mode: modes[mode] for mode in args.modes}
    figures = {}
    for mode, kwargs in modes.items():
        answers = _Answers()
        engine = UciEngine(output=answers, **kwargs)
        settle_memory()  # as the engine's process does once started
        late = sorted(overruns(engine, answers, commands))
        figures[mode] = {
            "moves": len(late),
            "median_ms": round(1000 * statistics.median(late), 1),
            "p95_ms": round(1000 * late[int(0.95 * (len(late) - 1))], 1),
            "max_ms": round(1000 * late[-1], 1),
            "over_budget_plus_50ms": sum(1 for seconds in late if seconds > LATE),
        }
        print(mode, figures[mode], file=sys.stderr)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{'mode':16} {'moves':>5} {'median':>8} {'p95':>8} {'max':>8} {'late':>5}   (overrun, ms)")
        for mode, row in figures.items():
            print(f"{mode:16} {row['moves']:>5} {row['median_ms']:>8} {row['p95_ms']:>8} {row['max_ms']:>8} "
                  f"{row['over_budget_plus_50ms']:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
