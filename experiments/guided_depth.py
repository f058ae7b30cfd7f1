"""Plain against opponent-guided search depth on a player's positions, shared by ply gain and guidance tuning.

The setup (:func:`prepare`): positions where the modelled player's opponent is to move,
sampled from the test or development games with the game's actual continuation
(:func:`sample_positions`), the predictors fitted on the training games
(:func:`fit_models`) and Debian's stockfish as the reference engine when installed.
The measurement (:func:`measure_all`, :func:`measure`): the plain and the guided
search of each position at each budget, their nominal depth, line depth and horizon
(:func:`search_shape`), with the differing moves judged by the reference
(:func:`judge`, :func:`verdict`). The summary (:func:`summarise`,
:func:`summary_table`): per guidance and budget, the depths and gains with percentile
bootstrap intervals over games, the costs and the reference's verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import chess
import chess.engine
import numpy as np
import pandas as pd

from experiments.common import HeldOutConfig, load_games
from iam.chunks.model import OpponentModel
from iam.errors import DataError
from iam.measure.bootstrap import GameResamples, interval, resample_games, resampled_means
from iam.priors.positions import player_positions
from iam.progress import progress
from iam.ranker import QUICK_FAMILIES, MoveRanker
from iam.ranker.replytable import distil_reply_policy
from iam.runtime import Runtime, map_in_order, runtime_from
from search import HeuristicOrderer, Limits, TranspositionTable, search
from search.chess.engine import ChessSearch
from search.chess.evaluation import material_pst_evaluator
from search.chess.game import ChessGame
from search.chess.match import MatchError, engine_command
from search.opponent.omsearch import Guidance, ModelledPlayer, guided_search
from search.probe import DepthProbe
from search.result import SearchResult

DEFAULT_POSITIONS = 50
LINE_PLIES = 16
"""Plies of the game's actual continuation watched by default."""
BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the games for the intervals."""
EQUAL_MARGIN_CP = 10
"""Reference scores closer than this (centipawns) count as equally good moves."""
DECIDED_CP = 1000
"""Reference scores are clipped to +-this: a mate, or a rook and more ahead, is decided either
way, and one such score must not swamp a mean over a few dozen moves."""
NEAR_PLIES = 1
"""His nodes at most this many plies below the root read a costly predictor (the ranker, the IAM model)."""
RANKER_POSITIONS = 2000
"""Training positions of the ranker (its default)."""
POLICY_POSITIONS = 1000
"""Training positions on which the policy is distilled from the ranker's beliefs."""

# ----------------------------------------------------------------------------- configs


@dataclass(frozen=True)
class PlayerModels:
    """The models of the player: the training games they learn from, the distilled policy's positions, a saved
    ranker."""

    train_games: int | None = None
    """Train the model on the first N training games (None: all)."""
    policy_positions: int = POLICY_POSITIONS
    """Training positions the distilled policy is fitted on."""
    ranker_model: str | None = None
    """A saved move ranker to use instead of fitting one; it must have been fitted on the same training games."""


@dataclass(frozen=True)
class LineJudge:
    """How the game's continuation is watched and the differing moves judged: the plies, the reference engine."""

    line_plies: int = LINE_PLIES
    """Plies of the game's actual continuation watched."""
    reference_depth: int = 12
    """Stockfish's depth for judging differing moves."""
    reference: bool = True
    """Judge differing moves with Debian's stockfish when it is installed."""


@dataclass(frozen=True)
class SetupConfig(HeldOutConfig):
    """Data, model, watched line and reference engine: the settings shared with guidance tuning."""

    max_positions: int | None = DEFAULT_POSITIONS
    models: PlayerModels = PlayerModels()
    """The models of the player and what they learn from."""
    judging: LineJudge = LineJudge()
    """The watched line and the reference engine."""


# ----------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class Setup:
    """What a ply-gain measurement runs on: the model, the positions and the judge."""

    player: str
    split: str
    """``test`` or ``dev``: where the positions come from."""
    model: object
    """The IAM model (None when no predictor asks for it)."""
    train_games: int
    positions: list[dict]
    line_plies: int
    reference: str | None
    reference_depth: int
    models: dict = field(default_factory=dict)
    """Fitted predictors by name (``iam``, ``ranker``, ``policy``) that the predictors need."""

    def describe(self) -> dict:
        return {
            "player": self.player,
            "positions_from": self.split,
            "train_games": self.train_games,
            "line_plies": self.line_plies,
            "reference": None if self.reference is None else {"engine": "stockfish", "depth": self.reference_depth},
        }


