"""The dossier against one player: his repertoire, his costly habits and lines prepared for him, per colour.

:func:`prepare` is a function of his games, a model of him and a frozen
:class:`PrepareConfig`; positions are judged by a UCI engine when the config's runtime names one
(its analyses through the on-disk cache, so an interrupted run loses nothing analysed),
else by the toolkit's own search (:mod:`iam.prepare.scoring`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import chess

from iam.errors import DataError, ParameterError
from iam.games.pgn import PlayerGame, check_player_games
from iam.prepare.beliefs import HisLineBeliefs, model_alone
from iam.prepare.habits import Habit, candidates, find_habits
from iam.prepare.lines import LineSettings, Plan, prepare_lines
from iam.prepare.population import POPULATION_STRENGTH, BookBeliefs
from iam.prepare.scoring import (
    DEFAULT_JUDGE_DEPTH,
    MAX_JUDGE_DEPTH,
    EngineScorer,
    MoveScorer,
    SearchScorer,
    decided,
    position_value,
    score_all,
    value_all,
)
from iam.prepare.tree import HALF_LIFE_YEARS, PRIOR_STRENGTH, Predictor, Repertoire, build_repertoire
from iam.priors.population import bundled_prior
from iam.progress import progress
from iam.ranker import DEFAULT_FAMILIES, MoveRanker
from iam.runtime import MAX_ENGINE_DEPTH, Runtime

__all__ = [
    "PrepareConfig", "RepertoireSettings", "BeliefSettings", "HabitSettings", "ScoringSettings",
    "SideDossier", "Dossier", "prepare", "build_side", "open_scorer", "fit_default_model",
    "default_model_params", "default_model_runtime", "DEFAULT_MODEL", "GLANCE_FAMILIES", "MODEL_PLIES", "COLORS",
    "REPLY_KEPT", "his_replies", "judges_habits", "judged_values",
]

COLORS = {"white": chess.WHITE, "black": chess.BLACK}


@dataclass(frozen=True)
class RepertoireSettings:
    """How far his repertoire tree reaches and which moves it shows."""

    tree_plies: int | None = None
    """Plies his repertoire tree reaches (None: as far as the lines)."""
    branch_games: int = 2
    """A move of his repertoire is shown when played in this many games."""
    predicted_belief: float = 0.2
    """Where his games run out, the model's moves of at least this belief continue the tree."""


@dataclass(frozen=True)
class BeliefSettings:
    """How his beliefs are formed: the model's alone, updated by the population's book and then by his games (each
    counted once, recent ones weighing more, his sidelines floored: :mod:`iam.prepare.beliefs`)."""

    prior_strength: float | None = PRIOR_STRENGTH
    """His beliefs where his games went: the belief before them (the model's alone and the book's), as a prior
    this many games strong, updated by his games, his sidelines floored
    (:class:`~iam.prepare.beliefs.HisLineBeliefs`); None: no update."""
    population_strength: float | None = POPULATION_STRENGTH
    """Before his games, the model's beliefs are updated by what other masters chose in the position,
    the model weighing this many games (:class:`~iam.prepare.population.BookBeliefs`); None: not."""
    half_life_years: float = HALF_LIFE_YEARS
    """Recency weight of a game: 0.5 ** (years before his latest game / half-life)."""


@dataclass(frozen=True)
class HabitSettings:
    """Which of his usual moves are costly habits."""

    habit_games: int = 2
    habit_belief: float = 0.3
    habit_loss: int = 50
    """Centipawns his usual move must lose against the best one to be a costly habit."""


@dataclass(frozen=True)
class ScoringSettings:
    """How positions are judged: the engine's depth and lines, or the toolkit's own search without an engine."""

    engine_depth: int = 12
    engine_lines: int | None = 3
    """The engine scores its best this many moves of each position (None: every legal move)."""
    search_depth: int = DEFAULT_JUDGE_DEPTH
    """Depth of the toolkit's own search when there is no engine (:data:`~iam.prepare.scoring.DEFAULT_JUDGE_DEPTH`,
    chosen by its agreement with a strong engine)."""


