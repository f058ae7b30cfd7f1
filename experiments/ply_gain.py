"""Ply gain (source note 001, "Results - Min-Max"): how much deeper a search sees when it knows
its opponent. The source notes report an average ply increase of 12.5%.

Positions come from the held-out games where the modelled player's *opponent* is to
move, so the predicted replies sit one ply down. For every budget (nodes, or seconds)
the plain iterative-deepening alpha-beta and the search guided by each predictor
get the same budget and fresh tables. The searches run on the fast chess core
(``core="fast"``: :class:`~search.chess.engine.ChessSearch`, guided by a
:class:`~search.chess.guided.ModelGuide`, which watches the line itself) or on the
generic search over the python-chess adapter (``core="generic"``: ordering,
quiescence, transposition table, :mod:`search.opponent.omsearch`, watched by a
:class:`search.probe.DepthProbe`), the reference and the slower of the two. The fast
core looks at its budget every 1,024 nodes, so its plain and guided searches alike may
pass a node budget by up to that many; under a time budget it also looks at the clock
after each prediction, whose time counts against the guided search.

Predictors (``predictors``, each a name; ``near+cheap`` reads the first at his nodes
within ``near`` plies of the root and the second deeper, fast core only):

* ``iam``: the IAM opponent model fitted on the training games (the generic core's
  only predictor in earlier measurements);
* ``ranker``: the player's move ranker (:class:`iam.ranker.MoveRanker`) fitted on the
  same games, read near the root (it searches every move for its features);
* ``quick``: a move ranker of the families that search nothing
  (:data:`iam.ranker.QUICK_FAMILIES`), fitted on the same games: milliseconds a call, so
  it can be read further from the root than the ranker (``near``);
* ``policy``: the cheap reply policy distilled from that ranker's beliefs on his
  training positions (:func:`iam.ranker.replytable.distil_reply_policy`), read at
  every node of his;
* ``oracle``: the game's actual continuation (:class:`~search.chess.oracle.LineOracle`),
  certain along the watched line and silent elsewhere: the mechanism's ceiling;
  ``oracle@p``: the noisy oracle naming the move played with probability ``p``.

Each predictor's top-1 (how often its most believed move at the position one ply down
is the move the player chose) is reported beside its gains. Three depths are
recorded, because a guided search's tree is not uniform:

* the *nominal* depth, the last iteration completed (what engines print, and the
  figure the source notes' "ply increase" compares);
* the *line depth* along the game's actual continuation (the next ``line_plies``
  moves played): how far that search would follow the line the players chose before
  handing it to the evaluation. Plain search: its nominal depth; guided: plus the
  extensions and minus the reductions that line received;
* the *horizon*: the mean ply at which the completed iteration stopped searching,
  over all its horizon nodes (reductions pull it below the nominal depth).

Also recorded: nodes and time used, the predictor's share, principal-variation
lengths and the move chosen. When the two choose different moves and Debian's
stockfish is installed, a deeper reference search scores both, so that a gain in
depth is not bought with worse moves.

Intervals are percentile bootstrap intervals over games (positions of one game are
resampled together). ``positions="dev"`` measures development positions (training
games set aside, with a model fitted on the other training games) for choosing the
guidance; the defaults of :class:`search.opponent.omsearch.Guidance` were chosen that way
(:mod:`experiments.guidance_tuning`), never on test games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import chess
import chess.engine
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.common import ExperimentResult
from experiments.guided_depth import (
    EQUAL_MARGIN_CP,
    NEAR_PLIES,
    Guided,
    SearchOutcome,
    Setup,
    SetupConfig,
    comparison_row,
    generic_guided,
    judge,
    plain_search,
    prepare,
    search_shape,
    summarise,
    summary_table,
)
from iam.errors import DataError
from iam.progress import progress
from iam.runtime import Runtime, map_in_order, runtime_from
from search import Limits
from search.chess.engine import ChessSearch
from search.chess.guided import GuideSettings, ModelGuide
from search.chess.oracle import LineOracle
from search.opponent.omsearch import Guidance

NAME = "ply-gain"
HELP = "plies completed by plain and opponent-model-guided search at equal node budgets (and equal time with --times)"

DEFAULT_BUDGETS = (5000, 20000, 50000)
CORES = ("fast", "generic")
MODELS = ("iam", "ranker", "quick", "policy")
"""Predictors fitted on the player's games (``oracle`` and ``oracle@p`` need none)."""
CHEAP = ("policy", "oracle")
"""Predictors cheap enough for every node of his (the rest are read near the root only)."""


