"""Identification of 20 games among 6 models against its target (<= 30 s with cached analyses).

    .venv/bin/python benchmarks/bench_identify.py [--engine /usr/games/stockfish --engine-cache FILE]

Fits one move ranker per bundled master (small settings: training cost is not what is
measured), saves them, and times ``iam identify`` of 20 test games of one master among
the six model files, end to end (process start, reading the models and the games,
scoring, ranking): median of --repeats runs searching afresh, then one run filling a new
search cache (``--search-cache``) and the median of --repeats runs served from it. The
target is judged on the cached runs, as it is stated; the fresh runs are printed beside
them. The reference, measured in the same run on
the first --reference-games of those games: each model's own ``predict_proba`` on every
position, one model after the other (what identification costs without sharing the
per-position work). Per-position times and their ratio are printed; the target with
"met" or "missed".
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from iam.evidence.registry import with_engine
from iam.games.bundled import bundled_pgn, manifest
from iam.games.pgn import load_player_games
from iam.measure.identify import LikelihoodScorer, game_positions
from iam.ranker import DEFAULT_FAMILIES, MoveRanker
from iam.runtime import Runtime

TARGET_SECONDS = 30.0


def _fit(entry, args) -> MoveRanker:
    games, _ = load_player_games(
        [bundled_pgn(entry.file)], player=entry.player, split="train", max_games=args.train_games
    )
    chosen = tuple(args.families.split(",")) if args.families else DEFAULT_FAMILIES
    families = with_engine(chosen) if args.engine else chosen
    runtime = Runtime(engine=args.engine, engine_cache=args.engine_cache if args.engine else None, jobs=args.jobs)
    ranker = MoveRanker(families=families, max_positions=args.train_positions, engine_depth=args.engine_depth)
    return ranker.fit(games, player=entry.player, runtime=runtime)


def _test_file(entry, count: int, folder: Path) -> tuple[Path, list]:
    """The first ``count`` test games of a master, as a PGN file of their own, and the games."""
    import chess.pgn

    games, _ = load_player_games([bundled_pgn(entry.file)], player=entry.player, split="test", max_games=count)
    texts = []
    for game in games:
        board = game.board()
        for move in game.moves:
            board.push(move)
        record = chess.pgn.Game.from_board(board)
        record.headers.update(White=game.white, Black=game.black, Event=game.event, Date=game.date)
        texts.append(str(record))
    path = folder / "query.pgn"
    path.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    return path, games


def _reference(models, games) -> tuple[float, int]:
    """Seconds and positions of scoring ``games`` model by model with ``predict_proba``."""
    positions = [p for game in games for p in game_positions(game)]
    started = time.perf_counter()
    for model in models:
        total = 0.0
        for position in positions:
            total += math.log(model.predict_proba(position.board)[position.played_move])
    return time.perf_counter() - started, len(positions)


def _timed(command: list[str]) -> tuple[float, str]:
    """Seconds one run of ``command`` takes, and its output."""
    started = time.perf_counter()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - started, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="Capablanca", help="whose test games are identified (a bundled master)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--train-games", type=int, default=100)
    parser.add_argument("--train-positions", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-games", type=int, default=3)
    parser.add_argument("--engine")
    parser.add_argument("--engine-depth", type=int, default=8)
    parser.add_argument("--engine-cache", default="iam-engine-cache.sqlite")
    parser.add_argument(
        "--families", help="the rankers' families, comma-separated (default: the ranker's default families)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes of iam identify (and of fitting)")
    args = parser.parse_args()

    entries = manifest()
    query_entry = next(entry for entry in entries if entry.player.lower() == args.player.lower())
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        print(
            f"fitting {len(entries)} rankers ({args.train_games} games, {args.train_positions} positions each) ...",
            file=sys.stderr,
        )
        models = [_fit(entry, args) for entry in entries]
        paths = []
        for entry, model in zip(entries, models):
            paths.append(folder / f"{entry.player}.json.gz")
            model.save(paths[-1])
        query, games = _test_file(query_entry, args.games, folder)
        command = [
            sys.executable, "-m", "iam", "identify", str(query), "--models", *map(str, paths),
            "--quiet", "--jobs", str(args.jobs),
        ]
        if args.engine:
            command += [
                "--engine", args.engine, "--engine-depth", str(args.engine_depth), "--engine-cache", args.engine_cache
            ]
        times = [_timed(command)[0] for _ in range(args.repeats)]
        cached = [*command, "--search-cache", str(folder / "search.sqlite")]
        filling, output = _timed(cached)
        warm = [_timed(cached)[0] for _ in range(args.repeats)]
        positions = sum(len(game_positions(game)) for game in games)
        shared_started = time.perf_counter()
        scorer = LikelihoodScorer(models)
        scorer.positions([p for game in games[: args.reference_games] for p in game_positions(game)])
        scorer.close()
        shared = time.perf_counter() - shared_started
        reference, reference_positions = _reference(models, games[: args.reference_games])
        for model in models:
            model.close()
    median, median_warm = statistics.median(times), statistics.median(warm)
    print(output.splitlines()[0])
    print(f"iam identify, {len(games)} games ({positions} positions) among {len(models)} rankers:")
    print(f"  searching afresh: median {median:.1f} s over {args.repeats} runs {[round(t, 1) for t in times]}")
    print(f"  filling a search cache: {filling:.1f} s")
    print(
        f"  from the search cache: median {median_warm:.1f} s over {args.repeats} runs {[round(t, 1) for t in warm]} "
        f"(ratio to afresh {median_warm / median:.2f})"
    )
    print(
        f"  target <= {TARGET_SECONDS:.0f} s with cached analyses: "
        f"{'met' if median_warm <= TARGET_SECONDS else 'missed'}"
    )
    per_shared = 1000 * shared / reference_positions
    per_reference = 1000 * reference / reference_positions
    print(
        f"per position, all {len(models)} models: shared scorer {per_shared:.1f} ms, "
        f"model by model with predict_proba {per_reference:.1f} ms (reference, {reference_positions} positions): "
        f"ratio {per_shared / per_reference:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
