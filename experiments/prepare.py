"""The dossier checked on games it never saw: built from his training games, tested on his test games.

For each of his colours, :func:`iam.prepare.dossier.prepare` builds the dossier from his
*training* games (:mod:`iam.games.heldout`) with a move ranker fitted on them
(:func:`iam.prepare.dossier.default_model_params`; with ``--engine`` it reads the engine's
glance too), and each of his *test* games of that colour is checked against it:

* **entered**: the game reaches a position of a prepared line with him to move, at ply
  ``entry_ply`` or later (and, apart, of a main line: our chosen moves only);
* **opening moves named**: at each of his first ``opening_moves`` moves, whether the
  dossier's named move (his most believed: the model's belief updated by his training
  games there, :class:`~iam.prepare.beliefs.HisLineBeliefs`) is the move he played, against the
  counting-only baseline (his usual move, nothing where his training games never went); also
  over the positions where only the model names a move; and the log loss of the dossier's
  belief in the move he played there (a proper score: lower is better, it rewards naming and honest doubt alike);
* **calibration**: at each of his prepared-line positions a test game reaches, each
  reply the line follows is a prediction of belief ``p`` (a line's probability is the
  product of these), hit when he played it; ECE over ten equal-width bins, beside the
  ECE that perfectly calibrated beliefs would show on the same steps (the median of
  :func:`iam.measure.evaluation.calibrated_ece`: an ECE is never zero on a sample) and the share of
  those draws at least as high as the measured ECE (small: miscalibration the sample shows);
* **evaluation at the exit**: where a game entered, the scorer's value (for us: his
  opponent) of the last position of the prepared tree the game reached (where he, or his
  opponent, left it, or its end), against the value of the scorer's own main line at the
  same ply (the no-model reference); the difference per game.

Every check is made twice: against one dossier from all his training games, and with
each test game against the dossier as it stood before the game (:func:`dated_sides`: from
his training games surely played before its date), as a dossier is used the night before
a game. Only the second can tell whether his recent games should weigh more: one dossier,
dated at his last game, meets test games from his whole career.

Intervals: 95% percentile bootstrap over test games (:mod:`iam.measure.bootstrap`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import chess
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.common import ExperimentResult, HeldOutConfig, load_games
from iam.errors import DataError
from iam.games.filters import parse_game_date, surely_before
from iam.games.pgn import PlayerGame
from iam.measure.bootstrap import CONFIDENCE, RESAMPLES, interval, resample_games, resampled_means
from iam.measure.evaluation import ECE_BINS, calibrated_ece
from iam.prepare.beliefs import HisLineBeliefs
from iam.prepare.dossier import (
    MODEL_PLIES,
    PrepareConfig,
    SideDossier,
    build_side,
    default_model_params,
    fit_default_model,
    open_scorer,
    prepare,
)
from iam.prepare.lines import Plan, PlanNode
from iam.prepare.model_cache import cached_default_model
from iam.prepare.report import belief_updates
from iam.prepare.scoring import MoveScorer, position_value
from iam.prepare.tree import (
    Predictor,
    Repertoire,
    most_believed,
)
from iam.progress import progress

NAME = "prepare"
LOG_FLOOR = 1e-4
"""The belief in the move he played is floored here in the log loss (as :func:`iam.measure.evaluation.summarise`
does)."""
GAMES = ("test", "dev")
"""Where the dossier is built and checked: training and test games, or fitting and development games."""
OPENING_COLUMNS = ["game", "ply", "known", "dossier", "counting", "belief", "log_loss"]
HELP = (
    "the dossier from his training games, checked on his test games: lines entered, opening moves named, calibration, "
    "value at the exit"
)

__all__ = [
    "NAME", "HELP", "PrepareExperimentConfig", "DossierChecks", "run", "game_rows", "opening_rows", "dated_sides",
    "step_rows", "ece"
]


@dataclass(frozen=True)
class DossierChecks:
    """How the dossier is checked on his games: where a game enters a line, how many of his moves are named, and
    the bootstrap's resamples."""

    entry_ply: int = 4
    """A test game enters a prepared line at a position of it with him to move at this ply or later."""
    opening_moves: int = 10
    """His first this many moves of each test game are checked."""
    resamples: int = RESAMPLES


