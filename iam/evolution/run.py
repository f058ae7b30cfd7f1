"""A Kendall-Whitwell evolution of the chess core's evaluation, its demes run where the runtime says.

An individual is a genome (:attr:`Mutation.genome`) of the compiled evaluation's weights
(:class:`search.chess.pst.PieceValues`): ``pieces``, five piece values (pawn, knight,
bishop, rook, queen, centipawns, the same in the middlegame and the endgame; the square
bonuses the hand-set ones); ``squares``, the twelve scales of the square bonuses (each
piece's middlegame and endgame table times one number, :data:`search.chess.pst.SQUARE_NAMES`;
the material the hand-set one); ``both``, the five values then the twelve scales. Each
generation pairs the individuals within their demes, or across them every
``migrate_every`` generations (:mod:`search.evolution.demes`); each deme's pairs are one
task, run by :func:`iam.runtime.map_in_order` (serially, in local processes, or on a
Dask cluster's workers, which retry a task whose worker is lost: it costs only that
deme's games of the generation). A pair plays two games from one opening at a fixed
node budget (:func:`search.chess.selfplay.play_pair`), and Kendall and Whitwell's rule
(:mod:`search.evolution.kendall_whitwell`) makes the next generation: within a deme
with the deme's own spread ``s(y)``, across demes with the whole population's.

Generation 0 is the random start: each value uniform in ``initial``, each scale uniform
in :attr:`Mutation.square_initial` (ranges stated with every result). Generation ``g``'s
randomness is ``default_rng([seed, g])`` (with demes that do not wait for each other, see
:func:`_asynchronous`); the games are deterministic (a node budget, fresh searches), so a
run is a function of its config, wherever it runs.

Files in the output folder: ``config.json`` (the run's settings; a resumed run must
have the same), ``generation_NNNN.json`` per finished generation (its population and its
pairs' games, written atomically once all its games are in), and, rewritten after each
generation from those files, ``population.csv`` (one row per individual per
generation), ``pairs.csv`` (one row per pair) and ``weights.png`` (each value's
population mean over the generations, with the standard values). An interrupted run
resumed with ``resume=True`` goes on from its last finished generation.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import chess
import numpy as np
import pandas as pd

from iam.errors import IAMError, ParameterError
from iam.evolution.pool import TaskPool
from iam.runtime import Runtime, map_in_order
from search.chess.pst import PIECE_NAMES, SQUARE_NAMES, PieceValues
from search.chess.selfplay import PairGames, play_pair
from search.evolution import apply_results, deme_pairs, deme_slices, is_migration, random_pairs
from search.evolution.kendall_whitwell import Factors, PairOutcome

__all__ = [
    "EvolutionConfig", "EvolutionError", "GENOMES", "GenerationReport", "Mutation", "evolve_piece_values",
    "genome_names", "genome_values", "load_generations",
]

FORMAT = "iam-evolution"
_VERSION = 1
STANDARD = (100, 320, 330, 500, 900)
"""The standard piece values the evolved ones are compared with (the core's middlegame values)."""
GENOMES = ("pieces", "squares", "both")
"""What an individual is: the piece values, the square bonuses' scales, or both (see the module docstring)."""


def genome_names(genome: str) -> tuple[str, ...]:
    """The weights of a genome, in their order (ValueError for a genome not in :data:`GENOMES`)."""
    names = {"pieces": PIECE_NAMES, "squares": SQUARE_NAMES, "both": PIECE_NAMES + SQUARE_NAMES}
    if genome not in names:
        raise ValueError(f"the genome is one of {', '.join(GENOMES)}, not {genome!r}")
    return names[genome]


def genome_values(genome: str, weights: Sequence[float]) -> PieceValues:
    """An individual's weights as the evaluation's values: the hand-set ones for what the genome leaves out."""
    weights = [float(w) for w in weights]
    if len(weights) != len(genome_names(genome)):
        raise ValueError(f"a {genome} genome has {len(genome_names(genome))} weights, got {len(weights)}")
    if genome == "pieces":
        return PieceValues.uniform(weights)
    if genome == "squares":
        return PieceValues.standard().with_squares(weights)
    return PieceValues.uniform(weights[:5]).with_squares(weights[5:])


class EvolutionError(IAMError):
    """An output folder that holds another run, or a damaged one."""


def _check(ok: bool, parameter: str, value, allowed: str) -> None:
    if not ok:
        raise ParameterError(parameter, value, allowed)


@dataclass(frozen=True)
class Mutation:
    """What the rule changes (the genome) and its limits: the ranges, the floor on its spread ``s(y)``, a pawn
    held fixed."""

    bounds: tuple[float, float] = (1.0, 3000.0)
    """The values are clipped to this range after a mutation (the search's mate scores stay far above)."""
    spread_floor: float = 0.1
    """A floor on the rule's ``s(y)``, a share of the value's population mean (0: none; see
    :func:`search.evolution.kendall_whitwell.spreads`). The rule multiplies every change by ``s(y)``: without
    a floor a population that agrees never moves again; with 0.1 a loser's replacement still lands within
    10% of its winner, and two draws move each value by up to 2.5%."""
    pawn: float | None = None
    """The pawn's value held fixed (None: it evolves too). The square bonuses stay fixed and are written in
    centipawns, a hundredth of a pawn; held at 100, the pawn stays the unit they are written in."""
    genome: str = "pieces"
    """What an individual is: ``pieces``, ``squares`` or ``both`` (the module docstring)."""
    square_bounds: tuple[float, float] = (0.0, 4.0)
    """The square bonuses' scales are clipped to this range after a mutation."""
    square_initial: tuple[float, float] = (0.0, 2.0)
    """The range each scale of the random start is drawn from (uniform; 1 is the hand-set tables)."""

    def __post_init__(self) -> None:
        _check(self.genome in GENOMES, "genome", self.genome, "one of " + ", ".join(GENOMES))
        _check(0 <= self.square_bounds[0] < self.square_bounds[1] <= 100, "square_bounds", self.square_bounds,
               "a range within [0, 100]")
        _check(self.square_bounds[0] <= self.square_initial[0] < self.square_initial[1] <= self.square_bounds[1],
               "square_initial", self.square_initial, "a range within the square bounds, low first")
        _check(self.pawn is None or self.genome != "squares", "pawn", self.pawn,
               "unset with the squares genome (its material is the hand-set one)")
        _check(0 < self.bounds[0] < self.bounds[1] <= 10_000, "bounds", self.bounds, "a range within (0, 10000]")
        _check(0 <= self.spread_floor <= 1, "spread_floor", self.spread_floor, "a share from 0 to 1")
        _check(self.pawn is None or self.bounds[0] <= self.pawn <= self.bounds[1], "pawn", self.pawn,
               f"a value within the bounds {self.bounds[0]:g} to {self.bounds[1]:g}")


@dataclass(frozen=True)
class EvolutionConfig:
    """An evolution's settings (what it computes; where it runs is the runtime's)."""

    population: int = 16
    demes: int = 2
    generations: int = 10
    """Generations to reach (counting from the random start, generation 0)."""
    nodes: int = 2000
    """Node budget of every move's search (main and quiescence nodes)."""
    max_plies: int = 200
    """A game still going after this many plies is scored a draw."""
    migrate_every: int = 4
    """Every this many generations the demes pair across their borders (0: never)."""
    seed: int = 0
    initial: tuple[float, float] = (50.0, 1000.0)
    """The range each value of the random start is drawn from (uniform)."""
    openings: tuple[str, ...] = (chess.STARTING_FEN,)
    """FENs the pairs start from, in turn."""
    mutation: Mutation = Mutation()
    """What the rule may change, and by how much at least."""

    def __post_init__(self) -> None:
        _check(self.population >= 2, "population", self.population, "at least 2")
        _check(self.demes >= 1 and self.population >= 2 * self.demes, "demes", self.demes,
               f"from 1 to {self.population // 2} (two individuals a deme at least)")
        _check(self.generations >= 0, "generations", self.generations, "at least 0")
        _check(self.nodes >= 1, "nodes", self.nodes, "at least 1")
        _check(self.max_plies >= 1, "max_plies", self.max_plies, "at least 1")
        _check(self.migrate_every >= 0, "migrate_every", self.migrate_every, "at least 0")
        _check(0 < self.initial[0] < self.initial[1], "initial", self.initial, "a range of positive values, low first")
        _check(len(self.openings) >= 1, "openings", self.openings, "at least one position")


@dataclass(frozen=True)
class GenerationReport:
    """A finished generation: its number, population, pairs' rows and the seconds its games took."""

    generation: int
    population: np.ndarray
    pairs: list[dict]
    seconds: float
    resumed: bool = False


def evolve_piece_values(
    config: EvolutionConfig, out: str | Path, runtime: Runtime = Runtime(), *, resume: bool = False,
    on_generation: Callable[[GenerationReport], None] | None = None, asynchronous: bool = False,
) -> pd.DataFrame:
    """Run (or resume) the evolution into the folder ``out``; the population table of every generation.

    Without ``resume`` the folder must hold no earlier run; with it, a run of the same
    config goes on from its last finished generation (a folder with no run starts one).
    ``asynchronous``: each deme goes on as soon as its own games are in, instead of every
    deme waiting for the whole generation (:func:`_asynchronous`; the demes draw their
    own random numbers, so the run differs from the lockstep one of the same seed, but is
    as reproducible: a function of its config, wherever and in whatever order its games
    are played). It is one of the run's settings: a resumed run must have the same.
    """
    folder = Path(out)
    last = _prepare(folder, config, resume, asynchronous)
    if last is None:
        population = _held(config, _random_start(config))
        _write_generation(folder, 0, population, [], 0.0, genome_names(config.mutation.genome))
        last = 0
        if on_generation is not None:
            on_generation(GenerationReport(0, population, [], 0.0))
    else:
        population = _read_generation(folder, last, genome_names(config.mutation.genome))[0]
        if on_generation is not None:
            on_generation(GenerationReport(last, population, [], 0.0, resumed=True))
    if asynchronous and last < config.generations:
        _asynchronous(config, folder, population, last, runtime, on_generation)
        return _write_tables(folder)
    for generation in range(last + 1, config.generations + 1):
        started = time.perf_counter()
        population, rows = _generation(config, population, generation, runtime)
        seconds = time.perf_counter() - started
        _write_generation(folder, generation, population, rows, seconds, genome_names(config.mutation.genome))
        _write_tables(folder)
        if on_generation is not None:
            on_generation(GenerationReport(generation, population, rows, seconds))
    return _write_tables(folder)


def load_generations(out: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The population table (a column per weight of the run's genome) and the pairs table of the finished
    generations in ``out``."""
    folder = Path(out)
    populations, pairs = [], []
    names: tuple[str, ...] = PIECE_NAMES
    for generation in _finished(folder):
        population, rows, names = _read_generation(folder, generation)
        for index, values in enumerate(population):
            populations.append({"generation": generation, "individual": index, **dict(zip(names, values))})
        pairs.extend(rows)
    columns = ["generation", "individual", *names]
    return pd.DataFrame(populations, columns=columns), pd.DataFrame(pairs)


def _random_start(config: EvolutionConfig) -> np.ndarray:
    """Generation 0: every weight uniform in its range, from ``default_rng([seed, 0])``."""
    rng = np.random.default_rng([config.seed, 0])
    genome = config.mutation.genome
    if genome == "pieces":
        return rng.uniform(*config.initial, size=(config.population, len(PIECE_NAMES)))
    low, high = _ranges(config, config.initial, config.mutation.square_initial)
    return rng.uniform(low, high, size=(config.population, len(low)))


def _ranges(config: EvolutionConfig, values: tuple[float, float], scales: tuple[float, float]):
    """Each weight's low and high ends (arrays): ``values`` for a piece value, ``scales`` for a square scale."""
    names = genome_names(config.mutation.genome)
    low = np.array([values[0] if name in PIECE_NAMES else scales[0] for name in names])
    high = np.array([values[1] if name in PIECE_NAMES else scales[1] for name in names])
    return low, high


# ---- one generation ----------------------------------------------------------------------------


def _generation(
    config: EvolutionConfig, population: np.ndarray, generation: int, runtime: Runtime | TaskPool
) -> tuple[np.ndarray, list[dict]]:
    """The next population and its pairs' rows: every deme's games played where the runtime (or the pool) says."""
    rng = np.random.default_rng([config.seed, generation])
    groups = deme_pairs(config.population, config.demes, generation - 1, rng, every=config.migrate_every)
    starts = _openings(config, generation, groups)
    tasks = [_task(config, population, pairs, fens) for pairs, fens in zip(groups, starts)]
    if isinstance(runtime, TaskPool):
        for deme, task in enumerate(tasks):
            runtime.submit(deme, _play_group, *task)
        finished = dict(runtime.next() for _ in tasks)
        played = [finished[deme] for deme in range(len(tasks))]
    else:
        played = list(map_in_order(_play_group, tasks, runtime))
    migration = is_migration(generation - 1, config.demes, config.migrate_every)
    factors, floor = Factors(), config.mutation.spread_floor
    bounds = _ranges(config, config.mutation.bounds, config.mutation.square_bounds)
    new = population.copy()
    outcomes: list[PairOutcome] = []
    if migration:
        pairs = [pair for group in groups for pair in group]
        results = [games.scores for group in played for games in group]
        new, outcomes = apply_results(population, pairs, results, rng, factors=factors, bounds=bounds, floor=floor)
    else:
        for members, pairs, group in zip(deme_slices(config.population, config.demes), groups, played):
            sub, found = _deme_step(config, population[list(members)], members, pairs, group, rng)
            new[list(members)] = sub
            outcomes.extend(found)
    rows = _pair_rows(generation, config, groups, starts, played, outcomes, migration)
    return _held(config, new), rows


def _task(config: EvolutionConfig, population: np.ndarray, pairs: list[tuple[int, int]], fens: list[str]) -> tuple:
    """The arguments of :func:`_play_group` for these pairs of ``population`` (plain values)."""
    return ([population[a].tolist() for a, _ in pairs], [population[b].tolist() for _, b in pairs], fens,
            config.nodes, config.max_plies, config.mutation.genome)


def _deme_step(
    config: EvolutionConfig, sub: np.ndarray, members: Sequence[int], pairs: list[tuple[int, int]],
    played: list[PairGames], rng: np.random.Generator,
) -> tuple[np.ndarray, list[PairOutcome]]:
    """One deme's next population (``sub``: its members' rows) after its pairs played, with its own spread."""
    local = {index: at for at, index in enumerate(members)}
    bounds = _ranges(config, config.mutation.bounds, config.mutation.square_bounds)
    new, found = apply_results(
        sub, [(local[a], local[b]) for a, b in pairs], [games.scores for games in played], rng,
        factors=Factors(), bounds=bounds, floor=config.mutation.spread_floor,
    )
    return new, _renumbered(found, list(members))


# ---- demes that do not wait for each other ---------------------------------------------------------


def _asynchronous(
    config: EvolutionConfig, folder: Path, population: np.ndarray, last: int, runtime: Runtime,
    on_generation: Callable[[GenerationReport], None] | None,
) -> None:
    """Generations ``last + 1`` to ``config.generations``, each deme going on as soon as its own games are in.

    Between two migrations a deme's generation depends on its own population alone, with
    its own random numbers (``default_rng([seed, generation, 1 + deme])``), so the demes
    need not wait for each other: each deme's next games are handed out the moment its
    last ones come back. A migration generation waits for every deme (its pairs cross the
    demes and its spread is the whole population's) and is played as in the lockstep
    mode. A generation is written once every deme has finished it, in order.
    """
    with TaskPool(runtime) as pool:
        demes = _Demes(config, folder, population, last, pool)
        for deme in range(config.demes):
            demes.submit(deme)
        while demes.written < config.generations:
            if len(pool):  # a deme behind the others always has its games out
                demes.take(*pool.next())
            else:  # every deme waits at a migration: it is played by all of them together
                demes.migrate()
            for report in demes.flush():
                if on_generation is not None:
                    on_generation(report)


class _Demes:
    """The state of :func:`_asynchronous`: each deme's last finished generation and population, the
    generations finished by some demes but not yet written."""

    def __init__(self, config: EvolutionConfig, folder: Path, population: np.ndarray, last: int,
                 pool: TaskPool) -> None:
        self.config, self.folder, self.pool = config, folder, pool
        self.slices = deme_slices(config.population, config.demes)
        self.names = genome_names(config.mutation.genome)
        self.at = [last] * config.demes
        self.current = [population[list(members)].copy() for members in self.slices]
        self.done: dict[int, dict[int, tuple[np.ndarray, list[dict]]]] = {}  # generation -> deme -> rows
        self.written, self.clock = last, time.perf_counter()

    def ordinary(self, generation: int) -> bool:
        """Whether a deme plays ``generation`` alone (not beyond the last, not a migration)."""
        config = self.config
        return generation <= config.generations and not is_migration(generation - 1, config.demes,
                                                                       config.migrate_every)

    def submit(self, deme: int) -> None:
        """Hand out the deme's next generation's games, if it plays that generation alone."""
        config, generation, members = self.config, self.at[deme] + 1, self.slices[deme]
        if not self.ordinary(generation):
            return
        rng = np.random.default_rng([config.seed, generation, 1 + deme])
        pairs = random_pairs(members, rng)
        first = (generation - 1) * (config.population // 2) + sum(len(m) // 2 for m in self.slices[:deme])
        fens = [config.openings[(first + i) % len(config.openings)] for i in range(len(pairs))]
        whole = np.zeros((config.population, len(self.names)))
        whole[list(members)] = self.current[deme]
        self.pool.submit((deme, generation, rng, pairs, fens), _play_group, *_task(config, whole, pairs, fens))

    def take(self, tag, played: list[PairGames]) -> None:
        """A deme's games are in: its next population, and its next games handed out."""
        deme, generation, rng, pairs, fens = tag
        sub, outcomes = _deme_step(self.config, self.current[deme], self.slices[deme], pairs, played, rng)
        rows = _pair_rows(generation, self.config, [pairs], [fens], [played], outcomes, False)
        for row in rows:
            row["deme"] = deme
        self.current[deme], self.at[deme] = _held(self.config, sub), generation
        self.done.setdefault(generation, {})[deme] = (self.current[deme], rows)
        self.submit(deme)

    def migrate(self) -> None:
        """The migration generation every deme waits at, played as the lockstep mode plays it."""
        generation = self.written + 1
        assert not self.ordinary(generation) and set(self.at) == {self.written}  # nothing else is left to play
        new, rows = _generation(self.config, np.concatenate(self.current), generation, self.pool)
        self.current = [new[list(members)].copy() for members in self.slices]
        self.at = [generation] * self.config.demes
        self.done[generation] = {d: (self.current[d], rows if d == 0 else []) for d in range(self.config.demes)}
        for deme in range(self.config.demes):
            self.submit(deme)

    def flush(self) -> list[GenerationReport]:
        """Write the generations every deme has finished, in order; their reports."""
        reports = []
        while len(self.done.get(self.written + 1, ())) == self.config.demes:
            generation = self.written + 1
            parts = self.done.pop(generation)
            population = np.concatenate([parts[d][0] for d in sorted(parts)])
            rows = [row for d in sorted(parts) for row in parts[d][1]]
            seconds = time.perf_counter() - self.clock
            _write_generation(self.folder, generation, population, rows, seconds, self.names)
            _write_tables(self.folder)
            self.written, self.clock = generation, time.perf_counter()
            reports.append(GenerationReport(generation, population, rows, seconds))
        return reports


def _held(config: EvolutionConfig, population: np.ndarray) -> np.ndarray:
    """The population with the pawn's value put back where the config holds it fixed."""
    if config.mutation.pawn is not None:
        population[:, 0] = config.mutation.pawn
    return population


def _play_group(
    a_values: Sequence[Sequence[float]], b_values: Sequence[Sequence[float]], fens: Sequence[str],
    nodes: int, max_plies: int, genome: str = "pieces",
) -> list[PairGames]:
    """One deme's pairs of the generation (a task of the runtime's: plain values in, plain values out)."""
    return [
        play_pair(genome_values(genome, a), genome_values(genome, b), chess.Board(fen), nodes=nodes,
                  max_plies=max_plies)
        for a, b, fen in zip(a_values, b_values, fens)
    ]


def _openings(config: EvolutionConfig, generation: int, groups: list[list[tuple[int, int]]]) -> list[list[str]]:
    """Each pair's opening: the openings in turn, continuing from one generation to the next."""
    per_generation = config.population // 2
    first = (generation - 1) * per_generation
    starts, k = [], 0
    for group in groups:
        starts.append([config.openings[(first + k + i) % len(config.openings)] for i in range(len(group))])
        k += len(group)
    return starts


def _renumbered(outcomes: list[PairOutcome], members: list[int]) -> list[PairOutcome]:
    return [
        PairOutcome(members[o.a], members[o.b], o.scores, o.case, None if o.winner is None else members[o.winner],
                    o.winner_factor, o.loser_factor)
        for o in outcomes
    ]


def _pair_rows(generation, config, groups, starts, played, outcomes, migration) -> list[dict]:
    rows, k = [], 0
    for deme, (group, fens, games) in enumerate(zip(groups, starts, played)):
        for (a, b), fen, pair in zip(group, fens, games):
            outcome = outcomes[k]
            k += 1
            rows.append({
                "generation": generation, "deme": deme, "migration": migration, "a": a, "b": b,
                "a_white": pair.scores[0], "a_black": pair.scores[1], "case": outcome.case,
                "winner": -1 if outcome.winner is None else outcome.winner,
                "plies_a_white": pair.plies[0], "plies_a_black": pair.plies[1],
                "ending_a_white": pair.endings[0], "ending_a_black": pair.endings[1], "opening": fen,
            })
    return rows


# ---- files ---------------------------------------------------------------------------------------


def _config_dict(config: EvolutionConfig, asynchronous: bool = False) -> dict:
    settings = asdict(config)
    if asynchronous:
        settings["asynchronous"] = True
    settings.update(settings.pop("mutation"))  # the settings' file lists them flat
    settings["initial"], settings["bounds"] = list(config.initial), list(config.mutation.bounds)
    if config.mutation.genome == "pieces":  # the settings' file of a piece-value run as it has always been
        for key in ("genome", "square_bounds", "square_initial"):
            settings.pop(key)
    else:
        settings["square_bounds"] = list(config.mutation.square_bounds)
        settings["square_initial"] = list(config.mutation.square_initial)
    settings["openings"] = list(config.openings)
    settings.pop("generations")  # a resumed run may go further
    return {"format": FORMAT, "version": _VERSION, "config": settings}


def _prepare(folder: Path, config: EvolutionConfig, resume: bool, asynchronous: bool) -> int | None:
    """The last finished generation to go on from (None: a new run); the folder ready."""
    settings = folder / "config.json"
    if folder.exists() and not folder.is_dir():
        raise EvolutionError(f"{folder} is not a folder")
    if not settings.exists():
        if _finished(folder):
            raise EvolutionError(f"{folder} holds generations but no config.json")
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(settings, json.dumps(_config_dict(config, asynchronous), indent=1))
        return None
    if not resume:
        raise EvolutionError(f"{folder} holds a run already: resume it, or choose another folder")
    try:
        held = json.loads(settings.read_text())
    except (OSError, ValueError) as exc:
        raise EvolutionError(f"{settings} is unreadable: {exc}") from None
    if held != _config_dict(config, asynchronous):
        raise EvolutionError(f"{folder} holds a run with other settings: resume it with the same ones")
    finished = _finished(folder)
    return finished[-1] if finished else None


def _finished(folder: Path) -> list[int]:
    if not folder.is_dir():
        return []
    return sorted(int(p.stem.split("_")[1]) for p in folder.glob("generation_*.json") if p.stem[11:].isdigit())


def _write_generation(folder: Path, generation: int, population: np.ndarray, rows: list[dict], seconds: float,
                      names: Sequence[str] = PIECE_NAMES):
    payload = {
        "format": FORMAT, "version": _VERSION, "generation": generation, "seconds": round(seconds, 3),
        "names": list(names), "population": population.tolist(), "pairs": rows,
    }
    _atomic_write(folder / f"generation_{generation:04d}.json", json.dumps(payload))


def _read_generation(
    folder: Path, generation: int, expected: Sequence[str] | None = None
) -> tuple[np.ndarray, list[dict], tuple[str, ...]]:
    """A finished generation's population, pairs' rows and weights' names (``expected``: the names it must have)."""
    path = folder / f"generation_{generation:04d}.json"
    try:
        payload = json.loads(path.read_text())
        population = np.array(payload["population"], dtype=float)
        rows = list(payload["pairs"])
        names = tuple(str(name) for name in payload.get("names", PIECE_NAMES))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EvolutionError(f"{path} is unreadable: {exc}") from None
    if (payload.get("format") != FORMAT or population.ndim != 2 or population.shape[1] != len(names)
            or names not in (genome_names(g) for g in GENOMES)
            or (expected is not None and names != tuple(expected))):
        raise EvolutionError(f"{path} is not a generation of this evolution")
    return population, rows, names


def _atomic_write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


def _write_tables(folder: Path) -> pd.DataFrame:
    populations, pairs = load_generations(folder)
    _atomic_write(folder / "population.csv", populations.to_csv(index=False))
    _atomic_write(folder / "pairs.csv", pairs.to_csv(index=False))
    _plot(populations, folder / "weights.png")
    return populations


def _plot(populations: pd.DataFrame, path: Path) -> None:
    from matplotlib.figure import Figure

    pieces = [name for name in PIECE_NAMES if name in populations.columns]
    squares = [name for name in SQUARE_NAMES if name in populations.columns]
    panels = [part for part in (pieces, squares) if part]
    figure = Figure(figsize=(7, 4 * len(panels)))
    for axes, names in zip(figure.subplots(len(panels), 1, squeeze=False)[:, 0], panels):
        means = populations.groupby("generation")[names].mean()
        if names is pieces:
            for name, standard in zip(PIECE_NAMES, STANDARD):
                line = axes.plot(means.index, means[name], label=name)[0]
                axes.axhline(standard, color=line.get_color(), linestyle=":", linewidth=0.8)
            axes.set_ylabel("population mean (centipawns); dotted: standard")
        else:
            for at, name in enumerate(names):  # a colour a piece, solid the middlegame, dashed the endgame
                axes.plot(means.index, means[name], label=name.replace("_squares_", " "), color=f"C{at // 2}",
                          linestyle="-" if name.endswith("mg") else "--")
            axes.axhline(1.0, color="black", linestyle=":", linewidth=0.8)
            axes.set_ylabel("bonus scale (mean); dotted: hand-set")
        axes.set_xlabel("generation")
        axes.legend(loc="upper left", fontsize="small", ncol=2 if names is squares else 1)
    figure.tight_layout()
    partial = path.with_name(path.name + ".partial.png")
    figure.savefig(partial, dpi=90)
    os.replace(partial, path)