@dataclass(frozen=True)
class SearchBudgets:
    """What each search of a position gets: node budgets, time budgets, or both."""

    nodes: tuple[int, ...] = DEFAULT_BUDGETS
    """Node budgets (each at least 10)."""
    times: tuple[float, ...] = ()
    """Time budgets in seconds (each above 0): plain and guided search get the same time, so
    the time the guided search spends predicting counts against it."""


@dataclass(frozen=True)
class SearchSettings:
    """The searches compared: the core they run on, the predictors guiding them, and how."""

    core: str = "fast"
    """``fast``: the fast chess core; ``generic``: the generic search on the python-chess adapter."""
    predictors: tuple[str, ...] = ("iam",)
    """Predictor names (see the module docstring)."""
    guidance: Guidance = field(default_factory=Guidance)
    near: int = NEAR_PLIES
    """Fast core: his nodes at most this many plies below the root read the costly predictor."""


@dataclass(frozen=True)
class PlyGainConfig(SetupConfig):
    """The ply-gain experiment: where the positions come from, the budgets, the searches."""

    positions: str = "test"
    """``test``: positions of the test games, model fitted on training games; ``dev``: positions
    of development games, model fitted on the other training games."""
    budgets: SearchBudgets = SearchBudgets()
    search: SearchSettings = SearchSettings()


def predictor_parts(spec: str) -> tuple[str | None, str | None]:
    """``spec``'s predictor read near the root and its cheap one read deeper (DataError if unknown).

    A cheap predictor alone (``policy``, ``oracle``, ``oracle@p``) is read at every node of his.
    """
    parts = spec.split("+")
    if len(parts) > 2 or not all(parts):
        raise DataError(f"a predictor is a name or near+cheap, not {spec!r}")
    for part in parts:
        _accuracy(part)
    if len(parts) == 1:
        return (None, spec) if _cheap(spec) else (spec, None)
    if not _cheap(parts[1]):
        raise DataError(f"{parts[1]!r} is too costly for every node; the cheap ones are {', '.join(CHEAP)}")
    return parts[0], parts[1]


def _cheap(name: str) -> bool:
    return name.split("@")[0] in CHEAP


def _accuracy(name: str) -> float | None:
    """An oracle's accuracy (1 for ``oracle``), None for a model; DataError for an unknown name."""
    base, _, rest = name.partition("@")
    if base in MODELS and not rest:
        return None
    if base == "oracle":
        if not rest:
            return 1.0
        try:
            accuracy = float(rest)
        except ValueError:
            accuracy = -1.0
        if 0.0 <= accuracy <= 1.0:
            return accuracy
        raise DataError(f"oracle@p takes an accuracy p in [0, 1], not {rest!r}")
    raise DataError(f"unknown predictor {name!r}: choose from {', '.join((*MODELS, 'oracle', 'oracle@p'))}")


# ----------------------------------------------------------------------------- measuring


def measure_all_predictors(
    setup: Setup, budgets: Sequence[int], specs: Sequence[str], guided: Guided, *, runtime: Runtime, quiet: bool,
    times: Sequence[float] = (),
) -> pd.DataFrame:
    """Every position at every budget (nodes, then seconds), plain and guided by each predictor: one row each,
    the positions run where ``runtime`` says."""
    limits = [("nodes", budget) for budget in budgets] + [("time", seconds) for seconds in times]
    tasks = [
        (setup.models, position, limits, specs, guided, setup.reference, setup.reference_depth)
        for position in setup.positions
    ]
    finished = map_in_order(measure_predictors, tasks, runtime_from(runtime))
    done = progress(finished, quiet=quiet, total=len(setup.positions), desc="positions", unit=" pos")
    return pd.DataFrame([row for rows in done for row in rows])


