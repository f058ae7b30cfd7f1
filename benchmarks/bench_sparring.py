"""How like him does the sparring partner play? Its openings, its moves and its blunders against his test games.

    .venv/bin/python benchmarks/bench_sparring.py MODEL --player NAME [--pgn PGN] [--games 200]
        [--positions 300] [--judge-depth 4] [--stockfish PATH [--stockfish-depth 12]]
        [--check-engine PATH [--check-engine-depth 12]] [--his-moves N] [--seed 0] --out DIR

MODEL is a model of the player fitted on his training games only (``iam train --split train``);
his test games (``i % 5 == 4``) are the reference. Three measures, each with fixed seeds:

* **Openings**: ``--games`` game starts of the imitating engine (``iam uci --imitate``, run
  in this process as a UCI engine: ``ucinewgame``, ``position``, ``go``), colours
  alternating. As Black it answers the first moves of a fixed opening-diverse opponent:
  his test games' opponents' first moves in proportion to their frequencies (stratified,
  not drawn at random). Compared with his test games: his first moves as White, and his
  first replies as Black, both over the pairs (White's move, his reply) and per first move
  of White (the distance of the replies to each, weighted by its share of his test games),
  each by the total variation distance. Beside them two floors: the distance between his
  training and his test games, and the mean distance a partner drawing exactly his
  training games' frequencies would give over the same game starts (200 simulated series).
* **Moves**: in ``--positions`` positions of his test games (drawn with the seed), the
  engine's choice at temperature 0 against the ranker's most believed move, each scored by
  how often it is the move he played (top-1), and the log loss of the beliefs the engine
  draws from at temperature 1 (his move's negative log belief, before the ceiling).
* **Blunders**: in the same positions, the move the engine draws at temperature 1 (with
  its blunder ceiling and without) and the move he played, each judged by the toolkit's own
  search at ``--judge-depth`` (default the dossier's judge depth), or by ``--stockfish`` at
  ``--stockfish-depth`` (each move on its own, as :meth:`iam.engines.check.EngineJudge.check` judges it: the
  engine's hash cleared, the position's best, then the move searched alone): the share
  that loses 200 centipawns or more against the best, with a 95% Wilson interval.
  With ``--check-depth D`` (default :data:`~search.chess.imitation.CHECK_DEPTH`; 0: the
  short search's scores alone) the ceiling judges the drawn move as the engine does, by
  :func:`~search.chess.imitation.deep_check` (to depth D here, not a time slice, so that a
  seed replays the run), and its rate is his own by the same check, measured on
  ``--rate-positions`` positions of his training games. With ``--check-engine PATH`` a UCI
  engine checks the drawn move instead, at ``--check-engine-depth``
  (:class:`iam.engines.check.EngineJudge`, as ``iam uci --imitate M --check-engine PATH``
  does), and his rate is his by the same engine on 1,000 positions of his training games
  (:func:`iam.engines.check.cached_judged_rate`, as the engine measures it at its start and keeps it beside the
  model, so that a run and the engine share it). A move the check engine judged keeps its verdict in the judge
  when the two are the same engine at the same depth. Where the model leaves the move to the search (unsure in a
  tactical position), the search's move here is the best by the short search's scores, checked as the engine
  checks its search's move (:func:`~search.chess.imitation.hold_search_move`: a blunder by the check is replaced
  by the check's best move) and counted in the budget.
* **His own rate alone**: with ``--his-moves N`` only his moves are judged, on N positions of his test games
  (0: all), by ``--stockfish`` (``his.csv``), and with ``--check-engine`` his rate on his training positions
  as above, with what measuring it cost.

Writes ``openings.csv``, ``moves.csv`` and ``summary.json`` to ``--out`` and prints the summary.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import chess
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from iam import load_player_games, load_predictor  # noqa: E402
from iam.engines.check import his_positions  # noqa: E402
from iam.prepare.scoring import DEFAULT_JUDGE_DEPTH  # noqa: E402
from search.chess.engine import ChessSearch  # noqa: E402
from search.chess.imitation import (  # noqa: E402
    BLUNDER_LOSS,
    CHECK_DEPTH,
    CHECK_ENGINE_DEPTH,
    RATE_POSITIONS,
    BlunderBudget,
    Imitation,
    choose_imitation_move,
    deep_check,
    hold_ceiling,
    hold_deep_ceiling,
    hold_search_move,
)
from search.chess.scoring import RootScoreCache, score_root_moves  # noqa: E402
from search.chess.uci import EngineModel, UciEngine  # noqa: E402
from search.opponent.predictor import abilities_of  # noqa: E402
from search.result import Limits  # noqa: E402


def tvd(first: Counter, second: Counter) -> float:
    """Total variation distance between two count tables' frequencies."""
    total_a, total_b = sum(first.values()), sum(second.values())
    keys = set(first) | set(second)
    return 0.5 * sum(abs(first.get(key, 0) / total_a - second.get(key, 0) / total_b) for key in keys)


