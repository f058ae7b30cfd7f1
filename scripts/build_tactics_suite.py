"""Build the bundled tactics suite (benchmarks/tactics.epd) from the bundled games.

    python scripts/build_tactics_suite.py [--engine /usr/games/stockfish] [--positions 300]

A position qualifies when stockfish's best move at depth 16 beats its second best by at
least two pawns (200 cp, mate counted as 10,000 cp), so exactly one move keeps the game's
value: a test an engine either solves or not. Two more rules keep the suite about
tactics rather than bookkeeping: the second best must not itself win (at most +150 cp
for the side to move, so "any move wins" positions are out), and the best move must not
simply recapture on the square of the previous move (an obvious reply, not a find).

Candidates are three positions per game, at seeded random plies from 16 on, taken from
the six bundled masters' games in turn; a depth-8 look (best two moves) screens them and
depth 16 confirms. Stockfish runs with one thread and its hash cleared between positions.
The suite is fixed once and committed; rerunning with the same arguments rebuilds it.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn
from tqdm import tqdm

from iam.games.bundled import bundled_pgn, manifest

ROOT = Path(__file__).resolve().parent.parent
MATE = 10_000
MIN_GAP = 200
SECOND_AT_MOST = 150
SCREEN_DEPTH = 8
SCREEN_GAP = 120
PER_GAME = 3


@dataclass(frozen=True)
class Candidate:
    """A position from a bundled game, named by where it came from."""

    board: chess.Board
    source: str


def candidates(seed: int, min_ply: int = 16) -> list[Candidate]:
    """``PER_GAME`` positions per game of every bundled master, interleaved master by master."""
    rng = random.Random(seed)
    per_master: list[list[Candidate]] = []
    for entry in manifest():
        found = []
        with open(bundled_pgn(entry.file), encoding="utf-8", errors="replace") as handle:
            index = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                index += 1
                moves = list(game.mainline_moves())
                if len(moves) < min_ply + 4:
                    continue
                plies = sorted(rng.sample(range(min_ply, len(moves) - 2), min(PER_GAME, len(moves) - 2 - min_ply)))
                board = game.board()
                for played, move in enumerate(moves[: plies[-1]]):
                    if played in plies:
                        found.append(Candidate(board.copy(), f"{entry.player} game {index} ply {played}"))
                    board.push(move)
                found.append(Candidate(board, f"{entry.player} game {index} ply {plies[-1]}"))
        rng.shuffle(found)
        per_master.append(found)
    interleaved = []
    for row in itertools.zip_longest(*per_master):
        interleaved.extend(candidate for candidate in row if candidate is not None)
    return interleaved


def best_two(engine: chess.engine.SimpleEngine, board: chess.Board, depth: int) -> list[tuple[chess.Move, int]]:
    """The engine's two best moves with their scores (cp, side to move's view)."""
    engine.configure({"Clear Hash": None})
    infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=2)
    return [(info["pv"][0], info["score"].relative.score(mate_score=MATE)) for info in infos if info.get("pv")]


def qualifies(board: chess.Board, lines: list[tuple[chess.Move, int]], gap: int) -> bool:
    """Exactly one move keeps the value: a gap of ``gap`` cp, no winning second move, no plain recapture."""
    if len(lines) < 2:
        return False
    (best, best_cp), (_, second_cp) = lines[0], lines[1]
    if best_cp - second_cp < gap or second_cp > SECOND_AT_MOST:
        return False
    last = board.peek() if board.move_stack else None
    return not (last is not None and board.is_capture(best) and best.to_square == last.to_square)


def epd_line(candidate: Candidate, lines: list[tuple[chess.Move, int]], depth: int) -> str:
    """The position with its best move (SAN), its source and the engine's two scores."""
    (best, best_cp), (_, second_cp) = lines[0], lines[1]
    board = candidate.board
    return board.epd(
        bm=[best],
        id=candidate.source,
        c0=f"depth {depth}: best {best_cp:+d} cp, second {second_cp:+d} cp",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="/usr/games/stockfish")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "tactics.epd"))
    args = parser.parse_args()
    started = time.perf_counter()
    pool = candidates(args.seed)
    kept: list[str] = []
    screened = confirmed = 0
    try:
        engine = chess.engine.SimpleEngine.popen_uci(args.engine)
    except (OSError, chess.engine.EngineError) as exc:
        print(f"build_tactics_suite: error: cannot start {args.engine}: {exc}", file=sys.stderr)
        return 2
    with engine, tqdm(total=args.positions, desc="tactics", file=sys.stderr) as bar:
        engine.configure({"Threads": 1, "Hash": 64})
        for candidate in pool:
            if len(kept) >= args.positions:
                break
            screened += 1
            if not qualifies(candidate.board, best_two(engine, candidate.board, SCREEN_DEPTH), SCREEN_GAP):
                continue
            confirmed += 1
            lines = best_two(engine, candidate.board, args.depth)
            if qualifies(candidate.board, lines, MIN_GAP):
                kept.append(epd_line(candidate, lines, args.depth))
                bar.update(1)
    Path(args.out).write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(
        f"wrote {len(kept)} positions to {args.out}: {screened} screened at depth {SCREEN_DEPTH}, "
        f"{confirmed} searched at depth {args.depth}, {time.perf_counter() - started:.0f} s"
    )
    return 0 if len(kept) == args.positions else 1


if __name__ == "__main__":
    raise SystemExit(main())