def _predictor(
    name: str | None, models: Mapping[str, object], board: chess.Board, line: Sequence[chess.Move], seed: int
):
    if name is None:
        return None
    accuracy = _accuracy(name)
    if accuracy is None:
        return models[name]
    return LineOracle(board, line, accuracy=accuracy, seed=seed)


def _top1(predictor, board: chess.Board, line: Sequence[chess.Move]) -> float:
    """1 if ``predictor`` names the player's next move first at the position one ply down, else 0.

    NaN when there is no such move.
    """
    if predictor is None or len(line) < 2 or line[0] not in board.legal_moves:
        return np.nan
    after = board.copy()
    after.push(line[0])
    beliefs = predictor.predict_proba(after)
    if not beliefs:
        return 0.0
    return float(max(beliefs, key=beliefs.get) == line[1])


def measure_predictors(
    models: Mapping[str, object],
    position: dict,
    budgets: Sequence[tuple[str, float]],
    specs: Sequence[str],
    guided: Guided,
    reference: str | None,
    reference_depth: int,
) -> list[dict]:
    """Plain search and the search guided by each predictor of one position at every budget (a row each)."""
    board = chess.Board(position["start"])
    for uci in position["moves"]:
        board.push_uci(uci)
    line = [chess.Move.from_uci(uci) for uci in position["line"]]
    parts = {spec: predictor_parts(spec) for spec in specs}
    top1 = {}
    for spec, (near, cheap) in parts.items():
        first = near if near is not None else cheap
        top1[spec] = _top1(_predictor(first, models, board, line, guided.seed), board, line)
    rows = []
    for kind, budget in budgets:
        limits = Limits(nodes=int(budget)) if kind == "nodes" else Limits(time=budget)  # node budgets are counts
        plain, plain_shape, line_plies = plain_search(board, line, limits, guided.core)
        for spec, (near, cheap) in parts.items():
            near_predictor = _predictor(near, models, board, line, guided.seed)
            cheap_predictor = _predictor(cheap, models, board, line, guided.seed)
            if guided.core == "fast":
                result, shape, stats = _fast_guided(
                    board, line, limits, near_predictor, cheap_predictor, guided, position["modelled"]
                )
            else:
                result, shape, stats = generic_guided(
                    board, line, limits, near_predictor or cheap_predictor, guided, position["modelled"]
                )
            row = comparison_row(
                position, board, spec, kind, budget, line_plies, SearchOutcome(plain, plain_shape),
                SearchOutcome(result, shape), stats,
            )
            row["predictor_top1"] = top1[spec]
            rows.append(row)
    if reference is not None:
        judge(rows, board, reference, reference_depth)
    return rows


def _fast_guided(board, line, limits, near, cheap, guided: Guided, modelled: int):
    guide = ModelGuide(near, cheap=cheap, settings=GuideSettings(guidance=guided.guidance, near=guided.near))
    searcher = ChessSearch(guide=guide)
    result = searcher.search(board, limits, line=line)
    stats = guide.stats()
    return result, search_shape(searcher, result.depth), (stats.seconds, stats.calls, stats.guided_nodes)


# ----------------------------------------------------------------------------- the experiment


def _check_searches(
    budgets: SearchBudgets, search_settings: SearchSettings
) -> dict[str, tuple[str | None, str | None]]:
    """Each predictor's parts (:func:`predictor_parts`); DataError on a bad budget, core, predictor or nearness."""
    if not budgets.nodes and not budgets.times:
        raise DataError("ply-gain needs node budgets or time budgets")
    if any(b < 10 for b in budgets.nodes):
        raise DataError(f"budgets must be node counts of at least 10, not {budgets.nodes}")
    if any(not 0 < t <= 600 for t in budgets.times):
        raise DataError(f"times must be seconds above 0 and at most 600, not {budgets.times}")
    if search_settings.core not in CORES:
        raise DataError(f"core must be one of {', '.join(CORES)}, not {search_settings.core!r}")
    if not search_settings.predictors:
        raise DataError("ply-gain needs at least one predictor")
    if search_settings.near < 0:
        raise DataError(f"near must be at least 0 plies, not {search_settings.near}")
    parts = {spec: predictor_parts(spec) for spec in search_settings.predictors}
    if search_settings.core == "generic" and any(
        near is not None and cheap is not None for near, cheap in parts.values()
    ):
        raise DataError(
            "the generic core reads one predictor at every node: near+cheap predictors need core 'fast', not 'generic'"
        )
    return parts