@dataclass(frozen=True)
class PrepareConfig:
    """Everything a dossier is built with."""

    player: str
    colors: tuple[str, ...] = ("white", "black")
    """His colours to prepare against ("white", "black")."""
    lines: LineSettings = LineSettings()
    repertoire: RepertoireSettings = RepertoireSettings()
    min_games: int = 1
    """Fewer games of his with a colour than this is an error."""
    beliefs: BeliefSettings = BeliefSettings()
    habits: HabitSettings = HabitSettings()
    scoring: ScoringSettings = ScoringSettings()
    runtime: Runtime = Runtime()
    """The engine (with its cache) judging the positions, and its ``jobs``: engine processes analysing positions
    at once (the scores are the same for any number)."""
    quiet: bool = False

    def __post_init__(self) -> None:
        unknown = [color for color in self.colors if color not in COLORS]
        if unknown or not self.colors:
            raise DataError(f"colours are white and black, not {', '.join(unknown) or 'none'}")
        counts = (
            ("min_games", self.min_games),
            ("branch_games", self.repertoire.branch_games),
            ("habit_games", self.habits.habit_games),
        )
        for name, value in counts:
            if value < 1:
                raise ParameterError(name, value, "at least 1")
        if self.habits.habit_loss < 0:  # below 0 every usual move, the best included, would be a costly habit
            raise ParameterError("habit_loss", self.habits.habit_loss, "at least 0")
        self._check_beliefs()
        scoring = self.scoring
        for name, value, deepest in (
            ("engine_depth", scoring.engine_depth, MAX_ENGINE_DEPTH),
            ("search_depth", scoring.search_depth, MAX_JUDGE_DEPTH),
        ):
            if not 1 <= value <= deepest:
                reason = "each ply costs a multiple of the one before"
                raise ParameterError(name, value, f"from 1 to {deepest}", reason=reason)
        if scoring.engine_lines is not None and scoring.engine_lines < 1:
            raise DataError("engine_lines must be at least 1 (None scores every legal move)")

    def _check_beliefs(self) -> None:
        """The half-life and the strengths of the prior and of the population."""
        beliefs = self.beliefs
        if not beliefs.half_life_years > 0:
            raise ParameterError("half_life_years", beliefs.half_life_years, "a positive number of years")
        if beliefs.prior_strength is not None and not beliefs.prior_strength > 0:
            raise DataError(f"the prior's strength must be positive, not {beliefs.prior_strength}")
        if beliefs.population_strength is not None and not beliefs.population_strength > 0:
            raise DataError(f"the population's strength must be positive, not {beliefs.population_strength}")


@dataclass
class SideDossier:
    """The dossier against him with one colour."""

    color: chess.Color
    games: int
    repertoire: Repertoire
    plan: Plan
    habits: list[Habit]
    beliefs: Predictor
    """His beliefs the lines and habits were built with."""
    replies: dict[str, dict[str, float]] = field(default_factory=dict)
    """His beliefs (UCI move -> belief, at least :data:`REPLY_KEPT`) at each of his positions on the prepared lines
    where replies are followed, by EPD: what the exports and the drill read."""
    values: dict[str, float] = field(default_factory=dict)
    """The judge's value, centipawns for us, of each position his repertoire shows (reached in ``branch_games`` of
    his games, or by a move the model adds where they run out) and of each position of the prepared tree, by EPD."""
    first_move_agreement: tuple[int, int] | None = None
    """Of the bundled masters with his colour, for how many the judge's recommended first move was a strong
    engine's, and of how many (None: not measured, or the judge is the engine)."""
    habits_judged: bool = True
    """False when the judge cannot be trusted with his costly habits (:func:`judges_habits`): none were looked
    for."""


@dataclass
class Dossier:
    """His repertoire, habits and prepared lines, per colour, and what judged the positions."""

    player: str
    scorer: str
    model: str
    config: PrepareConfig
    sides: list[SideDossier] = field(default_factory=list)


def open_scorer(config: PrepareConfig) -> EngineScorer | SearchScorer:
    """The engine the config's runtime names (through its cache), else the toolkit's own search."""
    runtime, scoring = config.runtime, config.scoring
    if runtime.engine:
        return EngineScorer(
            runtime.engine,
            depth=scoring.engine_depth,
            cache=runtime.engine_cache,
            lines=scoring.engine_lines,
            engines=runtime.jobs,
        )
    return SearchScorer(scoring.search_depth)