def wilson(hits: int, total: int) -> tuple[float, float]:
    """The 95% Wilson interval of a share."""
    if total == 0:
        return (0.0, 1.0)
    z, share = 1.96, hits / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def openings(games: list) -> tuple[Counter, Counter]:
    """His first moves as White and the pairs (White's first move, his reply) as Black in ``games``."""
    white = Counter(game.moves[0].uci() for game in games if game.color == chess.WHITE and game.moves)
    black = Counter(
        (game.moves[0].uci(), game.moves[1].uci())
        for game in games if game.color == chess.BLACK and len(game.moves) > 1
    )
    return white, black


def stratified(opponents: Counter, count: int) -> list[str]:
    """``count`` first moves of White in proportion to ``opponents`` (largest remainders), interleaved: the fixed
    opponent's moves as Black's game starts meet them, without the noise of random draws."""
    total = sum(opponents.values())
    exact = {move: count * number / total for move, number in opponents.items()}
    allotted = {move: int(share) for move, share in exact.items()}
    left = count - sum(allotted.values())
    for move in sorted(exact, key=lambda move: (-(exact[move] - allotted[move]), move))[:left]:
        allotted[move] += 1
    order = sorted(((index + 0.5) / allotted[move], move) for move in allotted for index in range(allotted[move]))
    return [move for _, move in order]


def conditional_tvd(replies: Counter, reference: Counter) -> float:
    """The total variation distance of the replies to each first move of White, weighted by ``reference``'s share
    of that first move (a first move ``replies`` never meets counts as the whole distance, 1)."""
    total = sum(reference.values())
    firsts = Counter(first for first, _ in reference.elements())
    distance = 0.0
    for first, number in firsts.items():
        mine = Counter({reply: n for (move, reply), n in replies.items() if move == first})
        theirs = Counter({reply: n for (move, reply), n in reference.items() if move == first})
        distance += number / total * (tvd(mine, theirs) if mine else 1.0)
    return distance