@dataclass(frozen=True)
class PrepareExperimentConfig(HeldOutConfig):
    """The dossier experiment's settings: the dossier's own, and how it is checked on his games.

    ``dossier`` is built as :class:`~iam.prepare.dossier.PrepareConfig` says, but for its player (the one
    whose games are read), its tree (at least as deep as the opening moves checked), its runtime (the engine,
    its cache, the processes) and its quietness (the experiment's own ``runtime`` and ``quiet``).
    """

    dossier: PrepareConfig = PrepareConfig(player="")
    checks: DossierChecks = DossierChecks()
    games: str = "test"
    """``test``: the dossier from his training games, checked on his test games; ``dev``: from
    the fitting games, checked on the development games (where settings are chosen)."""
    model_cache: str | None = None
    """Folder keeping the fitted default model (:mod:`iam.prepare.model_cache`); None fits it every run."""

    @property
    def plies(self) -> int:
        """Plies the prepared lines reach."""
        return self.dossier.lines.plies


def _reference_values(plan: Plan, scorer: MoveScorer) -> list[float]:
    """The scorer's value for us of each position of its main line, by ply (the start included)."""
    board = chess.Board()
    values: list[float] = []
    for uci in (*plan.reference.moves, None):
        value = position_value(scorer, board)
        values.append(value if board.turn != plan.his_color else -value)
        if uci is not None:
            board.push_uci(uci)
    return values


def game_rows(side: SideDossier, games: list[PlayerGame], scorer: MoveScorer, entry_ply: int) -> pd.DataFrame:
    """One row per test game: whether it entered (a prepared line, a main line), where it left the prepared tree,
    the values there."""
    plan = side.plan
    his_nodes, main_nodes, nodes = plan.his_nodes(), plan.his_nodes(alternatives=False), plan.nodes_on_lines()
    reference = _reference_values(plan, scorer)
    rows = []
    for game in games:
        entry = _entry(game, his_nodes, plan.his_color, entry_ply)
        row: dict[str, object] = {
            "game": game.index,
            "color": chess.COLOR_NAMES[side.color],
            "entered": entry is not None,
            "entered_main": _entry(game, main_nodes, plan.his_color, entry_ply) is not None,
            "entry_ply": entry,
        }
        if entry is not None:
            board = chess.Board()
            for move in game.moves[:entry]:
                board.push(move)
            node, left = nodes[board.epd()], "end"
            for move in game.moves[entry:]:
                if not node.children:
                    break
                if move.uci() not in node.prepared():
                    left = "us" if node.our_turn else "him"
                    break
                node = node.children[move.uci()][1]
            ref = reference[min(node.ply, len(reference) - 1)]
            row.update(
                exit_ply=node.ply, left=left, exit_value=node.static, reference_value=ref, gain=node.static - ref
            )
        rows.append(row)
    columns = [
        "game", "color", "entered", "entered_main", "entry_ply", "exit_ply", "left", "exit_value", "reference_value",
        "gain",
    ]
    return pd.DataFrame(rows, columns=columns)


def _entry(game: PlayerGame, his_nodes: dict[str, PlanNode], his_color: chess.Color, entry_ply: int) -> int | None:
    """The first ply at or after ``entry_ply`` where the game stands at one of ``his_nodes`` with him to move."""
    board = chess.Board()
    for ply, move in enumerate(game.moves):
        if ply >= entry_ply and board.turn == his_color and board.epd() in his_nodes:
            return ply
        board.push(move)
    return None


def opening_rows(side: SideDossier, games: list[PlayerGame], moves: int) -> pd.DataFrame:
    """One row per move of his among his first ``moves`` in each test game: named by the dossier, by counting alone."""
    rows = [_opening_row(game, ply, board, move, side.repertoire, side.beliefs)
            for game in games for ply, board, move in _his_moves(game, side.color, moves)]
    return pd.DataFrame(rows, columns=OPENING_COLUMNS)


