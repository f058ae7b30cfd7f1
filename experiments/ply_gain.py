"""Ply gain (seed 001, "Results - Min-Max"): how much deeper a search sees when it knows
its opponent. The seed reports an average ply increase of 12.5%.

Positions come from the held-out games where the modelled player's *opponent* is to
move, so the predicted replies sit one ply down. For every node budget the plain
iterative-deepening alpha-beta (ordering, quiescence, transposition table) and the
guided search (the same plus the opponent model, :mod:`search.omsearch`) each get
the same budget and fresh tables; the depth each completes, the nodes and time it
used, the predictor's share and the move it chose are recorded. When the two choose
different moves and Debian's stockfish is installed, a deeper reference search
scores both moves, so that a gain in depth is not bought with worse moves.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

import numpy as np
import pandas as pd

from experiments.heldout import add_heldout_arguments, load_heldout

NAME = "ply-gain"
HELP = "plies completed by plain and opponent-model-guided search at equal node budgets"

DEFAULT_BUDGETS = "5000,20000,50000"
DEFAULT_POSITIONS = 50
BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the positions for the interval of the mean ply gain."""
EQUAL_MARGIN_CP = 10
"""Reference scores closer than this (centipawns) count as equally good moves."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from search.omsearch import Guidance

    defaults = Guidance()
    add_heldout_arguments(parser, max_positions=DEFAULT_POSITIONS)
    parser.add_argument("--budgets", default=DEFAULT_BUDGETS, help=f"node budgets (default {DEFAULT_BUDGETS})")
    parser.add_argument("--train-games", default="all", help="train the model on the first N training games (default all)")
    guidance = parser.add_argument_group("guidance (search.omsearch.Guidance)")
    guidance.add_argument("--extend-at", type=float, default=defaults.extend_at, help="belief at which a move is extended")
    guidance.add_argument("--extension", type=int, default=defaults.extension, help="plies added to those moves")
    guidance.add_argument("--reduce-below", type=float, default=defaults.reduce_below, help="belief below which a move is reduced")
    guidance.add_argument("--reduction", type=int, default=defaults.reduction, help="plies taken from those moves")
    guidance.add_argument("--confidence", type=float, default=defaults.confidence, help="reduce only where the predictions hold this much belief")
    guidance.add_argument("--predictions-first", action="store_true", help="put predictions before the table's move too")
    guidance.add_argument("--min-depth", type=float, default=defaults.min_depth, help="consult the model only with this many plies left")
    parser.add_argument("--reference-depth", type=int, default=12, help="stockfish depth for judging differing moves (default 12)")
    parser.add_argument("--no-reference", action="store_true", help="do not use stockfish even if it is installed")


def run(args: argparse.Namespace):
    from joblib import Parallel, delayed

    from experiments.runner import ExperimentResult
    from iam.cli._common import progress
    from iam.cli.evaluate import parse_sizes
    from iam.errors import DataError
    from iam.evaluation import first_training_games
    from iam.model import OpponentModel
    from search.omsearch import Guidance

    budgets = parse_budgets(args.budgets)
    sizes = parse_sizes(args.train_games)
    if len(sizes) != 1:
        raise DataError("--train-games takes one size here (a number or 'all')")
    size = sizes[0]
    try:
        guidance = Guidance(
            extend_at=args.extend_at,
            extension=args.extension,
            reduce_below=args.reduce_below,
            reduction=args.reduction,
            confidence=args.confidence,
            keep_first=not args.predictions_first,
            min_depth=args.min_depth,
        )
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if args.reference_depth < 1:
        raise DataError("--reference-depth must be at least 1")
    held = load_heldout(args)
    training = first_training_games(held.games, size)
    model = OpponentModel(random_state=args.seed).fit(training)
    positions = sample_positions(held.test, args.max_positions, args.seed)
    if not positions:
        raise DataError("the test games hold no position where the modelled player's opponent is to move")
    reference = None if args.no_reference else stockfish_path()
    work = progress(positions, quiet=args.quiet, desc="positions", unit=" pos")
    measured = Parallel(n_jobs=args.jobs)(
        delayed(measure)(model, position, budgets, guidance, reference, args.reference_depth) for position in work
    )
    rows = pd.DataFrame([row for rows in measured for row in rows])
    summary = summarise(rows, args.seed)
    payload = {
        "player": held.player,
        "train_games": len(training),
        "guidance": asdict(guidance),
        "reference": None if reference is None else {"engine": "stockfish", "depth": args.reference_depth},
        "rows": rows.to_dict(orient="records"),
        "summary": summary.to_dict(orient="records"),
    }
    return ExperimentResult(
        name=NAME,
        tables={"rows": rows, "summary": summary},
        payload=payload,
        markdown=markdown(held.player, len(training), summary, guidance, reference is not None),
        figures={"ply_gain": figure(rows, summary)},
    )


def parse_budgets(text: str) -> list[int]:
    from iam.errors import DataError

    try:
        budgets = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise DataError(f"--budgets takes node counts like 5000,20000, not {text!r}") from None
    if not budgets or any(b < 10 for b in budgets):
        raise DataError("--budgets needs node counts of at least 10")
    return sorted(set(budgets))


def sample_positions(test_games, limit: int | None, seed: int) -> list[dict]:
    """Positions where the modelled player's opponent is to move, a seeded sample of them."""
    import chess

    found = []
    for game in test_games:
        board = game.board()
        for ply, move in enumerate(game.moves):
            if board.turn != game.color and not board.is_game_over():
                found.append(
                    {
                        "game": game.index,
                        "ply": ply,
                        "start": game.start_fen,
                        "moves": [m.uci() for m in game.moves[:ply]],
                        "modelled": 0 if game.color == chess.WHITE else 1,
                    }
                )
            board.push(move)
    if limit is not None and len(found) > limit:
        rng = np.random.default_rng(seed)
        picked = np.sort(rng.choice(len(found), size=limit, replace=False))
        found = [found[i] for i in picked]
    return found