def prepare(config: SetupConfig, *, split: str, models: Sequence[str] = ("iam",)) -> Setup:
    """Read the games, fit the ``models`` (``iam``, ``ranker``, ``policy``) and sample the positions.

    The distilled ``policy`` needs the ranker, which is fitted for it.
    """
    own, watch = config.models, config.judging
    if own.train_games is not None and own.train_games < 1:
        raise DataError(f"train_games must be at least 1 (or None for all), not {own.train_games}")
    if watch.reference_depth < 1:
        raise DataError(f"reference_depth must be at least 1, not {watch.reference_depth}")
    if watch.line_plies < 1:
        raise DataError(f"line_plies must be at least 1, not {watch.line_plies}")
    held = load_games(config)
    fitting, games = (held.training, held.test) if split == "test" else (held.fitting, held.development)
    if not fitting or not games:
        raise DataError(f"{held.player} has no {'development' if split == 'dev' else 'test'} games to measure on")
    training = fitting if own.train_games is None else fitting[: own.train_games]
    positions = sample_positions(games, config.max_positions, config.seed, line_plies=watch.line_plies)
    if not positions:
        raise DataError("the games hold no position where the modelled player's opponent is to move")
    fitted = fit_models(held.player, training, models, seed=config.seed,
                        policy_positions=own.policy_positions, ranker_model=own.ranker_model)
    reference = stockfish_path() if watch.reference else None
    return Setup(held.player, split, fitted.get("iam"), len(training), positions, watch.line_plies, reference,
                 watch.reference_depth, fitted)


def fit_models(
    player: str, training, names: Sequence[str], *, seed: int, policy_positions: int = POLICY_POSITIONS,
    ranker_model: str | None = None,
) -> dict:
    """The models ``names`` asks for, fitted on ``training`` games only.

    The ranker is loaded from ``ranker_model`` if given.
    """
    fitted: dict[str, object] = {}
    if "iam" in names:
        fitted["iam"] = OpponentModel(random_state=seed).fit(training)
    ranker: MoveRanker | None = None
    if ("ranker" in names or "policy" in names) and ranker_model is not None:
        fitted["ranker"] = ranker = load_ranker(ranker_model, player, len(training))
    elif "ranker" in names or "policy" in names:
        fitted["ranker"] = ranker = MoveRanker(max_positions=RANKER_POSITIONS, random_state=seed).fit(
            training, player=player
        )
    if "quick" in names:
        fitted["quick"] = MoveRanker(
            families=QUICK_FAMILIES, max_positions=RANKER_POSITIONS, random_state=seed
        ).fit(training, player=player)
    if "policy" in names:
        sample = player_positions(training, sample=policy_positions, random_state=seed + 1)
        assert ranker is not None  # the policy's names fit or load the ranker above
        fitted["policy"] = distil_reply_policy(sample, ranker)
    return fitted


def load_ranker(path: str, player: str, games: int) -> MoveRanker:
    """A saved ranker of ``player`` fitted on ``games`` games (DataError otherwise: it may have seen the positions)."""
    try:
        ranker = MoveRanker.load(path)
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(f"cannot read the ranker {path}: {exc}") from None
    if ranker.player_ != player or ranker.n_games_ != games:
        raise DataError(
            f"the ranker {path} models {ranker.player_} on {ranker.n_games_} games; these positions need "
            f"{player} fitted on their {games} training games"
        )
    return ranker


def sample_positions(games, limit: int | None, seed: int, *, line_plies: int = LINE_PLIES) -> list[dict]:
    """Positions where the modelled player's opponent is to move, a seeded sample of them.

    Each carries the game's actual continuation from there (``line``, at most
    ``line_plies`` moves) for the line depth.
    """
    found = []
    for game in games:
        board = game.board()
        for ply, move in enumerate(game.moves):
            if board.turn != game.color and not board.is_game_over():
                found.append(
                    {
                        "game": game.index,
                        "ply": ply,
                        "start": game.start_fen,
                        "moves": [m.uci() for m in game.moves[:ply]],
                        "line": [m.uci() for m in game.moves[ply : ply + line_plies]],
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
    try:
        return engine_command("stockfish")[0]
    except MatchError:
        return None


# ----------------------------------------------------------------------------- measuring


def measure_all(
    setup: Setup,
    budgets: Sequence[int],
    guidances: Mapping[str, Guidance],
    *,
    runtime: Runtime,
    quiet: bool,
    times: Sequence[float] = (),
) -> pd.DataFrame:
    """Every position at every budget (nodes, then seconds), plain and under each named guidance: one row each,
    the positions run where ``runtime`` says."""
    limits = [("nodes", budget) for budget in budgets] + [("time", seconds) for seconds in times]
    tasks = [
        (setup.model, position, limits, guidances, setup.reference, setup.reference_depth)
        for position in setup.positions
    ]
    finished = map_in_order(measure, tasks, runtime_from(runtime))
    done = progress(finished, quiet=quiet, total=len(setup.positions), desc="positions", unit=" pos")
    return pd.DataFrame([row for rows in done for row in rows])


def measure(
    model,
    position: dict,
    budgets: Sequence[int] | Sequence[tuple[str, float]],
    guidances: Mapping[str, Guidance],
    reference: str | None,
    reference_depth: int,
) -> list[dict]:
    """Plain and guided search of one position at every budget (a row per budget and guidance).

    A budget is a node count, or a pair ``("nodes", n)`` / ``("time", seconds)``.
    """
    board = chess.Board(position["start"])
    for uci in position["moves"]:
        board.push_uci(uci)
    line = [chess.Move.from_uci(uci) for uci in position["line"]]
    rows = []
    for item in budgets:
        kind, budget = item if isinstance(item, tuple) else ("nodes", item)
        limits = Limits(nodes=int(budget)) if kind == "nodes" else Limits(time=budget)  # node budgets are counts
        plain, plain_shape, line_plies = plain_search(board, line, limits, "generic")
        for name, guidance in guidances.items():
            guided = Guided(core="generic", guidance=guidance)
            result, shape, stats = generic_guided(board, line, limits, model, guided, position["modelled"])
            rows.append(comparison_row(
                position, board, name, kind, budget, line_plies, SearchOutcome(plain, plain_shape),
                SearchOutcome(result, shape), stats,
            ))
    if reference is not None:
        judge(rows, board, reference, reference_depth)
    return rows


@dataclass(frozen=True)
class Guided:
    """How each predictor guides a search: the core, the guidance, how near the costly ones are read."""

    core: str = "fast"
    guidance: Guidance = field(default_factory=Guidance)
    near: int = NEAR_PLIES
    seed: int = 0
    """Seed of the noisy oracles' draws."""


def plain_search(board: chess.Board, line: Sequence[chess.Move], limits: Limits, core: str):
    if core == "fast":
        searcher = ChessSearch()
        result = searcher.search(board, limits, line=line)
        return result, search_shape(searcher, result.depth), searcher.line_length
    game = ChessGame()
    probe = DepthProbe(game, board, line)
    result = search(game, board, evaluator=material_pst_evaluator(), limits=limits, quiescence=True,
                    ordering=HeuristicOrderer(), table=TranspositionTable(), probe=probe)
    return result, search_shape(probe, result.depth), probe.line_length


def generic_guided(board, line, limits, predictor, guided: Guided, modelled: int):
    game = ChessGame()
    probe = DepthProbe(game, board, line)
    found = guided_search(
        game, board, modelled=ModelledPlayer(predictor, modelled, guided.guidance),
        ordering=HeuristicOrderer(),
        table=TranspositionTable(), probe=probe, evaluator=material_pst_evaluator(), limits=limits, quiescence=True,
    )
    stats = found.predictions
    return found.result, search_shape(probe, found.result.depth), (stats.seconds, stats.calls, stats.guided_nodes)


@dataclass(frozen=True)
class SearchOutcome:
    """One search of a position: its result and the shape of its tree along the game's line (:func:`search_shape`)."""

    result: SearchResult
    shape: dict


def comparison_row(
    position: dict,
    board: chess.Board,
    name: str,
    kind: str,
    budget: float,
    line_plies: int,
    plain: SearchOutcome,
    guided: SearchOutcome,
    stats: tuple[float, int, int],
) -> dict:
    """One table row: the plain and the guided search of ``position`` under guidance ``name`` at one budget.

    ``kind`` and ``budget`` are the limit (``nodes`` or ``time``); ``stats`` the predictor's
    seconds, calls and guided nodes.
    """
    seconds, calls, changed = stats
    plain_shape, guided_shape = plain.shape, guided.shape
    p, g = plain.result, guided.result
    return {
        "position": board.fen(),
        "game": position["game"],
        "ply": position["ply"],
        "guidance": name,
        "limit": kind,
        "budget": budget,
        "plain_depth": p.depth,
        "guided_depth": g.depth,
        "ply_gain_pct": _gain(p.depth, g.depth),
        "line_plies": line_plies,
        "plain_line_depth": plain_shape["line_depth"],
        "guided_line_depth": guided_shape["line_depth"],
        "line_gain_pct": _gain(plain_shape["line_depth"], guided_shape["line_depth"]),
        "plain_line_entered": plain_shape["line_entered"],
        "guided_line_entered": guided_shape["line_entered"],
        "plain_horizon_mean": plain_shape["horizon_mean"],
        "guided_horizon_mean": guided_shape["horizon_mean"],
        "guided_horizon_min": guided_shape["horizon_min"],
        "guided_horizon_max": guided_shape["horizon_max"],
        "plain_pv_length": len(p.pv),
        "guided_pv_length": len(g.pv),
        "plain_nodes": p.total_nodes,
        "guided_nodes": g.total_nodes,
        "plain_seconds": p.seconds,
        "guided_seconds": g.seconds,
        "predictor_seconds": seconds,
        "predictor_calls": calls,
        "guided_nodes_changed": changed,
        "plain_move": p.move.uci() if p.move else None,
        "guided_move": g.move.uci() if g.move else None,
        "move_changed": p.move != g.move,
    }


def search_shape(probe, depth: int) -> dict:
    """The probe's figures for the completed iteration of nominal ``depth`` (NaN if none)."""
    shape = probe.shape(depth) if depth > 0 else None
    if shape is None:
        return dict(line_depth=np.nan, line_entered=0, horizon_mean=np.nan, horizon_min=np.nan, horizon_max=np.nan)
    low, high = shape.horizon_range
    return dict(
        line_depth=float(shape.line_depth),
        line_entered=shape.line_entered,
        horizon_mean=shape.horizon_mean,
        horizon_min=low,
        horizon_max=high,
    )


def _gain(plain: float, guided: float) -> float:
    """Percent more plies; undefined (NaN) when the plain search completed no iteration."""
    if not plain or not np.isfinite(plain) or not np.isfinite(guided):
        return np.nan
    return 100.0 * (guided - plain) / plain


def judge(rows: list[dict], board, reference: str, depth: int) -> None:
    """Score differing moves with stockfish: centipawns for the mover, clipped to +-DECIDED_CP."""
    wanted = {move for row in rows if row["move_changed"] for move in (row["plain_move"], row["guided_move"]) if move}
    scores: dict[str, int] = {}
    if wanted:
        with chess.engine.SimpleEngine.popen_uci([reference]) as engine:
            engine.configure({"Threads": 1, "Hash": 16})
            for uci in sorted(wanted):
                after = board.copy()
                after.push_uci(uci)
                info = engine.analyse(after, chess.engine.Limit(depth=depth))
                score = -info["score"].relative.score(mate_score=DECIDED_CP)
                scores[uci] = int(np.clip(score, -DECIDED_CP, DECIDED_CP))
    for row in rows:
        row["reference_plain_cp"] = scores.get(row["plain_move"])
        row["reference_guided_cp"] = scores.get(row["guided_move"])
        row["reference_prefers"] = verdict(row)


def verdict(row: Mapping) -> str | None:
    """Which move the reference prefers: guided, plain, equal, same move, or None (unjudged)."""
    if not row["move_changed"]:
        return "same move"
    plain, guided = row["reference_plain_cp"], row["reference_guided_cp"]
    if plain is None or guided is None:
        return None
    if abs(guided - plain) <= EQUAL_MARGIN_CP:
        return "equal"
    return "guided" if guided > plain else "plain"


# ----------------------------------------------------------------------------- summarising


def summarise(rows: pd.DataFrame, seed: int, *, resamples: int = BOOTSTRAP_RESAMPLES) -> pd.DataFrame:
    """One row per guidance and budget: the three depths, their gains with intervals, costs, moves.

    Gains are given two ways: the mean of per-position gains (``mean_*_gain_pct``, with
    a 95% interval from resampling games) and the gain of the mean depths
    (``*_ratio_gain_pct``), which a few shallow positions (2 -> 3 plies is +50%)
    cannot dominate. Positions where the plain search completed no iteration have no
    gain and are counted in ``unfinished``.
    """
    if "guidance" not in rows:
        rows = rows.assign(guidance="guided")
    if "limit" not in rows:
        rows = rows.assign(limit="nodes")
    draws = resample_games(rows["game"].unique(), resamples=resamples, seed=seed)
    summary = [
        _summary_row(name, limit, budget, group, draws)
        for (name, limit, budget), group in rows.groupby(["guidance", "limit", "budget"], sort=True)
    ]
    return pd.DataFrame(summary)


_RESAMPLED = ["ply_gain_pct", "line_gain_pct", "plain_depth", "guided_depth", "plain_line_depth", "guided_line_depth"]
"""The columns whose means are resampled by game for the intervals of :func:`summarise`."""


def _summary_row(name: str, limit: str, budget: float, group: pd.DataFrame, draws: GameResamples) -> dict:
    """The summary of one guidance and budget: depths and gains, costs, changed moves, the reference's verdicts."""
    group = group.reset_index(drop=True)
    undefined = group["plain_line_depth"].isna() | group["guided_line_depth"].isna()
    group.loc[undefined, ["plain_line_depth", "guided_line_depth"]] = np.nan  # compare like with like
    means = resampled_means(group, draws, group[_RESAMPLED].to_numpy(dtype=float))
    resampled = dict(zip(_RESAMPLED, means.T))
    changed = group["move_changed"].to_numpy(dtype=bool)
    entry = {
        "guidance": name,
        "limit": limit,
        "budget": int(budget) if limit == "nodes" else float(budget),
        "positions": len(group),
        "games": int(group["game"].nunique()),
        "unfinished": int((group["plain_depth"] < 1).sum()),
        **_depth_figures(group, resampled),
        **_cost_figures(group),
        "predictor_top1": _nanmean(group["predictor_top1"]) if "predictor_top1" in group else np.nan,
        "move_changed_pct": float(100 * changed.mean()),
    }
    if "reference_prefers" in group:
        entry.update(_reference_figures(group, changed))
    return entry


def _depth_figures(group: pd.DataFrame, resampled: dict[str, np.ndarray]) -> dict:
    """Mean depths of both searches and the guided search's gains, with their resampled intervals."""
    depth_ratio = 100 * (resampled["guided_depth"] / resampled["plain_depth"] - 1)
    line_ratio = 100 * (resampled["guided_line_depth"] / resampled["plain_line_depth"] - 1)
    return {
        "plain_depth_mean": float(group["plain_depth"].mean()),
        "guided_depth_mean": float(group["guided_depth"].mean()),
        "mean_ply_gain_pct": _nanmean(group["ply_gain_pct"]),
        "median_ply_gain_pct": _nanmedian(group["ply_gain_pct"]),
        "ci95": list(interval(resampled["ply_gain_pct"])),
        "depth_ratio_gain_pct": _ratio_gain(group["guided_depth"], group["plain_depth"]),
        "depth_ratio_ci95": list(interval(depth_ratio)),
        "plain_line_depth_mean": _nanmean(group["plain_line_depth"]),
        "guided_line_depth_mean": _nanmean(group["guided_line_depth"]),
        "mean_line_gain_pct": _nanmean(group["line_gain_pct"]),
        "line_ci95": list(interval(resampled["line_gain_pct"])),
        "line_ratio_gain_pct": _ratio_gain(group["guided_line_depth"], group["plain_line_depth"]),
        "line_ratio_ci95": list(interval(line_ratio)),
        "deeper_pct": float(100 * np.mean(group["guided_depth"] > group["plain_depth"])),
        "shallower_pct": float(100 * np.mean(group["guided_depth"] < group["plain_depth"])),
        "line_deeper_pct": float(100 * np.mean(group["guided_line_depth"] > group["plain_line_depth"])),
        "line_shallower_pct": float(100 * np.mean(group["guided_line_depth"] < group["plain_line_depth"])),
    }


def _cost_figures(group: pd.DataFrame) -> dict:
    """What both searches spent: horizons, principal variations, nodes, seconds and the predictor's share."""
    return {
        "plain_horizon_mean": _nanmean(group["plain_horizon_mean"]) if "plain_horizon_mean" in group else np.nan,
        "guided_horizon_mean": _nanmean(group["guided_horizon_mean"]) if "guided_horizon_mean" in group else np.nan,
        "plain_pv_mean": float(group["plain_pv_length"].mean()) if "plain_pv_length" in group else np.nan,
        "guided_pv_mean": float(group["guided_pv_length"].mean()) if "guided_pv_length" in group else np.nan,
        "plain_nodes_mean": float(group["plain_nodes"].mean()) if "plain_nodes" in group else np.nan,
        "guided_nodes_mean": float(group["guided_nodes"].mean()) if "guided_nodes" in group else np.nan,
        "plain_seconds_mean": float(group["plain_seconds"].mean()),
        "guided_seconds_mean": float(group["guided_seconds"].mean()),
        "predictor_share_pct": float(
            100 * group["predictor_seconds"].sum() / max(group["guided_seconds"].sum(), 1e-12)
        ),
        "time_ratio": float(group["guided_seconds"].sum() / max(group["plain_seconds"].sum(), 1e-12)),
    }


def _reference_figures(group: pd.DataFrame, changed: np.ndarray) -> dict:
    """How often the reference engine prefers each move where the guided search changed it, and by how much."""
    entry: dict[str, float] = {}
    verdicts = group.loc[changed, "reference_prefers"]
    for preferred in ("guided", "plain", "equal"):
        entry[f"reference_prefers_{preferred}"] = int((verdicts == preferred).sum())
    judged = verdicts.isin(["guided", "plain", "equal"])
    difference = (group.loc[changed, "reference_guided_cp"] - group.loc[changed, "reference_plain_cp"]).astype(float)
    entry["reference_judged"] = int(judged.sum())
    entry["reference_mean_cp_difference"] = float(difference.mean()) if judged.any() else np.nan
    return entry


def _nanmean(values: pd.Series) -> float:
    values = values.to_numpy(dtype=float)
    return float(np.nanmean(values)) if np.isfinite(values).any() else np.nan


def _nanmedian(values: pd.Series) -> float:
    values = values.to_numpy(dtype=float)
    return float(np.nanmedian(values)) if np.isfinite(values).any() else np.nan


def _ratio_gain(guided: pd.Series, plain: pd.Series) -> float:
    """Percent by which the mean guided depth exceeds the mean plain depth (same positions)."""
    both = np.isfinite(guided.to_numpy(dtype=float)) & np.isfinite(plain.to_numpy(dtype=float))
    base = plain[both].mean()
    return float(100 * (guided[both].mean() / base - 1)) if both.any() and base else np.nan


def _interval_text(values: Sequence) -> list[str]:
    return [f"[{lo:.1f}, {hi:.1f}]" if np.isfinite(lo) else "n/a" for lo, hi in values]


def summary_table(summary: pd.DataFrame, *, referenced: bool, with_guidance: bool = False) -> str:
    """The summary as a markdown table (the columns a reader needs first)."""
    shown = summary.assign(
        ci95=_interval_text(summary["ci95"]),
        line_ci95=_interval_text(summary["line_ci95"]),
    )
    columns = ["guidance"] if with_guidance else []
    columns += [
        "limit",
        "budget",
        "positions",
        "plain_depth_mean",
        "guided_depth_mean",
        "mean_ply_gain_pct",
        "ci95",
        "depth_ratio_gain_pct",
        "guided_line_depth_mean",
        "mean_line_gain_pct",
        "line_ci95",
        "guided_horizon_mean",
        "move_changed_pct",
        "predictor_share_pct",
    ]
    columns += [column for column in ("time_ratio", "predictor_top1") if column in shown]
    if referenced and "reference_judged" in shown:
        columns += [
            "reference_prefers_guided",
            "reference_prefers_plain",
            "reference_prefers_equal",
            "reference_mean_cp_difference",
        ]
    return shown[columns].to_markdown(index=False, floatfmt=".2f")