def dated_sides(
    side: SideDossier, training: list[PlayerGame], games: list[PlayerGame], scorer: MoveScorer, settings: PrepareConfig
) -> Iterator[tuple[SideDossier, list[PlayerGame]]]:
    """Each test game's dossier as it stood before the game, with the test games of that date.

    His repertoire, beliefs and prepared lines from his training games surely played before
    the date (:func:`iam.games.filters.surely_before`; recency from the latest of them, as ``iam
    prepare --until`` weighs it; his games of unknown year in none of them), the same scorer,
    and the same model and book beneath, asked once per position. The model is fitted once,
    on all his training games, so it has seen games played after the test game too: only
    his repertoire is dated. A test game of unknown year has no such dossier and is left
    out (the summary counts the games kept).
    """
    model = _Remembered(side.beliefs.model if isinstance(side.beliefs, HisLineBeliefs) else side.beliefs)
    his = [(parse_game_date(game.date), game) for game in training if game.color == side.color]
    dated = [(parse_game_date(game.date), game) for game in games]
    quiet = replace(settings, quiet=True)
    for date in sorted({date for date, _ in dated if date is not None}):
        earlier = [game for played, game in his if played is not None and surely_before(played, date)]
        on_date = [game for played, game in dated if played == date]
        yield build_side(earlier, side.color, model, scorer, quiet, habits=False, values=False), on_date


def _his_moves(game: PlayerGame, color: chess.Color, moves: int) -> Iterator[tuple[int, chess.Board, chess.Move]]:
    """(ply, position, his move) for his first ``moves`` moves of ``game``; the board is the game's, read it
    before the next."""
    board = chess.Board()
    his = 0
    for ply, move in enumerate(game.moves):
        if board.turn == color:
            if his >= moves:
                return
            yield ply, board, move
            his += 1
        board.push(move)


def _opening_row(
    game: PlayerGame, ply: int, board: chess.Board, move: chess.Move, repertoire: Repertoire, beliefs: Predictor
) -> dict:
    """His move at ``board``: named by the beliefs, by counting his games in the repertoire; the belief in it."""
    usual = repertoire.usual_move(board)
    believed = beliefs.predict_proba(board)  # asked once: each call may be a model prediction
    belief = float(believed.get(move, 0.0))
    return {"game": game.index, "ply": ply, "known": usual is not None, "dossier": most_believed(believed) == move,
            "counting": usual == move, "belief": belief, "log_loss": -np.log(max(belief, LOG_FLOOR))}


class _Remembered:
    """A predictor asked once per position (the dated repertoires share the model and book beneath them)."""

    def __init__(self, model: Predictor) -> None:
        self.model = model
        self._known: dict[str, dict[chess.Move, float]] = {}

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        key = board.epd()
        if key not in self._known:
            self._known[key] = self.model.predict_proba(board)
        return dict(self._known[key])


def step_rows(side: SideDossier, games: list[PlayerGame]) -> pd.DataFrame:
    """One row per (test game at a prepared position of his, reply followed there): its belief and whether he
    played it."""
    his_nodes = side.plan.his_nodes()
    rows = []
    for game in games:
        board = chess.Board()
        for ply, move in enumerate(game.moves):
            node = his_nodes.get(board.epd()) if board.turn == side.color else None
            if node is not None:
                for uci, (belief, _) in node.children.items():
                    rows.append({"game": game.index, "ply": ply, "belief": belief, "hit": uci == move.uci()})
            board.push(move)
    return pd.DataFrame(rows, columns=["game", "ply", "belief", "hit"])


def ece(belief: np.ndarray, hit: np.ndarray, weight: np.ndarray | None = None, bins: int = ECE_BINS) -> float:
    """Expected calibration error: the weighted mean over equal-width bins of |mean belief - hit rate|.

    >>> round(ece(np.array([0.8, 0.8, 0.2, 0.2]), np.array([1, 0, 0, 0])), 3)
    0.25
    """
    weight = np.ones(len(belief)) if weight is None else weight
    if weight.sum() == 0:
        return float("nan")
    index = np.minimum((belief * bins).astype(int), bins - 1)
    total = np.bincount(index, weight, bins)
    gap = np.abs(np.bincount(index, weight * belief, bins) - np.bincount(index, weight * hit, bins))
    return float(gap.sum() / total.sum())