def prepare(
    games: Sequence[PlayerGame],
    model: Predictor,
    config: PrepareConfig,
    *,
    scorer: MoveScorer | None = None,
    model_name: str = "model",
) -> Dossier:
    """The dossier against ``config.player`` from ``games`` (his, either colour); DataError when a colour has too few.

    ``scorer`` replaces the one the config names (its owner closes it). The model's beliefs (a move ranker's
    without its own count of his lines: :func:`~iam.prepare.beliefs.model_alone`) are updated by the population
    book (unless ``config.beliefs.population_strength`` is None), then by his games, so they count once.
    """
    games = check_player_games(games, "prepare")
    wanted = [COLORS[name] for name in config.colors]
    for color in wanted:
        count = sum(game.color == color for game in games)
        name = chess.COLOR_NAMES[color]
        if count == 0:
            raise DataError(f"{config.player} has no games with {name} in the file")
        if count < config.min_games:
            raise ParameterError(
                "min_games",
                config.min_games,
                f"at most {count}",
                reason=f"{config.player} has {count} games with {name}",
            )
    opened: EngineScorer | SearchScorer | None = None
    if scorer is None:
        scorer = opened = open_scorer(config)
    try:
        dossier = Dossier(config.player, scorer.description, model_name, config)
        model = model_alone(model)
        strength = config.beliefs.population_strength
        if strength is not None:
            model = BookBeliefs(model, bundled_prior().book.without(config.player), strength)
        for color in wanted:
            dossier.sides.append(build_side(games, color, model, scorer, config, habits=judges_habits(scorer)))
        return dossier
    finally:
        if opened is not None:
            opened.close()


def build_side(
    games: Sequence[PlayerGame],
    color: chess.Color,
    model: Predictor,
    scorer: MoveScorer,
    config: PrepareConfig,
    *,
    habits: bool = True,
    values: bool = True,
) -> SideDossier:
    """The dossier against him with ``color`` from ``games``: his tree, his beliefs, the prepared lines, (unless
    ``habits`` is false) his costly habits and (unless ``values`` is false) the judge's value of every position his
    repertoire shows. ``model`` is the belief his games update (the book's already in it)."""
    name = chess.COLOR_NAMES[color]
    tree, strength, habit = config.repertoire, config.beliefs.prior_strength, config.habits
    repertoire = build_repertoire(
        games, color, plies=tree.tree_plies or config.lines.plies, half_life_years=config.beliefs.half_life_years,
        branch_games=tree.branch_games, predictor=model, predicted_belief=tree.predicted_belief,
    )
    beliefs = model if strength is None else HisLineBeliefs(repertoire, model, strength)
    if habits:
        known = candidates(repertoire, None, beliefs, habit_games=habit.habit_games)
        bar = progress(range(len(known)), quiet=config.quiet, desc=f"{name}: scoring his positions", unit=" positions")
        score_all(scorer, [chess.Board(c.fen) for c in known], progress=lambda n: _advance(bar, n))
    bar = progress(iter(int, 1), quiet=config.quiet, desc=f"{name}: preparing lines", unit=" nodes")
    plan = prepare_lines(
        chess.Board(), color, beliefs, scorer, config.lines, tick=lambda: next(bar), known=repertoire.played_moves
    )
    found: list[Habit] = []
    if habits:
        judged = candidates(repertoire, plan, beliefs, habit_games=habit.habit_games, habit_belief=habit.habit_belief)
        found = find_habits(judged, scorer, min_loss=habit.habit_loss)
    return SideDossier(
        color, repertoire.games, repertoire, plan, found, beliefs, his_replies(plan, beliefs),
        judged_values(repertoire, plan, scorer, tick=_bar(config, f"{name}: judging his positions")) if values else {},
        getattr(scorer, "first_move_agreement", {}).get(color), habits,
    )


def judges_habits(scorer: MoveScorer) -> bool:
    """Whether ``scorer`` is trusted with his costly habits: an engine is; the own search is not
    (:attr:`SearchScorer.judges_habits <iam.prepare.scoring.SearchScorer.judges_habits>`, measured)."""
    return bool(getattr(scorer, "judges_habits", True))


def _bar(config: PrepareConfig, desc: str) -> Callable[[int], None]:
    """A progress callback (positions done) for one phase, said on stderr unless the config is quiet."""
    bar = progress(iter(int, 1), quiet=config.quiet, desc=desc, unit=" positions")
    return lambda count: _advance(bar, count)