def run(config: PlyGainConfig) -> ExperimentResult:
    """Tables ``rows`` (one per position, budget and search) and ``summary`` (per budget), a payload, a plot.

    >>> from experiments.common import GameSource
    >>> from experiments.guided_depth import LineJudge, PlayerModels
    >>> from iam.games.bundled import bundled_pgn
    >>> config = PlyGainConfig(source=GameSource(pgn=str(bundled_pgn("botvinnik.pgn")), player="Botvinnik"),
    ...                        models=PlayerModels(train_games=20), max_positions=2,
    ...                        budgets=SearchBudgets(nodes=(200,)), judging=LineJudge(reference=False))
    >>> run(config).tables["summary"][["budget", "positions"]].values.tolist()
    [[200, 2]]
    """
    if config.positions not in ("test", "dev"):
        raise DataError(f"positions must be 'test' or 'dev', not {config.positions!r}")
    parts = _check_searches(config.budgets, config.search)
    search_settings = config.search
    budgets, times = sorted(set(config.budgets.nodes)), sorted(set(config.budgets.times))
    guidance = search_settings.guidance
    names = {name.split("@")[0] for pair in parts.values() for name in pair if name is not None}
    setup = prepare(config, split=config.positions, models=[name for name in MODELS if name in names])
    guided = Guided(core=search_settings.core, guidance=guidance, near=search_settings.near, seed=config.seed)
    rows = measure_all_predictors(
        setup, budgets, list(dict.fromkeys(search_settings.predictors)), guided, runtime=config.runtime,
        quiet=config.quiet, times=times,
    )
    summary = summarise(rows, config.seed)
    payload = {
        **setup.describe(),
        "core": search_settings.core,
        "predictors": list(search_settings.predictors),
        "near": search_settings.near,
        "guidance": asdict(guidance),
        "rows": rows.to_dict(orient="records"),
        "summary": summary.to_dict(orient="records"),
    }
    return ExperimentResult(
        name=NAME,
        tables={"rows": rows, "summary": summary},
        payload=payload,
        markdown=markdown(setup, summary, guidance, core=search_settings.core, near=search_settings.near),
        figures={"ply_gain": figure(summary), "gain_vs_top1": top1_figure(summary)},
    )


def markdown(setup: Setup, summary: pd.DataFrame, guidance, *, core: str = "generic", near: int | None = None) -> str:
    split = "test games" if setup.split == "test" else "development games (training games set aside)"
    nearness = f", costly predictors read within {near} plies of the root" if near is not None else ""
    where = ("the fast chess core" + nearness
             if core == "fast" else "the generic search on the python-chess adapter")
    lines = [
        f"# Ply gain: {setup.player}",
        "",
        f"{len(setup.positions)} positions from {split}, the modelled player's opponent to move; "
        f"searches on {where}; "
        f"models trained on {setup.train_games} games. Guidance: moves believed >= {guidance.extend_at} "
        f"extended by {guidance.extension}, moves believed < {guidance.reduce_below} reduced by "
        f"{guidance.reduction} where the predictions hold >= {guidance.confidence} of the belief; "
        f"table move kept first: {guidance.keep_first}, reducible: {guidance.reduce_first}; "
        f"moves believed < {guidance.prune_below} pruned; model consulted with >= "
        f"{guidance.min_depth} plies left.",
        "",
        "Depths: nominal (the last completed iteration; plain's line depth is the same), line "
        f"(how far the search follows the game's actual next {setup.line_plies} plies), horizon "
        "(mean ply where the search stopped). Gains are means of per-position gains with 95% "
        "intervals over games; `depth_ratio_gain_pct` is the gain of the mean nominal depth. "
        "Source note 001 reports an average ply increase of 12.5%.",
        "",
        summary_table(summary, referenced=setup.reference is not None, with_guidance=True),
    ]
    if setup.reference is None:
        lines += ["", "No reference engine: install Debian's stockfish to judge the differing moves."]
    else:
        judged = (
            f"Differing moves judged by stockfish at depth {setup.reference_depth} "
            f"(equal within {EQUAL_MARGIN_CP} cp)."
        )
        lines += ["", judged]
    return "\n".join(lines) + "\n"