def _mean_ci(
    frame: pd.DataFrame, column: str, games: np.ndarray, resamples: int, seed: int
) -> tuple[float, float, float]:
    if frame.empty or len(games) == 0:
        return (float("nan"),) * 3
    values = frame[column].to_numpy(dtype=np.float64)
    draws = resample_games(games, resamples=resamples, seed=seed)
    low, high = interval(resampled_means(frame, draws, values)[:, 0])
    return float(np.nanmean(values)) if len(values) else float("nan"), low, high


def _ece_ci(steps: pd.DataFrame, games: np.ndarray, resamples: int, seed: int) -> tuple[float, float, float]:
    if steps.empty:
        return (float("nan"),) * 3
    belief, hit = steps["belief"].to_numpy(dtype=np.float64), steps["hit"].to_numpy(dtype=np.float64)
    draws = resample_games(games, resamples=resamples, seed=seed)
    column = np.searchsorted(draws.games, steps["game"].to_numpy())
    values = [ece(belief, hit, counts[column].astype(np.float64)) for counts in draws.counts]
    low, high = interval(np.array(values))
    return ece(belief, hit), low, high


def _checks(
    side: SideDossier, games: list[PlayerGame], scorer: MoveScorer, config: PrepareExperimentConfig
) -> tuple[pd.DataFrame, ...]:
    """The game, opening-move and step rows of ``games`` against one dossier side."""
    return (
        game_rows(side, games, scorer, config.checks.entry_ply),
        opening_rows(side, games, config.checks.opening_moves),
        step_rows(side, games),
    )


def _joined(frames: tuple[pd.DataFrame, ...]) -> pd.DataFrame:
    """One table of the rows the dossiers of several dates gave."""
    return pd.concat(frames, ignore_index=True)


def _suffixed(name: str, suffix: str) -> str:
    """``entered_ci`` with ``_dated`` -> ``entered_dated_ci``: an interval keeps its figure's name."""
    return f"{name[:-3]}{suffix}_ci" if name.endswith("_ci") else f"{name}{suffix}"


def _summary(
    color: str, games: pd.DataFrame, openings: pd.DataFrame, steps: pd.DataFrame, config: PrepareExperimentConfig
) -> dict:
    ids = games["game"].to_numpy()
    entered = games[games["entered"].astype(bool)]  # astype: an empty frame's object column would select columns
    beyond = openings[~openings["known"].astype(bool)]
    row: dict = {"color": color, "test_games": len(games), "entered_games": len(entered)}
    figures = {
        "entered": (games.assign(entered=games["entered"].astype(float)), "entered", ids),
        "entered_main": (games.assign(entered_main=games["entered_main"].astype(float)), "entered_main", ids),
        "dossier_top1": (openings, "dossier", ids),
        "counting_top1": (openings, "counting", ids),
        "dossier_top1_beyond": (beyond, "dossier", ids),
        "log_loss": (openings, "log_loss", ids),
        "exit_value": (entered, "exit_value", entered["game"].to_numpy()),
        "reference_value": (entered, "reference_value", entered["game"].to_numpy()),
        "gain": (entered, "gain", entered["game"].to_numpy()),
    }
    for name, (frame, column, used) in figures.items():
        kept = frame[frame["game"].isin(used)]
        value, low, high = _mean_ci(
            kept.astype({column: float}), column, np.unique(kept["game"]), config.checks.resamples, config.seed
        )
        row.update({name: value, f"{name}_ci": [low, high]})
    row["opening_positions"], row["beyond_positions"] = len(openings), len(beyond)
    step_games = np.unique(steps["game"]) if not steps.empty else ids
    value, low, high = _ece_ci(steps, step_games, config.checks.resamples, config.seed)
    row.update(steps=len(steps), mean_belief=float(steps["belief"].mean()) if len(steps) else float("nan"),
               hit_rate=float(steps["hit"].mean()) if len(steps) else float("nan"), ece=value, ece_ci=[low, high],
               **_calibrated(steps["belief"].to_numpy(dtype=np.float64), value, config.seed))
    return row