def stockfish_path() -> str | None:
    """Debian's stockfish, if installed."""
    from search.match import MatchError, engine_command

    try:
        return engine_command("stockfish")[0]
    except MatchError:
        return None


def measure(model, position: dict, budgets: list[int], guidance, reference: str | None, reference_depth: int) -> list[dict]:
    """Plain and guided search of one position at every budget (one row per budget)."""
    import chess

    from search import HeuristicOrderer, Limits, TranspositionTable, search
    from search.chesseval import material_pst_evaluator
    from search.chessgame import ChessGame
    from search.omsearch import guided_search

    board = chess.Board(position["start"])
    for uci in position["moves"]:
        board.push_uci(uci)
    game, evaluator = ChessGame(), material_pst_evaluator()
    rows = []
    for budget in budgets:
        limits = Limits(nodes=budget)
        common = dict(evaluator=evaluator, limits=limits, quiescence=True)
        plain = search(game, board, ordering=HeuristicOrderer(), table=TranspositionTable(), **common)
        guided = guided_search(
            game,
            board,
            predictor=model,
            modelled_player=position["modelled"],
            guidance=guidance,
            ordering=HeuristicOrderer(),
            table=TranspositionTable(),
            **common,
        )
        g = guided.result
        rows.append(
            {
                "position": board.fen(),
                "game": position["game"],
                "ply": position["ply"],
                "budget": budget,
                "plain_depth": plain.depth,
                "guided_depth": g.depth,
                "ply_gain_pct": 100.0 * (g.depth - plain.depth) / plain.depth if plain.depth else np.nan,
                "plain_pv_length": len(plain.pv),
                "guided_pv_length": len(g.pv),
                "plain_nodes": plain.total_nodes,
                "guided_nodes": g.total_nodes,
                "plain_seconds": plain.seconds,
                "guided_seconds": g.seconds,
                "predictor_seconds": guided.predictions.seconds,
                "predictor_calls": guided.predictions.calls,
                "plain_move": plain.move.uci() if plain.move else None,
                "guided_move": g.move.uci() if g.move else None,
                "move_changed": plain.move != g.move,
            }
        )
    if reference is not None:
        _judge(rows, board, reference, reference_depth)
    return rows


def _judge(rows: list[dict], board, reference: str, depth: int) -> None:
    """Score differing moves with stockfish: centipawns for the side to move after each move."""
    import chess
    import chess.engine

    wanted = {move for row in rows if row["move_changed"] for move in (row["plain_move"], row["guided_move"]) if move}
    scores: dict[str, int] = {}
    if wanted:
        with chess.engine.SimpleEngine.popen_uci([reference]) as engine:
            engine.configure({"Threads": 1, "Hash": 16})
            for uci in sorted(wanted):
                after = board.copy()
                after.push_uci(uci)
                info = engine.analyse(after, chess.engine.Limit(depth=depth))
                scores[uci] = -info["score"].relative.score(mate_score=100_000)
    for row in rows:
        plain, guided = scores.get(row["plain_move"]), scores.get(row["guided_move"])
        row["reference_plain_cp"], row["reference_guided_cp"] = plain, guided
        if plain is None or guided is None:
            row["reference_prefers"] = "same move" if not row["move_changed"] else None
        elif abs(guided - plain) <= EQUAL_MARGIN_CP:
            row["reference_prefers"] = "equal"
        else:
            row["reference_prefers"] = "guided" if guided > plain else "plain"