def judged_values(
    repertoire: Repertoire, plan: Plan, scorer: MoveScorer, *, tick: Callable[[int], None] | None = None
) -> dict[str, float]:
    """The scorer's value for us (:attr:`SideDossier.values`) of the positions his repertoire shows and of the
    prepared tree's, by EPD (the repertoire's scored in one batch; the prepared tree's read from it)."""
    shown = {
        node.epd: node.fen for node in repertoire.nodes.values() if node.games >= repertoire.branch_games
    }
    for node in repertoire.nodes.values():
        for edge in node.edges.values():
            if edge.predicted and edge.child not in shown:
                after = chess.Board(node.fen)
                after.push_uci(edge.uci)
                shown[edge.child] = after.fen()
    planned = plan.nodes_on_lines()
    boards = [chess.Board(fen) for epd, fen in shown.items() if epd not in planned]
    value_all(scorer, [board for board in boards if not decided(board)], progress=tick)
    us = not plan.his_color
    values = {board.epd(): float(_for(us, board, position_value(scorer, board))) for board in boards}
    values.update({epd: node.static for epd, node in planned.items()})
    return values


def _for(us: chess.Color, board: chess.Board, value: int) -> int:
    return value if board.turn == us else -value


REPLY_KEPT = 0.01
"""His beliefs kept per position of his on the prepared lines (:attr:`SideDossier.replies`): moves of at least
this belief."""


def his_replies(plan: Plan, beliefs: Predictor) -> dict[str, dict[str, float]]:
    """His beliefs of at least :data:`REPLY_KEPT` at each of his positions on ``plan``'s lines with replies followed
    (the beliefs the lines were grown with, so no new prediction is asked for where they are kept)."""
    found = {}
    for epd, node in plan.his_nodes().items():
        believed = beliefs.predict_proba(node.board)
        found[epd] = {move.uci(): p for move, p in believed.items() if p >= REPLY_KEPT}
    return found


def _advance(bar, count: int) -> None:
    for _ in range(count):
        next(bar, None)


DEFAULT_MODEL = {"search_depth": 1, "max_positions": 1500}
"""The move ranker fitted when no model is given: its default evidence and population prior,
with the cheapest search (depth 1) and a sample of his positions in his openings."""
MODEL_PLIES = 24
"""The default model learns from the first this many plies of his games: the openings the dossier
asks it about. (Chosen on development games of two bundled masters; see docs/results/prepare.md.)"""


GLANCE_FAMILIES = ("glance",)
"""With an engine, the default model also reads its depth-1 glance at every move (the ``glance``
family): how a move looks at first sight. (Chosen on development games of two bundled masters by
the log loss of his first ten moves; see "The engine's glance in the model" in docs/results/prepare.md.)"""


def default_model_params(engine: str | None = None) -> dict:
    """The default move ranker's parameters (:data:`DEFAULT_MODEL`), with :data:`GLANCE_FAMILIES` with an engine."""
    if not engine:
        return dict(DEFAULT_MODEL)
    return {**DEFAULT_MODEL, "families": (*DEFAULT_FAMILIES, *GLANCE_FAMILIES)}


def default_model_runtime(runtime: Runtime) -> Runtime:
    """What the default model runs on: ``runtime``'s engine (its analyses through its cache) when there is one,
    its processes and nothing else."""
    engine = runtime.engine or None
    return Runtime(jobs=runtime.jobs, engine=engine, engine_cache=runtime.engine_cache if engine else None)


def fit_default_model(
    games: Sequence[PlayerGame], player: str, *, seed: int = 0, quiet: bool = False, runtime: Runtime = Runtime()
) -> MoveRanker:
    """The default move ranker (:func:`default_model_params`) fitted on the openings of ``games``
    (:data:`MODEL_PLIES`), with a progress bar; with an engine in ``runtime`` it reads the engine's glance
    (:data:`GLANCE_FAMILIES`), through the runtime's engine cache."""
    openings = [replace(game, moves=game.moves[:MODEL_PLIES]) for game in games]
    ranker = MoveRanker(**default_model_params(runtime.engine), random_state=seed)
    return ranker.fit(
        openings,
        player=player,
        runtime=default_model_runtime(runtime),
        progress=lambda tasks, total: progress(
            tasks, quiet=quiet, total=total, desc="fitting the model", unit=" parts"
        ),
    )