def _calibrated(belief: np.ndarray, measured: float, seed: int) -> dict[str, float]:
    """What calibrated beliefs would show on these steps: their median ECE, and the share of draws at least
    ``measured``."""
    if len(belief) == 0:
        return {"ece_floor": float("nan"), "ece_p": float("nan")}
    draws = calibrated_ece(belief, seed=seed)
    return {"ece_floor": float(np.median(draws)), "ece_p": float(np.mean(draws >= measured))}


def run(config: PrepareExperimentConfig) -> ExperimentResult:
    """Tables ``summary``, ``games``, ``openings`` and ``steps`` (and each ``_dated``: every test game against the
    dossier as it stood before it, :func:`dated_sides`); a payload with ``rows``; a summary and a plot."""
    if config.games not in GAMES:
        raise DataError(f"games must be one of {', '.join(GAMES)}, not {config.games!r}")
    held = load_games(config)
    built, checked = (held.training, held.test) if config.games == "test" else (held.fitting, held.development)
    if not built or not checked:
        kind = "development" if config.games == "dev" else "test"
        raise DataError(f"{held.player} has no {kind} games to check the dossier on")
    if config.model_cache is None:
        model = fit_default_model(built, held.player, seed=config.seed, quiet=config.quiet, runtime=config.runtime)
    else:
        model, _ = cached_default_model(
            built, held.player, config.model_cache, seed=config.seed, quiet=config.quiet, runtime=config.runtime
        )
    tree = config.dossier.repertoire
    settings = replace(
        config.dossier,
        player=held.player,
        repertoire=replace(tree, tree_plies=max(tree.tree_plies or 0, config.plies, 2 * config.checks.opening_moves)),
        runtime=config.runtime,
        quiet=config.quiet,
    )
    scorer = open_scorer(settings)
    try:
        dossier = prepare(built, model, settings, scorer=scorer, model_name="the default ranker")
        frames: dict[str, list[pd.DataFrame]] = {
            f"{name}{suffix}": [] for name in ("games", "openings", "steps") for suffix in ("", "_dated")
        }
        rows = []
        for side in dossier.sides:
            color = chess.COLOR_NAMES[side.color]
            tests = [game for game in checked if game.color == side.color]
            on_dates = progress(
                dated_sides(side, built, tests, scorer, settings),
                quiet=config.quiet,
                desc=f"{color}: dossiers on his dates",
                unit=" dates",
            )
            dated = [_checks(dated_side, group, scorer, config) for dated_side, group in on_dates]
            checks = {"": _checks(side, tests, scorer, config),
                      "_dated": tuple(map(_joined, zip(*dated))) if dated else _checks(side, [], scorer, config)}
            row = {"color": color}
            for suffix, (games, openings, steps) in checks.items():
                figures = _summary(color, games, openings, steps, config)
                row.update({_suffixed(name, suffix): value for name, value in figures.items() if name != "color"})
                for name, frame in (("games", games), ("openings", openings), ("steps", steps)):
                    frames[name + suffix].append(frame.assign(color=color))
            rows.append(row)
        judged_by = dossier.scorer
    finally:
        scorer.close()
        model.close()
    tables = {name: pd.concat(parts, ignore_index=True) for name, parts in frames.items()}
    summary = pd.DataFrame(rows)
    payload = {
        "experiment": NAME, "player": held.player, "judged_by": judged_by,
        "model": {**default_model_params(settings.runtime.engine), "plies": MODEL_PLIES}, "plies": config.plies,
        "games": config.games,
        "prior_strength": settings.beliefs.prior_strength, "population_strength": settings.beliefs.population_strength,
        "half_life_years": settings.beliefs.half_life_years,
        "entry_ply": config.checks.entry_ply, "opening_moves": config.checks.opening_moves, "seed": config.seed,
        "resamples": config.checks.resamples, "confidence": CONFIDENCE, "rows": rows,
    }
    return ExperimentResult(
        NAME,
        {"summary": summary.astype(object), **tables},
        payload,
        markdown(held.player, judged_by, rows, config, settings),
        {"gain": gain_figure(tables["games"])},
    )