def bootstrap_mean(values: np.ndarray, seed: int, resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """95% percentile interval of the mean of ``values`` (resampling the values)."""
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return (np.nan, np.nan)
    from experiments.bootstrap import interval

    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    return interval(means)


def summarise(rows: pd.DataFrame, seed: int) -> pd.DataFrame:
    """One row per budget: depths, ply gain (mean, median, 95% interval), costs, changed moves."""
    summary = []
    for budget, group in rows.groupby("budget", sort=True):
        gain = group["ply_gain_pct"].to_numpy(dtype=float)
        changed = group["move_changed"].to_numpy(dtype=bool)
        entry = {
            "budget": int(budget),
            "positions": len(group),
            "plain_depth_mean": float(group["plain_depth"].mean()),
            "guided_depth_mean": float(group["guided_depth"].mean()),
            "plain_pv_mean": float(group["plain_pv_length"].mean()) if "plain_pv_length" in group else np.nan,
            "guided_pv_mean": float(group["guided_pv_length"].mean()) if "guided_pv_length" in group else np.nan,
            "mean_ply_gain_pct": float(np.nanmean(gain)),
            "median_ply_gain_pct": float(np.nanmedian(gain)),
            "ci95": list(bootstrap_mean(gain, seed)),
            "deeper_pct": float(100 * np.mean(group["guided_depth"] > group["plain_depth"])),
            "shallower_pct": float(100 * np.mean(group["guided_depth"] < group["plain_depth"])),
            "plain_seconds_mean": float(group["plain_seconds"].mean()),
            "guided_seconds_mean": float(group["guided_seconds"].mean()),
            "predictor_share_pct": float(100 * group["predictor_seconds"].sum() / max(group["guided_seconds"].sum(), 1e-12)),
            "move_changed_pct": float(100 * changed.mean()),
        }
        if "reference_prefers" in group:
            verdicts = group.loc[changed, "reference_prefers"]
            judged = verdicts.isin(["guided", "plain", "equal"])
            for verdict in ("guided", "plain", "equal"):
                entry[f"reference_prefers_{verdict}"] = int((verdicts == verdict).sum())
            difference = group.loc[changed, "reference_guided_cp"] - group.loc[changed, "reference_plain_cp"]
            entry["reference_judged"] = int(judged.sum())
            entry["reference_mean_cp_difference"] = float(difference.mean()) if judged.any() else np.nan
        summary.append(entry)
    return pd.DataFrame(summary)


def markdown(player: str, train_games: int, summary: pd.DataFrame, guidance, referenced: bool) -> str:
    lines = [
        f"# Ply gain: {player}",
        "",
        f"Model trained on {train_games} games; guidance: moves believed >= {guidance.extend_at} "
        f"extended by {guidance.extension}, moves believed < {guidance.reduce_below} reduced by "
        f"{guidance.reduction} where the predictions hold >= {guidance.confidence} of the belief; "
        f"table move kept first: {guidance.keep_first}; model consulted with >= {guidance.min_depth} plies left.",
        "Seed 001 reports an average ply increase of 12.5%.",
        "",
    ]
    shown = summary.assign(ci95=[f"[{lo:.1f}, {hi:.1f}]" for lo, hi in summary["ci95"]])
    columns = [
        "budget",
        "positions",
        "plain_depth_mean",
        "guided_depth_mean",
        "mean_ply_gain_pct",
        "median_ply_gain_pct",
        "ci95",
        "move_changed_pct",
        "predictor_share_pct",
    ]
    if referenced and "reference_judged" in shown:
        columns += ["reference_prefers_guided", "reference_prefers_plain", "reference_prefers_equal"]
    lines.append(shown[columns].to_markdown(index=False, floatfmt=".2f"))
    if not referenced:
        lines += ["", "No reference engine: install Debian's stockfish to judge the differing moves."]
    return "\n".join(lines) + "\n"


def figure(rows: pd.DataFrame, summary: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    budgets = summary["budget"].to_numpy()
    labels = [f"{b:,}" for b in budgets]
    x = np.arange(len(budgets))
    left.bar(x - 0.2, summary["plain_depth_mean"], width=0.4, label="plain alpha-beta")
    left.bar(x + 0.2, summary["guided_depth_mean"], width=0.4, label="guided by the model")
    left.set_xticks(x, labels)
    left.set_xlabel("node budget")
    left.set_ylabel("mean depth completed (plies)")
    left.legend()
    low = summary["mean_ply_gain_pct"] - [lo for lo, _ in summary["ci95"]]
    high = [hi for _, hi in summary["ci95"]] - summary["mean_ply_gain_pct"]
    right.bar(x, summary["mean_ply_gain_pct"], yerr=[low, high], capsize=4, color="tab:green")
    right.axhline(12.5, color="grey", linestyle="--", label="seed 001: +12.5%")
    right.set_xticks(x, labels)
    right.set_xlabel("node budget")
    right.set_ylabel("mean ply gain (%) with 95% interval")
    right.legend()
    fig.tight_layout()
    return fig