def ideal_partner(
    train_white: Counter, train_black: Counter, his_white: Counter, his_black: Counter, starts: tuple[int, Counter],
    seed: int, draws: int = 200,
) -> dict:
    """The measures a partner drawing exactly his training games' frequencies would give over the same game starts
    (the mean over ``draws`` simulated series): the floor that his training games and the engine's own sampling
    set together."""
    games, opponents = starts
    rng = random.Random(seed)
    whites, firsts = list(train_white), stratified(opponents, games // 2)
    measures: dict[str, list[float]] = {"white": [], "pairs": [], "given_first": []}
    for _ in range(draws):
        white = Counter(rng.choices(whites, weights=[train_white[m] for m in whites], k=(games + 1) // 2))
        black = Counter()
        for first in firsts:
            replies = [(move, reply) for (move, reply) in train_black if move == first]
            if replies:
                black[rng.choices(replies, weights=[train_black[pair] for pair in replies])[0]] += 1
        measures["white"].append(tvd(white, his_white))
        measures["pairs"].append(tvd(black, his_black))
        measures["given_first"].append(conditional_tvd(black, his_black))
    return {f"tvd_ideal_partner_{key}": round(sum(values) / len(values), 3) for key, values in measures.items()}


def partner_openings(model, name: str, games: int, opponents: Counter, seed: int) -> tuple[Counter, Counter]:
    """The engine's first moves as White and its replies as Black over ``games`` game starts (colours alternating;
    as Black against :func:`stratified` first moves of White)."""
    output = io.StringIO()
    engine = UciEngine(output=output, model=EngineModel(model, name=name), imitation=Imitation(seed=seed))
    firsts = iter(stratified(opponents, games // 2))
    white, black = Counter(), Counter()
    for number in range(games):
        moves = [] if number % 2 == 0 else [next(firsts)]
        output.seek(0)
        output.truncate()
        engine.run(["ucinewgame", f"position startpos moves {' '.join(moves)}".strip(), "go movetime 5000"])
        answer = output.getvalue().splitlines()[-1].split()[1]
        if moves:
            black[(moves[0], answer)] += 1
        else:
            white[answer] += 1
    return white, black


def own_judge(depth: int):
    """Losses (centipawns against the best) of moves by the toolkit's search at ``depth``."""

    def losses(board: chess.Board, moves: set[chess.Move]) -> dict[chess.Move, int]:
        judged = score_root_moves(board, depth)
        best = max(judged.values())
        return {move: best - judged[move] for move in moves}

    return losses


def stockfish_judge(engine, verdicts: dict):
    """Losses of moves by a UCI engine (an :class:`iam.engines.check.EngineJudge` at its depth): each move judged on
    its own as the check judges a drawn move (the engine's hash cleared, the position's best, then the move searched
    alone), so that a move's verdict does not depend on which moves are judged with it, nor in what order. A move
    the check engine already judged at the same depth (in ``verdicts``) keeps that verdict, which is the same."""

    def losses(board: chess.Board, moves: set[chess.Move]) -> dict[chess.Move, int]:
        known = {move: verdicts.get((board.fen(), move)) for move in moves}
        found = {move: judged.loss for move, judged in known.items() if judged is not None}
        return found | engine.losses(board, {move for move in moves if move not in found})

    return losses


def training_rate(path: str, depth: int, train: list, model_file: str) -> tuple[float | None, dict]:
    """His rate by the check engine on his training positions as the engine measures it at its start
    (:func:`iam.engines.check.cached_judged_rate`, kept beside the model), and what it cost: seconds and the CPU
    seconds of this process and the engine (next to nothing when the file beside the model held it)."""
    from iam.engines.check import EngineJudge, cached_judged_rate

    before, started = os.times(), time.perf_counter()
    with EngineJudge(path, depth=depth) as judge:
        rate = cached_judged_rate(judge, train, Path(f"{model_file}.check-rates.json"))
    after = os.times()  # the engine has ended: its CPU is among the children's
    cpu = sum(after[index] - before[index] for index in range(4))
    return rate, {"seconds": round(time.perf_counter() - started, 1), "cpu_seconds": round(cpu, 1),
                  "positions": min(RATE_POSITIONS, sum(game.player_moves for game in train))}


def his_check_rate(positions: list, depth: int) -> float:
    """His share of moves in ``positions`` that lose 200 centipawns or more by a deep check to ``depth``."""
    search = ChessSearch()
    losses = [deep_check(search, board, played, Limits(depth=depth)) for board, played in positions]
    return sum(found is not None and found.loss >= BLUNDER_LOSS for found in losses) / len(positions)


def moves_table(model, positions: list, judge, seed: int, check: tuple = (None, None)) -> pd.DataFrame:
    """Per position: his move, the ranker's top move, the engine's choices, their losses by the judge.

    ``check`` is the check of a drawn move (a function of the board and the move giving a ``DeepCheck``; None: the
    short search's scores alone) and the rate it holds (None: the model's)."""
    cache = RootScoreCache(capacity=4096)
    able = abilities_of(model)
    if able.use_root_scores is not None:
        able.use_root_scores(cache)
    depth = able.root_score_depth or 3
    checker, check_rate = check
    rate = able.blunder_rate if check_rate is None else check_rate
    budgets = {"greedy": BlunderBudget(), "sampled": BlunderBudget()}
    rows = []
    for number, (board, played) in enumerate(positions):
        beliefs = model.predict_proba(board)
        scores = cache.scores(board, depth)
        ranker_top = max(beliefs, key=beliefs.get)
        row = {"position": number, "fen": board.fen(), "played": played.uci(), "ranker_top1": ranker_top.uci(),
               "belief_played": beliefs.get(played, 0.0)}
        for kind, imitation in (("greedy", Imitation(temperature=0.0, seed=seed)),
                                ("sampled", Imitation(seed=seed, game=number))):
            choice = choose_imitation_move(board, beliefs, imitation)
            drawn = choice.move if choice.move is not None else max(scores, key=scores.get)
            row[f"{kind}_unchecked"] = drawn.uci()
            row[f"{kind}_source"] = "model" if choice.move is not None else "search"
            row[f"{kind}_check"] = None  # the check's loss of the drawn (or the search's) move
            if rate is not None and choice.move is not None:
                if checker is not None:
                    found = checker(board, drawn)
                    row[f"{kind}_check"] = None if found is None else found.loss
                    verdict = hold_deep_ceiling(
                        board, drawn, beliefs, scores, lambda move: checker(board, move),  # noqa: B023
                        rate=rate, budget=budgets[kind], seed=seed, game=number,
                    )
                else:
                    verdict = hold_ceiling(board, drawn, beliefs, scores, rate=rate, budget=budgets[kind], seed=seed,
                                           game=number)
                budgets[kind] = budgets[kind].after(blunder=verdict.blunder)
                drawn = verdict.move
            elif rate is not None:  # the search's move: checked as the engine checks it, counted in the budget
                verdict = None
                if checker is not None:
                    found = checker(board, drawn)
                    row[f"{kind}_check"] = None if found is None else found.loss
                    verdict = hold_search_move(drawn, lambda move: found)  # noqa: B023
                    drawn = verdict.move
                budgets[kind] = budgets[kind].after(blunder=verdict is not None and verdict.blunder)
            row[kind] = drawn.uci()
        columns = ("played", "ranker_top1", "greedy", "sampled", "sampled_unchecked")
        losses = judge(board, {chess.Move.from_uci(row[column]) for column in columns})
        for column in columns:
            row[f"{column}_loss"] = losses[chess.Move.from_uci(row[column])]
        rows.append(row)
        if (number + 1) % 25 == 0:
            print(f"{number + 1} of {len(positions)} positions", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def summarise(frame: pd.DataFrame, opening: dict) -> dict:
    """The figures of the three measures."""
    total = len(frame)
    summary = {"positions": total, **opening}
    for column in ("ranker_top1", "greedy", "sampled"):
        summary[f"top1_{column}"] = round(float((frame[column] == frame["played"]).mean()), 3)
    summary["log_loss_sampled"] = round(float(-frame["belief_played"].clip(lower=1e-12).map(math.log).mean()), 3)
    for column in ("played", "sampled", "sampled_unchecked", "greedy"):
        hits = int((frame[f"{column}_loss"] >= BLUNDER_LOSS).sum())
        low, high = wilson(hits, total)
        summary[f"blunders_{column}"] = {"count": hits, "rate": round(hits / total, 4),
                                         "interval": [round(low, 4), round(high, 4)]}
    for kind in ("greedy", "sampled"):
        searched = frame[f"{kind}_source"] == "search"
        summary[f"search_moves_{kind}"] = {
            "moves": int(searched.sum()),
            "replaced": int((searched & (frame[kind] != frame[f"{kind}_unchecked"])).sum()),
            "blunders": int((searched & (frame[f"{kind}_loss"] >= BLUNDER_LOSS)).sum()),
        }
    return summary


def his_moves_only(args: argparse.Namespace, test: list, train: list) -> int:
    """His own rate: his moves on ``--his-moves`` positions of his test games (0: all of them) judged by
    ``--stockfish`` as the check judges a move, and his rate on his training positions as the engine measures it
    at its start (with ``--check-engine``, kept beside the model). Writes ``his.csv`` and ``summary.json``."""
    from iam.engines.check import EngineJudge

    if not args.stockfish:
        raise SystemExit("bench_sparring: --his-moves needs --stockfish")
    started = time.perf_counter()
    summary: dict = {}
    if args.check_engine:  # first, so that a run of the partner may read it from beside the model meanwhile
        rate, cost = training_rate(args.check_engine, args.check_engine_depth, train, args.model)
        summary["his_check_rate_training"], summary["his_check_rate_cost"] = rate, cost
        print(f"his rate on his training positions: {rate}", file=sys.stderr, flush=True)
    every = sum(game.player_moves for game in test)
    positions = his_positions(test, args.his_moves or every, args.seed)
    rows = []
    with EngineJudge(args.stockfish, depth=args.stockfish_depth) as engine:
        for number, (board, played) in enumerate(positions):
            rows.append({"position": number, "fen": board.fen(), "played": played.uci(),
                         "loss": engine.losses(board, {played})[played]})
            if (number + 1) % 100 == 0:
                print(f"{number + 1} of {len(positions)} of his moves", file=sys.stderr, flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(out / "his.csv", index=False)
    hits = int((frame["loss"] >= BLUNDER_LOSS).sum())
    low, high = wilson(hits, len(frame))
    summary.update({"test_moves": every, "judged": len(frame), "judge": f"stockfish depth {args.stockfish_depth}",
                    "blunders_played": {"count": hits, "rate": round(hits / len(frame), 4),
                                        "interval": [round(low, 4), round(high, 4)]}})
    summary["seconds"] = round(time.perf_counter() - started)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--player", required=True)
    parser.add_argument("--pgn", help="his games (default: the bundled file of the player)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--judge-depth", type=int, default=DEFAULT_JUDGE_DEPTH)
    parser.add_argument("--stockfish", metavar="PATH", help="judge the blunders with this UCI engine")
    parser.add_argument("--stockfish-depth", type=int, default=12)
    parser.add_argument("--check-depth", type=int, default=CHECK_DEPTH)
    parser.add_argument("--rate-positions", type=int, default=RATE_POSITIONS)
    parser.add_argument("--check-engine", metavar="PATH", help="check the drawn moves with this UCI engine")
    parser.add_argument("--check-engine-depth", type=int, default=CHECK_ENGINE_DEPTH)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--his-moves", type=int, metavar="N",
                        help="judge only his own moves, on N positions of his test games (0: all), by --stockfish")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from iam.games.bundled import bundled_pgn

    started = time.perf_counter()
    pgn = args.pgn or bundled_pgn(args.player)
    games, _ = load_player_games([pgn], player=args.player)
    train = [game for game in games if game.split == "train"]
    test = [game for game in games if game.split == "test"]
    if args.his_moves is not None:
        return his_moves_only(args, test, train)
    model = load_predictor(args.model)
    name = f"a model of {model.player_}"
    his_white, his_black = openings(test)
    train_white, train_black = openings(train)
    opponents = Counter(first for first, _ in his_black.elements())
    white, black = partner_openings(model, name, args.games, opponents, args.seed)
    opening = {
        "game_starts": args.games,
        "tvd_first_move_white": round(tvd(white, his_white), 3),
        "tvd_first_reply_black": round(tvd(black, his_black), 3),
        "tvd_training_vs_test_white": round(tvd(train_white, his_white), 3),
        "tvd_training_vs_test_black": round(tvd(train_black, his_black), 3),
        "tvd_reply_given_first_black": round(conditional_tvd(black, his_black), 3),
        "tvd_reply_given_first_training_vs_test": round(conditional_tvd(train_black, his_black), 3),
        "tvd_partner_vs_training_white": round(tvd(white, train_white), 3),
        **ideal_partner(train_white, train_black, his_white, his_black, (args.games, opponents), args.seed),
        "test_games_white": sum(his_white.values()), "test_games_black": sum(his_black.values()),
    }
    rows = [{"colour": "white", "line": move, "partner": white.get(move, 0), "his_test_games": his_white.get(move, 0)}
            for move in sorted(set(white) | set(his_white))]
    rows += [{"colour": "black", "line": " ".join(pair), "partner": black.get(pair, 0),
              "his_test_games": his_black.get(pair, 0)} for pair in sorted(set(black) | set(his_black))]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "openings.csv", index=False)
    positions = his_positions(test, args.positions, args.seed)
    check_rate, checker, check_engine, rate_cost = None, None, None, {}
    verdicts: dict = {}  # (position, move): the check engine's verdict, which the judge at its depth would repeat
    if args.check_engine:
        from iam.engines.check import EngineJudge

        check_engine = EngineJudge(args.check_engine, depth=args.check_engine_depth)
        check_rate, rate_cost = training_rate(args.check_engine, args.check_engine_depth, train, args.model)

        def checker(board, move):
            key = (board.fen(), move)
            if key not in verdicts:
                verdicts[key] = check_engine.check(board, move, Limits())
            return verdicts[key]
    elif args.check_depth:
        check_rate = his_check_rate(his_positions(train, args.rate_positions, args.seed), args.check_depth)
        search = ChessSearch()

        def checker(board, move):
            return deep_check(search, board, move, Limits(depth=args.check_depth))
    check = (checker, check_rate)
    if args.stockfish:
        from iam.engines.check import EngineJudge

        same = args.check_engine == args.stockfish and args.check_engine_depth == args.stockfish_depth
        with EngineJudge(args.stockfish, depth=args.stockfish_depth) as engine:  # a process of its own
            frame = moves_table(model, positions, stockfish_judge(engine, verdicts if same else {}), args.seed, check)
        judge = f"stockfish depth {args.stockfish_depth}"
    else:
        frame = moves_table(model, positions, own_judge(args.judge_depth), args.seed, check)
        judge = f"own search depth {args.judge_depth}"
    frame.to_csv(out / "moves.csv", index=False)
    summary = summarise(frame, opening)
    if check_engine is not None:
        summary["check_engine"] = check_engine.name
        check_engine.close()
    summary.update({"model_blunder_rate": abilities_of(model).blunder_rate, "check_depth": args.check_depth,
                    "his_check_rate_training": check_rate, "his_check_rate_cost": rate_cost, "judge": judge,
                    "seconds": round(time.perf_counter() - started)})
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