def _cell(row: dict, name: str, kind: str = "percent") -> str:
    """A figure with its interval: ``percent``, ``pawns`` (from centipawns) or ``number``."""
    value, (low, high) = row[name], row[f"{name}_ci"]
    if value != value:
        return "-"
    if kind == "percent":
        return f"{value:.0%} ({low:.0%}-{high:.0%})"
    if kind == "number":
        return f"{value:.2f} ({low:.2f}-{high:.2f})"
    return f"{value / 100:+.2f} ({low / 100:+.2f} to {high / 100:+.2f})"


def _table_cells(row: dict, suffix: str) -> list[str]:
    """One colour's row of the summary table, from the figures named with ``suffix`` (``""`` or ``"_dated"``)."""
    def cell(name: str, kind: str = "percent") -> str:
        return _cell(row, name + suffix, kind)
    floor, share = row[f"ece_floor{suffix}"], row[f"ece_p{suffix}"]
    calibrated = "-" if floor != floor else f"{floor:.0%}, {share:.0%} as high"
    return [row["color"], str(row[f"test_games{suffix}"]), f"{row[f'entered_games{suffix}']} = {cell('entered')}",
            cell("entered_main"), cell("dossier_top1"), cell("counting_top1"),
            f"{cell('dossier_top1_beyond')} of {row[f'beyond_positions{suffix}']}",
            cell("log_loss", "number"), f"{cell('ece')} over {row[f'steps{suffix}']} (calibrated: {calibrated})",
            cell("exit_value", "pawns"), cell("reference_value", "pawns"), cell("gain", "pawns")]


def markdown(
    player: str, judged_by: str, rows: list[dict], config: PrepareExperimentConfig, settings: PrepareConfig
) -> str:
    """The summary table per colour, each figure with its interval."""
    built, checked = ("training", "test") if config.games == "test" else ("fitting", "development")
    head = ["his colour", f"{checked} games", "entered", "entered a main line", "dossier top-1", "counting top-1",
            "dossier top-1 beyond his games", "log loss", "ECE (steps)", "exit value", "reference", "gain"]
    tables = {}
    for suffix in ("", "_dated"):
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(_table_cells(row, suffix)) + " |" for row in rows]
        tables[suffix] = lines
    return "\n".join([
        f"# {player}: the dossier from his {built} games, on his {checked} games", "",
        f"Positions judged by {judged_by}; his replies by a move ranker fitted on the first {MODEL_PLIES} plies of "
        f"his {built} games ({default_model_params(config.runtime.engine)})"
        f"{belief_updates(settings)}. "
        f"Lines to ply {config.plies}; a game enters at ply {config.checks.entry_ply} or later; "
        f"opening moves: his first {config.checks.opening_moves}.",
        "", *tables[""], "",
        f"Each {checked} game against the dossier as it stood before it: from his {built} games surely played "
        "before its "
        "date (the same model and book; games of unknown year left out):", "", *tables["_dated"], "",
        f"Intervals: {CONFIDENCE:.0%} percentile bootstrap over {checked} games. Values in pawns for his opponent; "
        "gain: exit value "
        "less the scorer's main line at the same ply. Log loss: of the dossier's belief in his move, over his opening "
        "moves. ECE is over the steps of the lines (each followed reply's belief), whose products are the line "
        "probabilities; calibrated: the median ECE of beliefs that come true exactly as often as believed, "
        "on the same steps, "
        "and the share of such draws with an ECE at least the measured one.",
    ])


def gain_figure(games: pd.DataFrame) -> Figure:
    """Per entered test game: value at the exit against the reference at the same ply, one colour per side."""
    fig = Figure(figsize=(5.5, 5))
    ax = fig.subplots()
    entered = games[games["entered"]]
    for color, own in entered.groupby("color"):
        ax.scatter(own["reference_value"] / 100, own["exit_value"] / 100, s=14, label=f"he plays {color}")
    limits = (-3, 3)
    ax.plot(limits, limits, color="0.5", linestyle="--")
    ax.set_xlim(limits)
    ax.set_ylim(limits)
    ax.set_xlabel("engine main line at the same ply (pawns, for us)")
    ax.set_ylabel("value where the game left the prepared tree (pawns, for us)")
    if entered.empty:
        ax.text(0, 0, "no test game entered a prepared line", ha="center", va="center")
    else:
        ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