def figure(summary: pd.DataFrame):
    fig = Figure(figsize=(11, 4))
    left, right = fig.subplots(1, 2)
    budgets = summary["budget"].to_numpy()
    limits = summary["limit"].to_numpy() if "limit" in summary else np.full(len(budgets), "nodes")
    labels = [f"{b:,} nodes" if limit == "nodes" else f"{b:g} s" for b, limit in zip(budgets, limits)]
    x = np.arange(len(budgets))
    width = 0.27
    left.bar(x - width, summary["plain_depth_mean"], width=width, label="plain alpha-beta")
    left.bar(x, summary["guided_depth_mean"], width=width, label="guided: nominal depth")
    left.bar(x + width, summary["guided_line_depth_mean"], width=width, label="guided: along the game's line")
    left.set_xticks(x, labels)
    left.set_xlabel("budget")
    left.set_ylabel("mean depth (plies)")
    left.legend(fontsize="small")
    for offset, column, ci, label, color in (
        (-0.2, "mean_ply_gain_pct", "ci95", "nominal depth", "tab:orange"),
        (0.2, "mean_line_gain_pct", "line_ci95", "along the game's line", "tab:green"),
    ):
        means = summary[column].to_numpy(dtype=float)
        bounds = np.array([list(pair) for pair in summary[ci]], dtype=float)
        errors = np.nan_to_num(np.abs(np.vstack([means - bounds[:, 0], bounds[:, 1] - means])))
        right.bar(x + offset, means, width=0.4, yerr=errors, capsize=4, color=color, label=label)
    right.axhline(12.5, color="grey", linestyle="--", label="source note 001: +12.5%")
    right.set_xticks(x, labels)
    right.set_xlabel("budget")
    right.set_ylabel("mean ply gain (%) with 95% interval")
    right.legend(fontsize="small")
    fig.tight_layout()
    return fig


def top1_figure(summary: pd.DataFrame):
    """Mean nominal and line depth gains against each predictor's top-1, at equal nodes and at equal time."""
    fig = Figure(figsize=(11, 4))
    panels = fig.subplots(1, 2)
    limits = summary["limit"].to_numpy() if "limit" in summary else np.full(len(summary), "nodes")
    for ax, limit, title in zip(panels, ("nodes", "time"), ("equal nodes", "equal time")):
        part = summary[limits == limit]
        depths = (("mean_ply_gain_pct", "o", "nominal depth"), ("mean_line_gain_pct", "s", "along the game's line"))
        for column, marker, label in depths:
            for budget, group in part.groupby("budget", sort=True):
                unit = f"{int(budget):,} nodes" if limit == "nodes" else f"{budget:g} s"
                ax.scatter(group["predictor_top1"], group[column], marker=marker, label=f"{label}, {unit}")
                for _, entry in group.iterrows():
                    ax.annotate(str(entry["guidance"]), (entry["predictor_top1"], entry[column]), fontsize="x-small")
        ax.axhline(0.0, color="black", linewidth=0.5)
        ax.axhline(12.5, color="grey", linestyle="--")
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("predictor top-1 (his next move named first)")
        ax.set_ylabel("mean depth gain (%)")
        ax.set_title(title if len(part) else f"{title}: not measured")
        if len(part):
            ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig
