"""Does a model cost the guided engine depth? The plain and the guided UCI engine at the same time a move.

    .venv/bin/python benchmarks/bench_guided_floor.py --model MODEL [--positions 10] [--movetime 1000] [--json]

On ``--positions`` middlegame positions of the bundled Botvinnik games (with their
moves), the plain engine and the engine guided by ``--model`` (a model file of ``iam
train``) each answer ``go movetime`` from empty tables, taking turns position by
position so the machine's load falls on both alike. Per position: the depth of the
search whose move each played (the last ``info depth`` before ``bestmove``), and the
guided engine's model time and whether it played the guided search's move (its ``info
string``). Printed: the median depths, how often the guided engine's depth fell more
than one ply below the plain engine's (the target: never), and the median model time.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from positions import middlegame_positions  # noqa: E402

from iam.measure.predictors import load_predictor  # noqa: E402
from search.chess.uci.engine import UciEngine, settle_memory, warm_up  # noqa: E402
from search.chess.uci.identity import EngineModel  # noqa: E402


def answer(engine: UciEngine, out: io.StringIO, position: str, movetime: int) -> list[str]:
    """The engine's lines for one ``go movetime`` from empty tables."""
    out.seek(0)
    out.truncate()
    engine.handle("ucinewgame")
    engine.handle(position)
    engine.handle(f"go movetime {movetime}")
    thread = engine._thread
    assert thread is not None
    thread.join(movetime / 1000 + 30)
    return out.getvalue().splitlines()


def played_depth(lines: list[str]) -> int:
    """The depth of the last ``info depth`` line: the search whose move is played."""
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth ")]
    return depths[-1] if depths else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--movetime", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    model = load_predictor(args.model)
    warm_up()
    outs = {"plain": io.StringIO(), "guided": io.StringIO()}
    engines = {
        "plain": UciEngine(output=outs["plain"]),
        "guided": UciEngine(output=outs["guided"], model=EngineModel(model, name="the model")),
    }
    settle_memory()
    rows = []
    for board in middlegame_positions(args.positions):
        moves = " ".join(move.uci() for move in board.move_stack)
        position = f"position startpos moves {moves}"
        row: dict[str, object] = {}
        for name, engine in engines.items():
            lines = answer(engine, outs[name], position, args.movetime)
            row[name] = played_depth(lines)
            note = next((line for line in lines if line.startswith("info string model time ")), "")
            if name == "guided":
                found = re.search(r"model time (\d+) ms", note)
                row["model_ms"] = int(found.group(1)) if found else None
                row["played"] = note.rsplit(": the ", 1)[-1].split()[0] if note else None
        rows.append(row)
    shallow = sum(1 for row in rows if int(str(row["guided"])) < int(str(row["plain"])) - 1)
    model_ms = [int(str(row["model_ms"])) for row in rows if row["model_ms"] is not None]
    summary = {
        "movetime_ms": args.movetime, "positions": len(rows), "rows": rows,
        "median_plain_depth": statistics.median(int(str(row["plain"])) for row in rows),
        "median_guided_depth": statistics.median(int(str(row["guided"])) for row in rows),
        "guided_more_than_a_ply_shallower": shallow,
        "guided_moves_played": sum(1 for row in rows if row["played"] == "guided"),
        "median_model_ms": statistics.median(model_ms) if model_ms else None,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for row in rows:
        print(f"plain depth {row['plain']}  guided depth {row['guided']}  model {row['model_ms']} ms  "
              f"played the {row['played']} search's move")
    print(f"median depth: plain {summary['median_plain_depth']}, guided {summary['median_guided_depth']}; "
          f"guided more than one ply shallower: {shallow} of {len(rows)}; guided search's move played "
          f"{summary['guided_moves_played']} times; median model time {summary['median_model_ms']} ms "
          f"of {args.movetime} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
